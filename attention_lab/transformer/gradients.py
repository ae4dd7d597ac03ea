"""The block's backward pass, written out by hand (no autodiff library).

Each forward step returns its output and a ``back`` function: given how the loss changes with
the output (``d_out``), it returns how the loss changes with the step's input and its weights
(the chain rule, one step at a time). :func:`block_vjp` chains them in the order of
:func:`attention_lab.transformer.block.block_forward`; a test compares every gradient with
numerical differences and the forward result with ``block_forward``'s.

The rules used:

* layer norm, ``y = g * xhat + b`` with ``xhat = (x - mean) / sqrt(var + eps)``:
  ``dx = (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) / sqrt(var + eps)``, ``dxhat = dy * g``;
* softmax of a row, ``w = softmax(s)``: ``ds = w * (dw - sum(dw * w))`` (masked places have
  ``w = 0``, so no gradient reaches them);
* a matrix product ``y = x W``: ``dx = dy W^T``, ``dW = x^T dy``; ReLU passes ``dy`` where its
  input was positive.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from attention_lab._types import FloatArray
from attention_lab.transformer.block import (
    EPS,
    ORIGINAL,
    BlockWeights,
    Parts,
    heads_matrix,
    join_heads,
    split_heads,
)

__all__ = ["block_vjp"]

Grads = dict[str, FloatArray]
Back = Callable[[FloatArray], tuple[FloatArray, Grads]]
#: a sub-layer (or its norm) with its backward pass, as :func:`_wrap` takes them
Sublayer = Callable[[FloatArray], tuple[FloatArray, Back]]


def _sum_leading(a: FloatArray) -> FloatArray:
    """Sum over every axis but the last (a bias's gradient adds over the batch and positions)."""
    total: FloatArray = a.reshape(-1, a.shape[-1]).sum(axis=0)
    return total


def _outer_sum(a: FloatArray, b: FloatArray) -> FloatArray:
    """``sum over rows of a_row^T b_row``: a weight's gradient from its input and ``d_out``."""
    rows_a: FloatArray = a.reshape(-1, a.shape[-1])
    rows_b: FloatArray = b.reshape(-1, b.shape[-1])
    return rows_a.T @ rows_b


def _per_head(flat: FloatArray, h: int) -> FloatArray:
    """(d_model, h * d_k) -> (h, d_model, d_k), the inverse of ``heads_matrix``."""
    return np.swapaxes(flat.reshape(flat.shape[0], h, -1), 0, 1)


def _layer_norm(
    x: FloatArray, gamma: FloatArray, beta: FloatArray, names: tuple[str, str]
) -> tuple[FloatArray, Back]:
    mean = x.mean(axis=-1, keepdims=True)
    inv = 1.0 / np.sqrt(x.var(axis=-1, keepdims=True) + EPS)
    xhat = (x - mean) * inv

    def back(dy: FloatArray) -> tuple[FloatArray, Grads]:
        dxhat = dy * gamma
        dx = inv * (
            dxhat
            - dxhat.mean(axis=-1, keepdims=True)
            - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
        )
        return dx, {names[0]: _sum_leading(dy * xhat), names[1]: _sum_leading(dy)}

    return xhat * gamma + beta, back


def _attention(x: FloatArray, w: BlockWeights, causal: bool) -> tuple[FloatArray, FloatArray, Back]:
    flats = [heads_matrix(m) for m in (w.W_Q, w.W_K, w.W_V)]
    Q, K, V = (split_heads(x @ f, w.h) for f in flats)
    root = np.sqrt(w.d_k)
    scores = Q @ np.swapaxes(K, -1, -2) / root
    if causal:
        n = x.shape[-2]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    concat = join_heads(weights @ V)

    def back(dy: FloatArray) -> tuple[FloatArray, Grads]:
        d_heads = split_heads(dy @ w.W_O.T, w.h)
        d_weights = d_heads @ np.swapaxes(V, -1, -2)
        dV = np.swapaxes(weights, -1, -2) @ d_heads
        d_scores = weights * (d_weights - (d_weights * weights).sum(axis=-1, keepdims=True))
        dQ = d_scores @ K / root
        dK = np.swapaxes(d_scores, -1, -2) @ Q / root
        joined = [join_heads(d) for d in (dQ, dK, dV)]
        grads = {"W_O": _outer_sum(concat, dy)}
        for name, d in zip(("W_Q", "W_K", "W_V"), joined, strict=True):
            grads[name] = _per_head(_outer_sum(x, d), w.h)
        dx = sum(d @ f.T for d, f in zip(joined, flats, strict=True))
        return np.asarray(dx), grads

    return concat @ w.W_O, weights, back


def _feed_forward(x: FloatArray, w: BlockWeights) -> tuple[FloatArray, Back]:
    hidden = x @ w.W_1 + w.b_1
    active = np.maximum(hidden, 0.0)

    def back(dy: FloatArray) -> tuple[FloatArray, Grads]:
        d_hidden = (dy @ w.W_2.T) * (hidden > 0)
        grads = {
            "W_2": _outer_sum(active, dy),
            "b_2": _sum_leading(dy),
            "W_1": _outer_sum(x, d_hidden),
            "b_1": _sum_leading(d_hidden),
        }
        return d_hidden @ w.W_1.T, grads

    return active @ w.W_2 + w.b_2, back


def _identity(x: FloatArray) -> tuple[FloatArray, Back]:
    return x, lambda dy: (dy, {})


def _wrap(
    x: FloatArray, sublayer: Sublayer, norm: Sublayer, parts: Parts
) -> tuple[FloatArray, Back]:
    """Post-norm ``norm(x + f(x))`` or pre-norm ``x + f(norm(x))``, with its backward pass."""
    if parts.norm_first:
        u, back_norm = norm(x)
        f, back_f = sublayer(u)
        out = x + f if parts.residual else f

        def back_pre(dy: FloatArray) -> tuple[FloatArray, Grads]:
            du, g1 = back_f(dy)
            dx, g2 = back_norm(du)
            return dx + dy if parts.residual else dx, {**g1, **g2}

        return out, back_pre
    f, back_f = sublayer(x)
    out, back_norm = norm(x + f if parts.residual else f)

    def back_post(dy: FloatArray) -> tuple[FloatArray, Grads]:
        ds, g1 = back_norm(dy)
        dx, g2 = back_f(ds)
        return dx + ds if parts.residual else dx, {**g1, **g2}

    return out, back_post


def block_vjp(
    x: FloatArray, w: BlockWeights, parts: Parts = ORIGINAL
) -> tuple[FloatArray, FloatArray, Callable[[FloatArray], tuple[FloatArray, BlockWeights]]]:
    """Run the block and return its backward pass.

    Parameters
    ----------
    x : numpy.ndarray, shape (..., n, d_model)
    w : BlockWeights
    parts : Parts

    Returns
    -------
    output : numpy.ndarray, shape (..., n, d_model)
    weights : numpy.ndarray, shape (..., h, n, n)
    back : callable
        ``back(d_output)`` -> ``(d_x, d_w)``: the gradient with respect to ``x`` (shape of
        ``x``) and to every weight (a BlockWeights of gradients; zeros for a part left out).
    """
    found: dict[str, FloatArray] = {}

    def attend(v: FloatArray) -> tuple[FloatArray, Back]:
        out, found["weights"], back = _attention(v, w, parts.causal)
        return out, back

    def norm_with(gamma: FloatArray, beta: FloatArray, names: tuple[str, str]) -> Sublayer:
        if not parts.norm:
            return _identity
        return lambda v: _layer_norm(v, gamma, beta, names)

    middle, back_1 = _wrap(x, attend, norm_with(w.gamma1, w.beta1, ("gamma1", "beta1")), parts)
    output, back_2 = middle, _identity(middle)[1]
    if parts.feed_forward:
        ff = lambda v: _feed_forward(v, w)  # noqa: E731 - the sub-layer, as _wrap takes it
        output, back_2 = _wrap(middle, ff, norm_with(w.gamma2, w.beta2, ("gamma2", "beta2")), parts)

    def back(dy: FloatArray) -> tuple[FloatArray, BlockWeights]:
        d_middle, g2 = back_2(dy)
        dx, g1 = back_1(d_middle)
        grads = {**g1, **g2}
        zeros = {k: np.zeros_like(v) for k, v in w.arrays().items()}
        return dx, BlockWeights(**{**zeros, **grads})

    return output, found["weights"], back
