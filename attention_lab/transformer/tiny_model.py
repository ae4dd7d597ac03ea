"""A character-level language model made of one Transformer block, trained in plain numpy.

The model reads up to ``context`` characters and, at every position, gives a score (a *logit*)
to every character of its vocabulary for *the next* character:

``ids -> embedding + positional encoding -> one block (causal) -> x W_U + b_U -> logits``.

Training compares each position's logits with the character that really came next (the mean
cross-entropy, ``-log p(right character)``) for every position of every window at once: the
causal mask keeps each position from seeing the character it must predict, which is what makes
this parallel training honest (Vaswani et al. 2017, §3.2.3). Gradients come from
:mod:`attention_lab.transformer.gradients`; the update is Adam (Kingma & Ba 2015).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray, IntArray
from attention_lab.core import positional_encoding
from attention_lab.transformer.block import (
    ORIGINAL,
    BlockTrace,
    BlockWeights,
    Parts,
    block_forward,
    init_block,
)
from attention_lab.transformer.gradients import block_vjp

__all__ = [
    "RHYME",
    "TinyModel",
    "TrainingRun",
    "Vocabulary",
    "init_model",
    "loss_and_grads",
    "train",
]

#: "The Star" by Jane Taylor (1806, public domain), its first two verses in lower case: the
#: text the lesson's model learns to write.
RHYME = (
    "twinkle, twinkle, little star,\n"
    "how i wonder what you are!\n"
    "up above the world so high,\n"
    "like a diamond in the sky.\n"
    "twinkle, twinkle, little star,\n"
    "how i wonder what you are!\n"
    "when the blazing sun is gone,\n"
    "when he nothing shines upon,\n"
    "then you show your little light,\n"
    "twinkle, twinkle, all the night.\n"
    "twinkle, twinkle, little star,\n"
    "how i wonder what you are!\n"
)


@dataclass(frozen=True)
class Vocabulary:
    """The characters a model knows, in a fixed order (sorted), and the ids they get.

    Attributes
    ----------
    chars : str
        Every character once; character ``chars[i]`` has id ``i``.
    """

    chars: str

    @classmethod
    def of(cls, text: str) -> Vocabulary:
        """Make the sorted set of ``text``'s characters."""
        if not isinstance(text, str) or len(set(text)) < 2:
            raise ValueError(
                "the training text must be a str with at least two different characters"
            )
        return cls("".join(sorted(set(text))))

    @property
    def size(self) -> int:
        """How many characters."""
        return len(self.chars)

    def encode(self, text: str) -> IntArray:
        """Ids of ``text``'s characters, shape (len(text),); a clear error for an unknown one."""
        index = {c: i for i, c in enumerate(self.chars)}
        unknown = sorted(set(text) - set(index))
        if unknown:
            raise ValueError(
                f"the model never saw the character(s) {unknown!r}: use only {self.chars!r}"
            )
        return np.array([index[c] for c in text], dtype=int)

    def decode(self, ids: ArrayLike) -> str:
        """Return the characters of ``ids``."""
        return "".join(self.chars[int(i)] for i in np.asarray(ids).ravel())


@dataclass(frozen=True, eq=False)
class TinyModel:
    """One block between an embedding and an unembedding.

    Attributes
    ----------
    vocab : Vocabulary
    embedding : numpy.ndarray, shape (V, d_model)
        Row ``i``: the vector of character ``i``.
    block : BlockWeights
    W_U : numpy.ndarray, shape (d_model, V)
    b_U : numpy.ndarray, shape (V,)
    context : int
        The most characters the model reads at once.
    parts : Parts
        Which parts its block has (a lesson trains models with one taken out).
    """

    vocab: Vocabulary
    embedding: FloatArray
    block: BlockWeights
    W_U: FloatArray
    b_U: FloatArray
    context: int
    parts: Parts = ORIGINAL

    def arrays(self) -> list[FloatArray]:
        """Every learned array (what training updates, in place)."""
        return [self.embedding, self.W_U, self.b_U, *self.block.arrays().values()]

    def n_parameters(self) -> int:
        """How many numbers the model learns."""
        return sum(int(a.size) for a in self.arrays())

    def _inputs(self, ids: ArrayLike) -> FloatArray:
        ids = np.asarray(ids, dtype=int)
        n = ids.shape[-1]
        if not 1 <= n <= self.context:
            raise ValueError(
                f"the model reads 1 to {self.context} characters at once, got {n}: pass the last "
                f"{self.context} (ids[-{self.context}:])"
            )
        picked: FloatArray = self.embedding[ids]
        return picked + positional_encoding(n, self.embedding.shape[1])

    def forward(self, ids: ArrayLike, parts: Parts | None = None) -> tuple[FloatArray, BlockTrace]:
        """Run the model; ``parts`` overrides the block's (e.g. ``causal=False``).

        Parameters
        ----------
        ids : array_like of int, shape (..., n), n <= context

        Returns
        -------
        logits : numpy.ndarray, shape (..., n, V)
            Row ``i``: the scores for the character after position ``i``.
        trace : BlockTrace
        """
        trace = block_forward(self._inputs(ids), self.block, parts or self.parts)
        return trace.output @ self.W_U + self.b_U, trace

    def logits(self, ids: ArrayLike, parts: Parts | None = None) -> FloatArray:
        """Return the next-character scores at every position, shape (..., n, V)."""
        return self.forward(ids, parts)[0]


def init_model(
    text: str = RHYME,
    d_model: int = 32,
    h: int = 4,
    d_ff: int = 64,
    context: int = 32,
    seed: int = 0,
    parts: Parts = ORIGINAL,
) -> TinyModel:
    """Make a model with random weights (it writes noise) for the characters of ``text``."""
    vocab = Vocabulary.of(text)
    rng = np.random.default_rng(seed)
    return TinyModel(
        vocab=vocab,
        embedding=rng.normal(0.0, 1.0, size=(vocab.size, d_model)),
        block=init_block(d_model, h, d_ff, seed=seed + 1),
        W_U=rng.normal(0.0, 1.0 / np.sqrt(d_model), size=(d_model, vocab.size)),
        b_U=np.zeros(vocab.size),
        context=int(context),
        parts=parts,
    )


def _cross_entropy(logits: FloatArray, targets: IntArray) -> tuple[float, FloatArray]:
    """Mean ``-log softmax(logits)[target]`` and its gradient with respect to the logits."""
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    picked = np.take_along_axis(log_p, targets[..., None], axis=-1)
    grad = np.exp(log_p)
    np.put_along_axis(
        grad, targets[..., None], np.take_along_axis(grad, targets[..., None], -1) - 1, -1
    )
    return float(-picked.mean()), grad / targets.size


def loss_and_grads(model: TinyModel, windows: ArrayLike) -> tuple[float, list[FloatArray]]:
    """Return the mean next-character loss of a batch and its gradient for every array of the model.

    Parameters
    ----------
    model : TinyModel
    windows : array_like of int, shape (B, n + 1)
        Each row: ``n`` characters read and, shifted by one, the ``n`` characters to predict.

    Returns
    -------
    loss : float
    grads : list of numpy.ndarray
        In the order of ``model.arrays()``.
    """
    windows = np.asarray(windows, dtype=int)
    inputs, targets = windows[:, :-1], windows[:, 1:]
    x = model._inputs(inputs)
    out, _, back = block_vjp(x, model.block, model.parts)
    loss, d_logits = _cross_entropy(out @ model.W_U + model.b_U, targets)
    d_W_U = out.reshape(-1, out.shape[-1]).T @ d_logits.reshape(-1, d_logits.shape[-1])
    d_out = d_logits @ model.W_U.T
    d_x, d_block = back(d_out)
    d_embedding = np.zeros_like(model.embedding)
    np.add.at(d_embedding, inputs, d_x)
    return loss, [d_embedding, d_W_U, d_logits.sum(axis=(0, 1)), *d_block.arrays().values()]


@dataclass(frozen=True, eq=False)
class TrainingRun:
    """What training recorded.

    Attributes
    ----------
    model : TinyModel
        The trained model (the one passed to :func:`train` is left as it was).
    losses : numpy.ndarray, shape (steps,)
        The batch loss at every step.
    seed : int
    """

    model: TinyModel
    losses: FloatArray
    seed: int


def _windows(ids: IntArray, length: int, batch: int, rng: np.random.Generator) -> IntArray:
    starts = rng.integers(0, len(ids) - length, size=batch)
    return np.stack([ids[s : s + length + 1] for s in starts])


def train(
    model: TinyModel,
    text: str = RHYME,
    steps: int = 300,
    batch: int = 16,
    learning_rate: float = 0.01,
    seed: int = 0,
    on_step: Callable[[int, float], None] | None = None,
) -> TrainingRun:
    """Train a copy of ``model`` on random windows of ``text`` with Adam.

    Parameters
    ----------
    model : TinyModel
    text : str
        At least ``model.context + 1`` characters, all in the model's vocabulary.
    steps, batch : int
    learning_rate : float
    seed : int
        Picks the windows (with it the run is the same every time).
    on_step : callable (step, loss), optional
        Called after every step (a live loss curve).

    Returns
    -------
    TrainingRun
    """
    ids = model.vocab.encode(text)
    if len(ids) <= model.context:
        raise ValueError(f"the text needs more than {model.context} characters to train on")
    trained = copy.deepcopy(model)
    params = trained.arrays()
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    b1, b2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(seed)
    losses = np.empty(steps)
    for t in range(1, steps + 1):
        loss, grads = loss_and_grads(trained, _windows(ids, trained.context, batch, rng))
        for p, g, m_i, v_i in zip(params, grads, m, v, strict=True):
            m_i *= b1
            m_i += (1 - b1) * g
            v_i *= b2
            v_i += (1 - b2) * g * g
            p -= learning_rate * (m_i / (1 - b1**t)) / (np.sqrt(v_i / (1 - b2**t)) + eps)
        losses[t - 1] = loss
        if on_step is not None:
            on_step(t, loss)
    return TrainingRun(trained, losses, seed)
