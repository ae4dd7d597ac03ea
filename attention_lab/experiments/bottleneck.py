"""a. and f.: one fixed-size memory against attention over all states; steps of an RNN against one matrix product."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab.core import attention
from attention_lab.experiments._common import positive_ints, seeded_rng

#: Bahdanau, Cho & Bengio (2014), "Neural Machine Translation by Jointly Learning to Align and
#: Translate", Table 1: BLEU on the whole English->French test set for the two models trained on
#: sentences of up to 50 words (fixed-vector encoder-decoder vs the attention model).
BAHDANAU_TABLE1_BLEU = {"RNNencdec-50": 17.82, "RNNsearch-50": 26.75}


@dataclass(frozen=True)
class BottleneckResult:
    """Recall of stored words against sequence length, for the two decoders.

    Attributes
    ----------
    lengths : ndarray, shape (n_lengths,)
        Sequence lengths tried.
    fixed_memory : ndarray, shape (n_lengths,)
        Fraction of words recalled correctly from the single ``d``-number memory vector.
    attention : ndarray, shape (n_lengths,)
        Fraction recalled correctly by attending over all ``n`` stored states.
    d : int
        Size of one vector (the memory, and each stored state).
    vocab_size : int
        How many different words the sequences are drawn from (chance = 1 / vocab_size).
    sharpness : float
        The factor the attention decoder's queries were multiplied by (built in, not learned).
    """

    lengths: FloatArray
    fixed_memory: FloatArray
    attention: FloatArray
    d: int
    vocab_size: int
    sharpness: float

    @property
    def attention_numbers(self) -> FloatArray:
        """Numbers the attention decoder keeps, per length: ``n * d`` (the memory has ``d``)."""
        return self.lengths * self.d


def _random_rotation(rng: np.random.Generator, d: int) -> FloatArray:
    # An orthogonal matrix (QR of a Gaussian) - a "recurrent weight" that never loses information
    # by itself, so any forgetting we measure comes from the fixed size alone.
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def bottleneck_recall(
    lengths: ArrayLike = (5, 10, 15, 20, 25, 30, 40, 50, 60),
    d: int = 128,
    vocab_size: int = 50,
    n_trials: int = 30,
    seed: int = 0,
    sharpness: float = 20.0,
) -> BottleneckResult:
    """Recall words from one fixed-size memory vector vs attention over every state.

    Each word of a random sequence is a random unit vector in ``R^d``. The *fixed-memory*
    encoder is a linear RNN: ``h <- R h + x_t`` with a random rotation ``R``; after the sequence
    only the final ``h`` (``d`` numbers) is kept. To recall word ``t`` the decoder rotates ``h``
    back by ``R^-(t)`` and picks the closest vocabulary word; the other words add up as noise that
    grows with the length. The *attention* decoder keeps all ``n`` states (value = the word,
    key = a random position code), queries with the position code of ``t`` times ``sharpness``,
    softmaxes the scores and picks the word closest to the blended output.

    Three things are built in, not learned, and a lesson should say so: the decoder is handed
    the exact position code of the word it wants, the ``sharpness`` that makes its softmax
    nearly one-hot, and a memory of ``n * d`` numbers against the fixed memory's ``d``.

    Parameters
    ----------
    lengths : sequence of int
        Sequence lengths to try (each >= 1).
    d : int
        Numbers per vector (memory size and state size).
    vocab_size : int
        Vocabulary size.
    n_trials : int
        Random sequences per length.
    seed : int
        Seed for every random draw.
    sharpness : float
        Factor on the attention queries (larger = closer to picking one slot).

    Returns
    -------
    BottleneckResult
    """
    lengths = positive_ints("lengths", lengths)
    if not np.isfinite(sharpness) or sharpness <= 0:
        raise ValueError(f"sharpness must be a positive number, got {sharpness!r}")
    for name, value in (("d", d), ("vocab_size", vocab_size), ("n_trials", n_trials)):
        positive_ints(name, [value], minimum=2 if name != "n_trials" else 1)
    rng = seeded_rng(seed)
    vocab = rng.standard_normal((vocab_size, d))
    vocab /= np.linalg.norm(vocab, axis=1, keepdims=True)
    rotation = _random_rotation(rng, d)
    max_len = int(lengths.max())
    # powers[t] = R^t, so word t (0-based, read first) has been rotated n-1-t times at the end.
    powers = np.empty((max_len, d, d))
    powers[0] = np.eye(d)
    for t in range(1, max_len):
        powers[t] = rotation @ powers[t - 1]
    fixed, attn = [], []
    for n in lengths:
        hits_fixed = hits_attn = 0
        for _ in range(n_trials):
            words = rng.integers(0, vocab_size, size=n)
            x = vocab[words]  # (n, d)
            # Encoder: h = sum_t R^(n-1-t) x_t  (the same as running h <- R h + x_t).
            h = np.einsum("tij,tj->i", powers[n - 1 :: -1][:n], x)
            # Decoder: undo the rotations for each position, nearest vocabulary word.
            recovered = np.einsum("tji,j->ti", powers[n - 1 :: -1][:n], h)
            hits_fixed += int(np.sum(np.argmax(recovered @ vocab.T, axis=1) == words))
            # Attention: keys are random unit position codes; sharpened scores find the slot.
            keys = rng.standard_normal((n, d))
            keys /= np.linalg.norm(keys, axis=1, keepdims=True)
            blended, _ = attention(sharpness * keys, keys, x, scale=False)
            hits_attn += int(np.sum(np.argmax(blended @ vocab.T, axis=1) == words))
        fixed.append(hits_fixed / (n * n_trials))
        attn.append(hits_attn / (n * n_trials))
    return BottleneckResult(
        lengths, np.array(fixed), np.array(attn), d, vocab_size, float(sharpness)
    )


@dataclass(frozen=True)
class StepsResult:
    """An RNN pass vs self-attention over the same sequence.

    Attributes
    ----------
    n, d : int
        Sequence length and vector size.
    rnn_sequential_steps : int
        Steps that must wait for the previous one (n).
    attention_sequential_steps : int
        Matrix products that must wait for each other in self-attention (a fixed handful).
    rnn_seconds, attention_seconds, attention_row_by_row_seconds : float
        Best-of-``repeat`` wall times: the RNN loop, all attention rows as matrix products, and
        the attention rows computed one at a time in a Python loop.
    rows_match : bool
        Whether the row-by-row loop gives the same matrix (rows do not depend on each other).
    rnn_multiplications, attention_multiplications : int
        Scalar multiplications of each: ``2 n d^2`` for the RNN (``W h`` and ``U x`` per
        step), ``2 n^2 d`` for attention (``Q K^T`` and ``weights V``), as in Vaswani et al.
        (2017), Table 1: O(n d^2) per recurrent layer, O(n^2 d) per self-attention layer.
    """

    n: int
    d: int
    rnn_sequential_steps: int
    attention_sequential_steps: int
    rnn_seconds: float
    attention_seconds: float
    attention_row_by_row_seconds: float
    rows_match: bool
    rnn_multiplications: int
    attention_multiplications: int

    @property
    def loop_ratio(self) -> float:
        """How many times as long the row-by-row loop took as all rows at once (this run)."""
        return self.attention_row_by_row_seconds / self.attention_seconds


def _best_time(fn: Callable[[], object], repeat: int) -> float:
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return float(best)


def rnn_vs_attention_steps(
    n: int = 256, d: int = 64, repeat: int = 5, seed: int = 0
) -> StepsResult:
    """Time an RNN pass against self-attention as matrix products, and row by row.

    The RNN (``h_t = tanh(W h_{t-1} + U x_t)``) runs one step after another; self-attention is
    timed as matrix products, and again computing the same rows one at a time.

    Parameters
    ----------
    n : int
        Sequence length.
    d : int
        Vector size.
    repeat : int
        Timing repeats (best is kept).
    seed : int

    Returns
    -------
    StepsResult
    """
    for name, value in (("n", n), ("d", d), ("repeat", repeat)):
        positive_ints(name, [value])
    rng = seeded_rng(seed)
    x = rng.standard_normal((n, d))
    w = rng.standard_normal((d, d)) / np.sqrt(d)
    u = rng.standard_normal((d, d)) / np.sqrt(d)

    def rnn() -> FloatArray:
        h = np.zeros(d)
        states = np.empty((n, d))
        for t in range(n):  # step t needs h from step t-1: no way to skip ahead
            h = np.tanh(w @ h + u @ x[t])
            states[t] = h
        return states

    def all_rows() -> FloatArray:
        return attention(x, x, x)[0]

    def row_by_row() -> FloatArray:
        return np.array([attention(x[i], x, x)[0] for i in range(n)])

    rows_match = bool(np.allclose(all_rows(), row_by_row()))
    return StepsResult(
        n=n,
        d=d,
        rnn_sequential_steps=n,
        # scores = Q K^T, softmax, weights V: three dependent stages whatever n is.
        attention_sequential_steps=3,
        rnn_seconds=_best_time(rnn, repeat),
        attention_seconds=_best_time(all_rows, repeat),
        attention_row_by_row_seconds=_best_time(row_by_row, repeat),
        rows_match=rows_match,
        rnn_multiplications=2 * n * d * d,
        attention_multiplications=2 * n * n * d,
    )
