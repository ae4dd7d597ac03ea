"""Lesson 7's steps done wrong: the computations behind the block's and generation's mistakes.

Each misconception of lesson 7 in :mod:`attention_lab.misconceptions` (layer norm over the wrong
axis, the residual added after the norm, a softmax over the wrong axis of the logits, the mask
left out at generation, the temperature multiplied instead of divided, full-width heads) has
here the computation that reproduces it: :data:`BLOCK_WRONG` maps its id to
:class:`WrongBlock` s, each for one answer kind. The checks in
:mod:`attention_lab.checks.block` compare a wrong answer with these.

Answer kinds and their inputs:

* ``"layer_norm"``: ``x`` (n, d) -> (n, d);
* ``"add_norm"``: ``x`` and the sub-layer's output ``f`` (n, d) -> (n, d);
* ``"probabilities"``: ``logits`` (n, V) and a temperature -> (n, V);
* ``"generation_weights"``: ``scores`` (n, n) -> weights (n, n);
* ``"parameters"``: ``d_model``, ``h``, ``d_ff`` -> a :class:`ParameterCount`.

Like :mod:`attention_lab._steps` it never raises on overflow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention_lab._steps import softmax
from attention_lab._types import BoolArray, FloatArray
from attention_lab.transformer.block import layer_norm
from attention_lab.transformer.parameters import ParameterCount, count_parameters

__all__ = ["BLOCK_KINDS", "BLOCK_WRONG", "WrongBlock", "block_entries_for"]

BLOCK_KINDS = ("layer_norm", "add_norm", "probabilities", "generation_weights", "parameters")


@dataclass(frozen=True)
class WrongBlock:
    """One wrong computation for answers of one kind.

    Attributes
    ----------
    kind : str
        One of :data:`BLOCK_KINDS`.
    compute : callable
        Takes the kind's inputs (see the module docstring), returns the wrong answer, or None
        when the mistake cannot happen for these inputs.
    """

    kind: str
    compute: Callable[..., object]


def _norm_over_positions(x: FloatArray) -> FloatArray | None:
    return None if x.shape[0] < 2 else np.swapaxes(layer_norm(np.swapaxes(x, 0, 1)), 0, 1)


def _add_norm_over_positions(x: FloatArray, f: FloatArray) -> FloatArray | None:
    return _norm_over_positions(x + f)


def _residual_after_norm(x: FloatArray, f: FloatArray) -> FloatArray:
    return layer_norm(f) + x


def _vocab_softmax_over_positions(logits: FloatArray, temperature: float) -> FloatArray | None:
    return None if logits.shape[0] < 2 else softmax(logits / temperature, axis=0)


def _temperature_times(logits: FloatArray, temperature: float) -> FloatArray | None:
    return None if temperature == 1 else softmax(logits * temperature, axis=-1)


def _no_mask(scores: FloatArray) -> FloatArray:
    return softmax(scores, axis=-1)


def _causal(n: int) -> BoolArray:
    return np.tril(np.ones((n, n), dtype=bool))


def _mask_as_zero(scores: FloatArray) -> FloatArray:
    return softmax(np.where(_causal(len(scores)), scores, 0.0), axis=-1)


def _mask_after_softmax(scores: FloatArray) -> FloatArray:
    return np.where(_causal(len(scores)), softmax(scores, axis=-1), 0.0)


def _full_width_heads(d_model: int, h: int, d_ff: int) -> ParameterCount | None:
    if h == 1:
        return None
    right = count_parameters(d_model, h, d_ff)
    # every head with d_k = d_model: W_Q, W_K, W_V h times as large, W_O (h d_model x d_model)
    return ParameterCount(
        d_model, h, d_ff, d_model, 4 * h * d_model * d_model, right.feed_forward, right.norms
    )


#: id -> its wrong computations (entries of the registry: lesson 07's, and two of lesson 04's).
BLOCK_WRONG: dict[str, tuple[WrongBlock, ...]] = {
    "norm_wrong_axis": (
        WrongBlock("layer_norm", _norm_over_positions),
        WrongBlock("add_norm", _add_norm_over_positions),
    ),
    "residual_after_norm": (WrongBlock("add_norm", _residual_after_norm),),
    "vocab_softmax_wrong_axis": (WrongBlock("probabilities", _vocab_softmax_over_positions),),
    "mask_left_out_at_generation": (WrongBlock("generation_weights", _no_mask),),
    "temperature_inverted": (WrongBlock("probabilities", _temperature_times),),
    "heads_full_width": (WrongBlock("parameters", _full_width_heads),),
    # lesson 4's masking mistakes, made while generating
    "mask_zero_not_inf": (WrongBlock("generation_weights", _mask_as_zero),),
    "mask_after_softmax": (WrongBlock("generation_weights", _mask_after_softmax),),
}


def block_entries_for(kind: str) -> list[tuple[str, WrongBlock]]:
    """(id, wrong computation) for every misconception that changes an answer of ``kind``."""
    if kind not in BLOCK_KINDS:
        raise ValueError(f"kind must be one of {BLOCK_KINDS}, got {kind!r}")
    return [(mid, w) for mid, ws in BLOCK_WRONG.items() for w in ws if w.kind == kind]
