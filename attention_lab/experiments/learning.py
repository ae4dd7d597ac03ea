"""h. Attention that learns: one head trained in plain numpy to copy the previous token.

The task: a sequence of random tokens; at every position from the second on, say which token
came just before. The head's output is a *pointer*: the probability of token ``c`` at position
``i`` is the attention weight position ``i`` gives to the places holding ``c``
(``p_i(c) = sum_j w_ij [t_j = c]``). The loss is the mean of ``-log p_i(t_(i-1))``. The right
pattern is known in advance: each position puts its weight on the one just before it.

Each word vector is a random token embedding plus the sinusoidal position encoding
(Vaswani et al. 2017, §3.5), or the embedding alone with ``positions=False``; a causal mask (lesson 4) lets each position see only itself and
the ones before. Only ``W_Q`` and ``W_K`` are learned, from small random numbers (so the
weights start nearly uniform), with gradients written out by hand and the Adam update
(Kingma & Ba 2015).

Gradients, for one row ``i`` with weights ``w`` and ``r_j = w_j [t_j = target] / p`` (the share of
the right token's probability that place ``j`` holds): ``dL/ds_j = w_j - r_j``. With
``S = Q K^T / sqrt(d_k)``, ``Q = X W_Q``, ``K = X W_K`` and ``G = dL/dS``:
``dL/dW_Q = X^T G K / sqrt(d_k)`` and ``dL/dW_K = X^T G^T Q / sqrt(d_k)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from attention_lab._types import BoolArray, FloatArray, IntArray
from attention_lab.core import causal_mask, positional_encoding
from attention_lab.experiments._common import seeded_rng

__all__ = ["TRAINING_SEEDS", "TrainingRun", "previous_token_pattern", "train_previous_token"]

#: The seeds the lesson may use; a test checks that every one of them learns the pattern.
TRAINING_SEEDS = (0, 1, 2)
_SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class TrainingRun:
    """What one training run recorded.

    Attributes
    ----------
    seed : int
    positions : bool
        Whether the word vectors had the position encoding added.
    tokens : tuple of str, length n
        The example sequence whose weights are recorded.
    steps : numpy.ndarray of int, shape (n_snapshots,)
        The training steps at which the weights were recorded (0 = before training).
    snapshots : numpy.ndarray, shape (n_snapshots, n, n)
        The example sequence's attention weights at each of ``steps``.
    losses : numpy.ndarray, shape (n_steps,)
        The training loss at every step (mean ``-log p`` of the previous token).
    eval_weights : numpy.ndarray, shape (n, n)
        After training: the weights averaged over ``n_eval`` fresh random sequences.
    W_Q, W_K : numpy.ndarray, shape (d_model, d_k)
        The learned projections.
    """

    seed: int
    positions: bool
    tokens: tuple[str, ...]
    steps: IntArray
    snapshots: FloatArray
    losses: FloatArray
    eval_weights: FloatArray
    W_Q: FloatArray
    W_K: FloatArray

    @property
    def final_weights(self) -> FloatArray:
        """The example sequence's weights after the last step, shape (n, n)."""
        last: FloatArray = self.snapshots[-1]
        return last

    def weight_on_previous(self) -> FloatArray:
        """For positions 1..n-1, the mean weight on the position just before, shape (n - 1,)."""
        n = self.eval_weights.shape[0]
        return self.eval_weights[np.arange(1, n), np.arange(n - 1)]


def previous_token_pattern(n: int) -> FloatArray:
    """Return the weights the task needs: position 0 on itself, every other one on the one before.

    Returns
    -------
    numpy.ndarray, shape (n, n)
        One-hot rows.
    """
    pattern = np.zeros((n, n))
    pattern[0, 0] = 1.0
    pattern[np.arange(1, n), np.arange(n - 1)] = 1.0
    return pattern


def _weights(
    X: FloatArray, W_Q: FloatArray, W_K: FloatArray, mask: BoolArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Causal attention weights of a batch X (b, n, d): weights (b, n, n), Q and K (b, n, d_k)."""
    Q, K = X @ W_Q, X @ W_K
    S = np.where(mask, Q @ K.transpose(0, 2, 1) / np.sqrt(W_Q.shape[1]), -np.inf)
    peak: FloatArray = S.max(axis=-1, keepdims=True)
    e = np.exp(S - peak)
    totals: FloatArray = e.sum(axis=-1, keepdims=True)
    return e / totals, Q, K


def _loss_and_grads(
    X: FloatArray, tokens: IntArray, W_Q: FloatArray, W_K: FloatArray, mask: BoolArray
) -> tuple[float, FloatArray, FloatArray]:
    """Return the pointer loss of a batch and its gradients with respect to W_Q and W_K."""
    w, Q, K = _weights(X, W_Q, W_K, mask)
    target = np.roll(tokens, 1, axis=1)  # t_(i-1) for row i; row 0 takes no part
    holds = (tokens[:, None, :] == target[:, :, None]) & mask
    holds[:, 0, :] = False
    p = (w * holds).sum(axis=-1)  # (b, n): probability of the right token
    loss = float(-np.log(p[:, 1:]).mean())
    share = np.where(holds, w / np.where(p > 0, p, 1.0)[..., None], 0.0)
    G = w - share
    G[:, 0, :] = 0.0
    G /= G.shape[0] * (G.shape[1] - 1) * np.sqrt(W_Q.shape[1])
    g_q = np.einsum("bid,bij,bjk->dk", X, G, K, optimize=True)
    g_k = np.einsum("bjd,bij,bik->dk", X, G, Q, optimize=True)
    return loss, g_q, g_k


def train_previous_token(
    seed: int = 0,
    n: int = 6,
    vocab: int = 8,
    d_model: int = 16,
    d_k: int = 4,
    steps: int = 200,
    batch: int = 32,
    learning_rate: float = 0.1,
    record_at: Iterable[int] = (0, 10, 25, 50, 200),
    n_eval: int = 200,
    positions: bool = True,
) -> TrainingRun:
    """Train one head's ``W_Q`` and ``W_K`` to copy the previous token; record the weights.

    Parameters
    ----------
    seed : int
        Every random draw (embeddings, starting matrices, batches) comes from it.
    n : int
        Sequence length.
    vocab : int
        Number of different tokens (at most 26; few tokens repeat often, which makes "look at
        any earlier copy" a tempting shortcut).
    d_model, d_k : int
        Word-vector length (even) and query/key length.
    steps, batch : int
        Adam steps, each on ``batch`` fresh random sequences.
    learning_rate : float
    record_at : sequence of int
        Steps after which the example sequence's weights are recorded (0 = before training).
    n_eval : int
        Fresh sequences the final weights are averaged over.
    positions : bool, default True
        Add the sinusoidal position encoding to every word vector. With False each vector is its
        token's embedding alone (the same random draws otherwise), to see what the head can
        learn without knowing where a token stands.

    Returns
    -------
    TrainingRun
    """
    if not 2 <= vocab <= len(_SYMBOLS):
        raise ValueError(f"vocab must be between 2 and {len(_SYMBOLS)}, got {vocab}")
    if n < 2 or d_model < 2 or d_model % 2 or d_k < 1 or steps < 1:
        raise ValueError(
            f"need n >= 2, an even d_model >= 2, d_k >= 1, steps >= 1 (got n={n}, "
            f"d_model={d_model}, d_k={d_k}, steps={steps})"
        )
    record = sorted(set(int(s) for s in record_at))
    if record[0] < 0 or record[-1] > steps:
        raise ValueError(f"record_at must lie in 0..{steps}, got {list(record_at)}")
    rng = seeded_rng(seed)
    # Token embeddings a little shorter than the position codes: the task is about positions.
    embed = rng.standard_normal((vocab, d_model)) * 0.5
    pe = positional_encoding(n, d_model) if positions else np.zeros((n, d_model))
    mask = causal_mask(n)
    # Small starting matrices: every score is near 0, so the weights start nearly uniform.
    params = [rng.standard_normal((d_model, d_k)) * 0.01 for _ in range(2)]
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    example = rng.integers(0, vocab, size=(1, n))
    snapshots, losses = [], []

    def snapshot() -> None:
        snapshots.append(_weights(embed[example] + pe, params[0], params[1], mask)[0][0])

    if record[0] == 0:
        snapshot()
    for step in range(1, steps + 1):
        tokens = rng.integers(0, vocab, size=(batch, n))
        loss, *grads = _loss_and_grads(embed[tokens] + pe, tokens, params[0], params[1], mask)
        losses.append(loss)
        for p, g, (m, v) in zip(params, grads, moments, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= learning_rate * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        if step in record:
            snapshot()
    fresh = rng.integers(0, vocab, size=(n_eval, n))
    eval_weights = _weights(embed[fresh] + pe, params[0], params[1], mask)[0].mean(axis=0)
    return TrainingRun(
        seed=int(seed),
        positions=bool(positions),
        tokens=tuple(_SYMBOLS[t] for t in example[0]),
        steps=np.array(record),
        snapshots=np.array(snapshots),
        losses=np.array(losses),
        eval_weights=eval_weights,
        W_Q=params[0],
        W_K=params[1],
    )
