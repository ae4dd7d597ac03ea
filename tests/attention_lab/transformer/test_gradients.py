"""attention_lab.transformer.gradients and the model's loss: gradients against numerical ones."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.transformer.block import Parts, block_forward, init_block
from attention_lab.transformer.gradients import block_vjp
from attention_lab.transformer.tiny_model import init_model, loss_and_grads

PARTS = [
    Parts(),
    Parts(norm_first=True),
    Parts(residual=False),
    Parts(norm=False),
    Parts(feed_forward=False),
    Parts(causal=False),
]


def _numerical(f, arr, idx, h=1e-6) -> float:
    old = arr[idx]
    arr[idx] = old + h
    up = f()
    arr[idx] = old - h
    down = f()
    arr[idx] = old
    return (up - down) / (2 * h)


def _some(arr, rng, k=3):
    return [tuple(int(rng.integers(0, s)) for s in arr.shape) for _ in range(k)]


@pytest.mark.parametrize("parts", PARTS, ids=str)
def test_block_gradients_match_numerical_differences(parts):
    rng = np.random.default_rng(0)
    w = init_block(8, 2, 12, seed=1)
    for b in (w.b_1, w.beta1, w.beta2):
        b[:] = rng.normal(size=b.shape)  # ReLUs on both sides of 0
    x = rng.normal(size=(2, 5, 8))
    out, weights, back = block_vjp(x, w, parts)
    reference = block_forward(x, w, parts)
    assert np.allclose(out, reference.output) and np.allclose(weights, reference.weights)
    direction = rng.normal(size=out.shape)
    dx, dw = back(direction)

    def f():
        return float(np.sum(block_forward(x, w, parts).output * direction))

    for name, arr in w.arrays().items():
        for idx in _some(arr, rng):
            assert getattr(dw, name)[idx] == pytest.approx(_numerical(f, arr, idx), abs=1e-6)
    for idx in _some(x, rng, 5):
        assert dx[idx] == pytest.approx(_numerical(f, x, idx), abs=1e-6)


def test_parts_left_out_get_zero_gradients():
    w = init_block(8, 2, 12, seed=1)
    _, _, back = block_vjp(np.ones((3, 8)) * np.arange(8), w, Parts(feed_forward=False))
    dw = back(np.ones((3, 8)))[1]
    assert not dw.W_1.any() and not dw.gamma2.any()
    assert dw.W_Q.any() or dw.W_V.any()


def test_the_models_loss_gradients_match_numerical_differences():
    model = init_model(d_model=8, h=2, d_ff=12, context=6, seed=3)
    windows = model.vocab.encode("twinkle, little")[:14].reshape(2, 7)
    loss, grads = loss_and_grads(model, windows)
    assert loss > 0
    rng = np.random.default_rng(4)

    def f():
        return loss_and_grads(model, windows)[0]

    for arr, grad in zip(model.arrays(), grads, strict=True):
        assert grad.shape == arr.shape
        for idx in _some(arr, rng, 2):
            assert grad[idx] == pytest.approx(_numerical(f, arr, idx), abs=1e-6)
    # the embedding rows of characters not in the windows get no gradient
    unused = sorted(set(range(model.vocab.size)) - set(windows[:, :-1].ravel()))
    assert unused and not grads[0][unused].any()
