"""Writing one token at a time: logits, softmax with a temperature, pick, append, repeat.

The model's last row of logits scores every token of the vocabulary as the next one. Dividing
the logits by a temperature ``T`` before the softmax, ``p = softmax(logits / T)``, is lesson 2's
sharpening with ``beta = 1 / T``: below 1 the largest logit takes more of the probability (as
``T -> 0``, all of it: greedy decoding, the argmax), above 1 the probabilities even out.
The chosen token is appended and the model runs again on the longer text: each new token depends
on the one chosen before it, so generation cannot be done in parallel, although training is
(every position's prediction at once, the causal mask hiding the answers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._types import FloatArray
from attention_lab.transformer.block import Parts

if TYPE_CHECKING:
    from attention_lab.transformer.tiny_model import TinyModel

__all__ = [
    "Generation",
    "GenerationStep",
    "generate",
    "next_token",
    "prefix_change",
    "softmax_with_temperature",
]


def softmax_with_temperature(logits: ArrayLike, temperature: float = 1.0) -> FloatArray:
    """``softmax(logits / temperature)`` along the last axis (the vocabulary).

    Parameters
    ----------
    logits : array_like, shape (..., V)
    temperature : float > 0

    Returns
    -------
    numpy.ndarray, shape (..., V)
        Each row sums to 1.
    """
    t = float(temperature)
    if not t > 0 or not np.isfinite(t):
        raise ValueError(
            f"temperature must be a positive number, got {temperature!r}: use a small one (0.1) "
            "for nearly greedy picks, 1 for the model's own probabilities"
        )
    z = np.asarray(logits, dtype=float) / t
    peak: FloatArray = z.max(axis=-1, keepdims=True)
    e = np.exp(z - peak)
    totals: FloatArray = e.sum(axis=-1, keepdims=True)
    return e / totals


def next_token(
    logits: ArrayLike,
    temperature: float = 1.0,
    rng: np.random.Generator | None = None,
    greedy: bool = False,
) -> int:
    """Pick the next token from one row of logits (shape (V,)): the argmax, or a sample."""
    logits = np.asarray(logits, dtype=float)
    if logits.ndim != 1:
        raise ValueError(
            f"next_token takes one row of logits, shape (V,), got {logits.shape}: pass the last "
            "row, logits[-1]"
        )
    if greedy:
        return int(np.argmax(logits))
    p = softmax_with_temperature(logits, temperature)
    return int((rng or np.random.default_rng()).choice(len(p), p=p))


@dataclass(frozen=True)
class GenerationStep:
    """One turn of the loop.

    Attributes
    ----------
    context : str
        What the model read (at most its context length).
    probabilities : numpy.ndarray, shape (V,)
        The next token's probabilities at the run's temperature.
    chosen : str
    """

    context: str
    probabilities: FloatArray
    chosen: str


@dataclass(frozen=True)
class Generation:
    """A prompt and what the model wrote after it.

    Attributes
    ----------
    prompt : str
    text : str
        The prompt followed by the new characters.
    steps : tuple of GenerationStep
    """

    prompt: str
    text: str
    steps: tuple[GenerationStep, ...]

    @property
    def new(self) -> str:
        """Only the characters the model wrote."""
        return self.text[len(self.prompt) :]


def generate(
    model: TinyModel,
    prompt: str,
    n_new: int,
    temperature: float = 1.0,
    seed: int = 0,
    greedy: bool = False,
    parts: Parts | None = None,
) -> Generation:
    """Write ``n_new`` characters after ``prompt``, one at a time.

    Parameters
    ----------
    model : TinyModel
    prompt : str
        At least one character, all in the model's vocabulary.
    n_new : int
    temperature : float > 0
    seed : int
        The random picks (the same seed writes the same text).
    greedy : bool
        Always take the most likely character.
    parts : Parts, optional
        Run the block with other parts (``Parts(causal=False)``: the mask left out).
    """
    if not prompt:
        raise ValueError("the prompt needs at least one character to start from")
    ids = list(model.vocab.encode(prompt))
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(int(n_new)):
        window = ids[-model.context :]
        last = model.logits(window, parts)[-1]
        chosen = next_token(last, temperature, rng, greedy)
        steps.append(
            GenerationStep(
                model.vocab.decode(window),
                softmax_with_temperature(last, temperature),
                model.vocab.chars[chosen],
            )
        )
        ids.append(chosen)
    return Generation(prompt, model.vocab.decode(ids), tuple(steps))


def prefix_change(model: TinyModel, text: str, parts: Parts | None = None) -> float:
    """How much appending one character changes the logits of the positions before it.

    Runs the model on ``text[:-1]`` and on ``text`` and returns the largest change in any
    earlier position's logits. With the causal mask it is 0 (up to rounding): what a position
    predicted never depends on what came after it, so a generator can keep it; without the mask
    (``parts=Parts(causal=False)``) every earlier prediction changes.
    """
    if len(text) < 2:
        raise ValueError("give at least two characters: the text and one appended character")
    ids = model.vocab.encode(text)
    short = model.logits(ids[:-1], parts)
    longer = model.logits(ids, parts)[:-1]
    return float(np.max(np.abs(longer - short)))
