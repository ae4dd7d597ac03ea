"""Lesson 7: from one attention layer to a tiny Transformer that writes, in plain numpy.

:mod:`.block` is one Transformer block (Vaswani et al. 2017, §3.1): multi-head attention, a
residual add, layer norm, a two-layer feed-forward network, add and norm again, with each part
switchable so a lesson can take it out. :mod:`.gradients` holds its hand-written backward pass,
:mod:`.tiny_model` a character-level model built from one block and trained with Adam,
:mod:`.generation` the loop that writes one token at a time, :mod:`.parameters` the count by
hand, :mod:`.ablations` the measurements with a part taken out, and :mod:`.mistakes` the wrong
computations behind lesson 7's misconceptions. Numerics only (no plotting): the lesson's figures
and widgets are in :mod:`attention_lab.explorer.generation_figures` and
:mod:`attention_lab.explorer.generation_widgets`, reached through :mod:`attention_lab.demos`.

The names a lesson uses are importable from here.
"""

from attention_lab.transformer.ablations import (
    compare_training,
    keeps_itself,
    stacked_size,
    text_loss,
)
from attention_lab.transformer.block import ORIGINAL, Parts, block_forward, init_block, layer_norm
from attention_lab.transformer.generation import generate, prefix_change, softmax_with_temperature
from attention_lab.transformer.parameters import BASE_MODEL, count_parameters
from attention_lab.transformer.tiny_model import RHYME, init_model, train

__all__ = [
    "BASE_MODEL",
    "ORIGINAL",
    "RHYME",
    "Parts",
    "block_forward",
    "compare_training",
    "count_parameters",
    "generate",
    "init_block",
    "init_model",
    "keeps_itself",
    "layer_norm",
    "prefix_change",
    "softmax_with_temperature",
    "stacked_size",
    "text_loss",
    "train",
]
