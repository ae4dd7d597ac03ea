"""attention_lab.experiments.learning: a head learns "copy the previous token" on every seed."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.experiments import (
    TRAINING_SEEDS,
    previous_token_pattern,
    train_previous_token,
)
from attention_lab.experiments.learning import _loss_and_grads, _weights


@pytest.mark.parametrize("seed", TRAINING_SEEDS)
def test_every_shipped_seed_starts_uniform_and_ends_at_the_pattern(seed):
    run = train_previous_token(seed=seed)
    n = len(run.tokens)
    allowed = np.tril(np.ones((n, n)))
    uniform = allowed / allowed.sum(axis=1, keepdims=True)
    assert np.abs(run.snapshots[0] - uniform).max() < 0.02
    # The final weights, on the drawn example and averaged over fresh sequences, are the pattern.
    assert np.abs(run.final_weights - previous_token_pattern(n)).max() < 0.1
    assert run.weight_on_previous().min() > 0.9
    assert run.losses[-1] < 0.05 * run.losses[0]


def test_the_same_seed_gives_the_same_run():
    a, b = train_previous_token(seed=0), train_previous_token(seed=0)
    assert np.array_equal(a.snapshots, b.snapshots) and np.array_equal(a.losses, b.losses)


def test_hand_written_gradients_match_finite_differences():
    rng = np.random.default_rng(5)
    n, d, d_k = 5, 6, 3
    tokens = rng.integers(0, 4, size=(3, n))
    X = rng.normal(size=(3, n, d))
    W_Q, W_K = rng.normal(size=(d, d_k)), rng.normal(size=(d, d_k))
    mask = np.tril(np.ones((n, n), dtype=bool))
    _, g_q, g_k = _loss_and_grads(X, tokens, W_Q, W_K, mask)
    eps = 1e-6
    for W, g in ((W_Q, g_q), (W_K, g_k)):
        for idx in [(0, 0), (2, 1), (5, 2)]:
            W[idx] += eps
            up = _loss_and_grads(X, tokens, W_Q, W_K, mask)[0]
            W[idx] -= 2 * eps
            down = _loss_and_grads(X, tokens, W_Q, W_K, mask)[0]
            W[idx] += eps
            assert (up - down) / (2 * eps) == pytest.approx(g[idx], rel=1e-4, abs=1e-8)


def test_the_causal_mask_holds_during_training():
    run = train_previous_token(seed=0, steps=5, record_at=(0, 5))
    assert np.allclose(np.triu(run.snapshots, k=1), 0)
    w, _, _ = _weights(np.ones((1, 3, 2)), np.eye(2), np.eye(2), np.tril(np.ones((3, 3), bool)))
    assert np.allclose(w.sum(-1), 1)


def test_pattern_and_bad_arguments():
    assert previous_token_pattern(3).tolist() == [[1, 0, 0], [1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="vocab"):
        train_previous_token(vocab=40)
    with pytest.raises(ValueError, match="record_at"):
        train_previous_token(steps=5, record_at=(0, 10))


@pytest.mark.parametrize("seed", TRAINING_SEEDS)
def test_without_positions_this_head_cannot_learn_the_pattern(seed):
    # Lesson 6 says "this one head could not": every vector is then its letter's embedding
    # alone, so no score can prefer "the place just before" over an earlier copy of a letter.
    with_pe = train_previous_token(seed=seed)
    without = train_previous_token(seed=seed, positions=False)
    assert with_pe.positions and not without.positions
    assert without.losses[-1] > 0.5 > 0.01 > with_pe.losses[-1]
    assert without.weight_on_previous().max() < 0.8 < with_pe.weight_on_previous().min()
