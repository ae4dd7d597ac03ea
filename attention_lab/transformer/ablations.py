"""Take one part of the block out and measure what changes (the lesson's predict-then-reveal).

* :func:`keeps_itself` — after attention, add and norm, is each word's vector still closest to
  its own input? With the residual add it mostly is; without it the word's own vector is
  replaced by a blend of the words it looked at (He et al. 2016 add the input back so a layer
  only has to learn a change).
* :func:`stacked_size` — the size of the vectors after each of several stacked blocks (random
  weights): layer norm holds it at 1 per number; without it each residual add lets it grow
  (Ba et al. 2016 normalise to keep the scale of the summed inputs steady).
* :func:`compare_training` — the same short training run with a part taken out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_lab.transformer.block import ORIGINAL, Parts, block_forward, init_block
from attention_lab.transformer.tiny_model import RHYME, TinyModel, init_model, loss_and_grads, train

__all__ = [
    "KeepsItself",
    "TrainingComparison",
    "compare_training",
    "keeps_itself",
    "stacked_size",
    "text_loss",
]


def _unit(a: np.ndarray) -> np.ndarray:
    unit: np.ndarray = a / np.linalg.norm(a, axis=-1, keepdims=True)
    return unit


@dataclass(frozen=True)
class KeepsItself:
    """How much of each word's own vector survives the attention sub-layer.

    Attributes
    ----------
    cosine : numpy.ndarray, shape (n,)
        Cosine of each position's vector after the sub-layer with its own input vector.
    closest_is_itself : float
        Share of the positions whose vector is closest (by cosine) to their own input.
    """

    cosine: np.ndarray
    closest_is_itself: float


def keeps_itself(model: TinyModel, text: str, parts: Parts = ORIGINAL) -> KeepsItself:
    """Run the attention sub-layer (with add and norm as ``parts`` says) on ``text``.

    Returns
    -------
    KeepsItself
    """
    x = model._inputs(model.vocab.encode(text))
    after = block_forward(x, model.block, parts).middle
    sims = _unit(after) @ _unit(x).T
    own = np.diag(sims)
    closest = float(np.mean(np.argmax(sims, axis=1) == np.arange(len(x))))
    return KeepsItself(own.copy(), closest)


def stacked_size(
    n_blocks: int = 6,
    parts: Parts = ORIGINAL,
    d_model: int = 32,
    h: int = 4,
    d_ff: int = 64,
    n: int = 8,
    seed: int = 0,
) -> np.ndarray:
    """Root-mean-square size of the numbers after each of ``n_blocks`` stacked random blocks.

    Returns
    -------
    numpy.ndarray, shape (n_blocks + 1,)
        Entry 0 is the input's (random numbers of size about 1).
    """
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(n, d_model))
    sizes = [float(np.sqrt(np.mean(y**2)))]
    for i in range(n_blocks):
        y = block_forward(y, init_block(d_model, h, d_ff, seed=seed + 1 + i), parts).output
        sizes.append(float(np.sqrt(np.mean(y**2))))
    return np.array(sizes)


def text_loss(model: TinyModel, text: str = RHYME, stride: int = 8) -> float:
    """Return the mean next-character loss over windows of ``text`` every ``stride`` characters."""
    ids = model.vocab.encode(text)
    starts = range(0, len(ids) - model.context - 1, stride)
    windows = np.stack([ids[s : s + model.context + 1] for s in starts])
    return loss_and_grads(model, windows)[0]


@dataclass(frozen=True)
class TrainingComparison:
    """Final losses of the same training run with different parts.

    Attributes
    ----------
    labels : tuple of str
    losses : numpy.ndarray, shape (len(labels),)
        The loss on the whole text after training (:func:`text_loss`).
    n_parameters : tuple of int
    steps : int
    """

    labels: tuple[str, ...]
    losses: np.ndarray
    n_parameters: tuple[int, ...]
    steps: int

    def rows(self) -> list[str]:
        """One printed line per variant."""
        return [
            f"{label:<22} loss {loss:.3f}   ({n:,} parameters)"
            for label, loss, n in zip(self.labels, self.losses, self.n_parameters, strict=True)
        ]


def compare_training(
    variants: dict[str, Parts], steps: int = 150, batch: int = 8, seed: int = 0
) -> TrainingComparison:
    """Train one model per variant (same seed, same windows) and measure each one's loss."""
    losses, sizes = [], []
    for parts in variants.values():
        run = train(init_model(seed=seed, parts=parts), steps=steps, batch=batch, seed=seed)
        losses.append(text_loss(run.model))
        sizes.append(run.model.n_parameters() - _unused(run.model))
    return TrainingComparison(tuple(variants), np.array(losses), tuple(sizes), steps)


def _unused(model: TinyModel) -> int:
    """Parameters of parts taken out (they exist in the arrays but never act)."""
    b, p = model.block, model.parts
    unused = 0
    if not p.feed_forward:
        unused += sum(a.size for a in (b.W_1, b.b_1, b.W_2, b.b_2, b.gamma2, b.beta2))
    if not p.norm:
        unused += sum(a.size for a in (b.gamma1, b.beta1, b.gamma2, b.beta2))
    if not p.norm and not p.feed_forward:
        unused -= b.gamma2.size + b.beta2.size
    return int(unused)
