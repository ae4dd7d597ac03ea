"""One Transformer block, each part switchable: attention, add, norm, feed-forward, add, norm.

Vaswani et al. (2017, §3.1) wrap each of a block's two sub-layers (multi-head self-attention,
then a position-wise feed-forward network) as ``LayerNorm(x + Sublayer(x))``: a residual
connection (He et al. 2016) followed by layer normalisation (Ba et al. 2016). That is
*post-norm*, the original; most current models put the norm first,
``x + Sublayer(LayerNorm(x))`` (*pre-norm*; Xiong et al. 2020 compare the two). Both are here
(:class:`Parts` ``norm_first``).

The feed-forward network is §3.3's ``FFN(x) = max(0, x W_1 + b_1) W_2 + b_2``, the same for
every position. Multi-head attention is §3.2.2's, with ``d_k = d_v = d_model / h``.

Shapes: every function takes a batch of sequences ``(..., n, d_model)`` (one sequence is
``(n, d_model)``); a block's output has the shape of its input, so blocks can be stacked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray

__all__ = [
    "EPS",
    "ORIGINAL",
    "BlockTrace",
    "BlockWeights",
    "Parts",
    "block_forward",
    "feed_forward",
    "init_block",
    "layer_norm",
    "multi_head_self_attention",
]

#: Added to the variance before the square root, so a constant vector does not divide by 0.
EPS = 1e-5


@dataclass(frozen=True)
class Parts:
    """Which parts of the block are there (all, by default: the original block).

    Attributes
    ----------
    residual : bool
        Add each sub-layer's input to its output.
    norm : bool
        Layer-normalise (after the add, or before the sub-layer with ``norm_first``).
    feed_forward : bool
        Keep the feed-forward sub-layer (without it the block is attention, add and norm).
    causal : bool
        Let each position attend only to itself and the positions before it.
    norm_first : bool
        Pre-norm, ``x + Sublayer(LayerNorm(x))``, instead of the original post-norm.
    """

    residual: bool = True
    norm: bool = True
    feed_forward: bool = True
    causal: bool = True
    norm_first: bool = False


#: The block of Vaswani et al. (2017): every part, post-norm, causal (a decoder's self-attention).
ORIGINAL = Parts()


@dataclass(frozen=True, eq=False)
class BlockWeights:
    """The learned numbers of one block.

    Attributes
    ----------
    W_Q, W_K, W_V : numpy.ndarray, shape (h, d_model, d_k)
        Every head's projections, stacked.
    W_O : numpy.ndarray, shape (h * d_k, d_model)
    gamma1, beta1, gamma2, beta2 : numpy.ndarray, shape (d_model,)
        The two layer norms' gain and bias.
    W_1 : numpy.ndarray, shape (d_model, d_ff)
    b_1 : numpy.ndarray, shape (d_ff,)
    W_2 : numpy.ndarray, shape (d_ff, d_model)
    b_2 : numpy.ndarray, shape (d_model,)
    """

    W_Q: FloatArray
    W_K: FloatArray
    W_V: FloatArray
    W_O: FloatArray
    gamma1: FloatArray
    beta1: FloatArray
    W_1: FloatArray
    b_1: FloatArray
    W_2: FloatArray
    b_2: FloatArray
    gamma2: FloatArray
    beta2: FloatArray

    @property
    def h(self) -> int:
        """The number of heads."""
        return int(self.W_Q.shape[0])

    @property
    def d_model(self) -> int:
        """The numbers per position, in and out."""
        return int(self.W_Q.shape[1])

    @property
    def d_k(self) -> int:
        """Each head's width, ``d_model / h``."""
        return int(self.W_Q.shape[2])

    @property
    def d_ff(self) -> int:
        """The feed-forward network's hidden width."""
        return int(self.W_1.shape[1])

    def arrays(self) -> dict[str, FloatArray]:
        """Name -> array, in the order of the fields."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def n_parameters(self) -> int:
        """How many numbers the block learns."""
        return sum(int(a.size) for a in self.arrays().values())


def init_block(d_model: int, h: int, d_ff: int, seed: int = 0) -> BlockWeights:
    """Random weights (scaled by ``1/sqrt(fan-in)``), norms at gain 1 and bias 0.

    Raises
    ------
    ValueError
        If ``d_model`` is not a multiple of ``h`` (``d_k = d_model / h`` must be whole).
    """
    if min(d_model, h, d_ff) < 1:
        raise ValueError("d_model, h and d_ff must all be at least 1")
    if d_model % h:
        raise ValueError(
            f"d_model = {d_model} is not a multiple of h = {h}: each head gets d_k = d_model / h "
            "numbers, so choose h among the divisors of d_model"
        )
    d_k = d_model // h
    rng = np.random.default_rng(seed)

    def dense(*shape: int) -> FloatArray:
        return rng.normal(0.0, 1.0 / np.sqrt(shape[-2]), size=shape)

    ones, zeros = np.ones(d_model), np.zeros(d_model)
    return BlockWeights(
        W_Q=dense(h, d_model, d_k),
        W_K=dense(h, d_model, d_k),
        W_V=dense(h, d_model, d_k),
        W_O=dense(h * d_k, d_model),
        gamma1=ones.copy(),
        beta1=zeros.copy(),
        W_1=dense(d_model, d_ff),
        b_1=np.zeros(d_ff),
        W_2=dense(d_ff, d_model),
        b_2=zeros.copy(),
        gamma2=ones.copy(),
        beta2=zeros.copy(),
    )


def layer_norm(
    x: ArrayLike,
    gamma: ArrayLike | None = None,
    beta: ArrayLike | None = None,
    eps: float = EPS,
) -> FloatArray:
    """Normalise each position's vector to mean 0 and variance 1, then scale and shift.

    Ba et al. (2016): the statistics are taken over the features of *one* example (here the
    last axis, one word's ``d_model`` numbers), not over the batch or the words.

    Parameters
    ----------
    x : array_like, shape (..., d)
    gamma, beta : array_like, shape (d,), optional
        Gain (default 1) and bias (default 0).
    """
    x = np.asarray(x, dtype=float)
    mean: FloatArray = x.mean(axis=-1, keepdims=True)
    var: FloatArray = x.var(axis=-1, keepdims=True)
    out = (x - mean) / np.sqrt(var + eps)
    if gamma is not None:
        out = out * np.asarray(gamma, dtype=float)
    if beta is not None:
        out = out + np.asarray(beta, dtype=float)
    return out


def feed_forward(
    x: ArrayLike, W_1: FloatArray, b_1: FloatArray, W_2: FloatArray, b_2: FloatArray
) -> FloatArray:
    """``max(0, x W_1 + b_1) W_2 + b_2`` for every position separately (§3.3).

    Parameters
    ----------
    x : array_like, shape (..., n, d_model)
    """
    return np.maximum(0.0, np.asarray(x, dtype=float) @ W_1 + b_1) @ W_2 + b_2


def heads_matrix(W: FloatArray) -> FloatArray:
    """Every head's projection side by side: (h, d_model, d_k) -> (d_model, h * d_k)."""
    return np.swapaxes(W, 0, 1).reshape(W.shape[1], -1)


def split_heads(y: FloatArray, h: int) -> FloatArray:
    """(..., n, h * d_k) -> (..., h, n, d_k): one slice per head."""
    return np.swapaxes(y.reshape(*y.shape[:-1], h, -1), -3, -2)


def join_heads(y: FloatArray) -> FloatArray:
    """(..., h, n, d_k) -> (..., n, h * d_k): the heads' outputs concatenated, word by word."""
    moved = np.swapaxes(y, -3, -2)
    return moved.reshape(*moved.shape[:-2], -1)


def _softmax(s: FloatArray) -> FloatArray:
    peak: FloatArray = s.max(axis=-1, keepdims=True)
    e = np.exp(s - peak)
    totals: FloatArray = e.sum(axis=-1, keepdims=True)
    return e / totals


def multi_head_self_attention(
    x: ArrayLike, w: BlockWeights, causal: bool = True
) -> tuple[FloatArray, FloatArray]:
    """Every head's scaled dot-product attention, concatenated and mixed by ``W_O``.

    Parameters
    ----------
    x : array_like, shape (..., n, d_model)
    w : BlockWeights
    causal : bool
        Mask the positions after each one (lesson 4).

    Returns
    -------
    output : numpy.ndarray, shape (..., n, d_model)
    weights : numpy.ndarray, shape (..., h, n, n)
        Row = the position asking, column = the position looked at.
    """
    x = np.asarray(x, dtype=float)
    Q, K, V = (split_heads(x @ heads_matrix(m), w.h) for m in (w.W_Q, w.W_K, w.W_V))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(w.d_k)
    if causal:
        n = x.shape[-2]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    weights = _softmax(scores)
    return join_heads(weights @ V) @ w.W_O, weights


@dataclass(frozen=True, eq=False)
class BlockTrace:
    """Every intermediate of one forward pass (what the lesson shows and the backward pass needs).

    Attributes
    ----------
    inputs : numpy.ndarray, shape (..., n, d_model)
    weights : numpy.ndarray, shape (..., h, n, n)
    attention : numpy.ndarray, shape (..., n, d_model)
        The attention sub-layer's output (after ``W_O``).
    middle : numpy.ndarray, shape (..., n, d_model)
        Between the two sub-layers: ``LayerNorm(x + attention)`` in the original block.
    ffn : numpy.ndarray or None, shape (..., n, d_model)
        The feed-forward sub-layer's output (None without it).
    output : numpy.ndarray, shape (..., n, d_model)
    parts : Parts
    """

    inputs: FloatArray
    weights: FloatArray
    attention: FloatArray
    middle: FloatArray
    ffn: FloatArray | None
    output: FloatArray
    parts: Parts


def _sublayer(
    x: FloatArray,
    sublayer: Callable[[FloatArray], FloatArray],
    gamma: FloatArray,
    beta: FloatArray,
    parts: Parts,
) -> tuple[FloatArray, FloatArray]:
    """One wrapped sub-layer: post-norm ``LN(x + f(x))`` or pre-norm ``x + f(LN(x))``.

    Returns the sub-layer's own output and the wrapped result.
    """

    def norm(v: FloatArray) -> FloatArray:
        return layer_norm(v, gamma, beta) if parts.norm else v

    if parts.norm_first:
        out = sublayer(norm(x))
        return out, (x + out if parts.residual else out)
    out = sublayer(x)
    return out, norm(x + out if parts.residual else out)


def block_forward(x: ArrayLike, w: BlockWeights, parts: Parts = ORIGINAL) -> BlockTrace:
    """Run one block on ``x``.

    Parameters
    ----------
    x : array_like, shape (..., n, d_model)
    w : BlockWeights
    parts : Parts, default all parts, post-norm, causal

    Returns
    -------
    BlockTrace
    """
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[-1] != w.d_model:
        raise ValueError(
            f"x has shape {x.shape}; expected (n, {w.d_model}): one row of d_model = "
            f"{w.d_model} numbers per position"
        )
    found: dict[str, FloatArray] = {}

    def attend(v: FloatArray) -> FloatArray:
        out, found["weights"] = multi_head_self_attention(v, w, causal=parts.causal)
        return out

    attention, middle = _sublayer(x, attend, w.gamma1, w.beta1, parts)
    ffn, output = None, middle
    if parts.feed_forward:

        def ff(v: FloatArray) -> FloatArray:
            return feed_forward(v, w.W_1, w.b_1, w.W_2, w.b_2)

        ffn, output = _sublayer(middle, ff, w.gamma2, w.beta2, parts)
    return BlockTrace(x, found["weights"], attention, middle, ffn, output, parts)
