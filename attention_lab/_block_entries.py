"""The registry's entries of lesson 07: the Transformer block and generation.

Their wrong computations are in :data:`attention_lab.transformer.mistakes.BLOCK_WRONG`, keyed by
these ids (tests/attention_lab/checks/test_block_checks.py keeps the two in step); they come last
in :mod:`attention_lab.misconceptions`' matching order.
"""

from __future__ import annotations

from attention_lab._entry import Entry

BLOCK_ENTRIES = [
    Entry(
        "norm_wrong_axis",
        "layer-normalised over the positions instead of over each position's own numbers",
        "your answer normalises each feature across the positions, not each position's vector "
        "across its own numbers.",
        "that takes the mean and variance across the words, as if layer norm mixed positions.",
        hint="whose mean and variance does layer norm use: one word's d_model numbers, or one "
        "number across all the words?",
        lesson="lesson 07",
    ),
    Entry(
        "residual_after_norm",
        "added the residual after the norm instead of normalising the sum",
        "your answer normalises the sub-layer's output alone and adds the input afterwards.",
        "that adds the input back after the layer norm, so the sum itself is never normalised.",
        hint="in the original block, what is inside the layer norm: the sub-layer's output "
        "alone, or something added to it first?",
        lesson="lesson 07",
    ),
    Entry(
        "vocab_softmax_wrong_axis",
        "took the softmax of the logits across the positions instead of across the vocabulary",
        "your probabilities add up to 1 down each column (across positions), not along each row "
        "(across the vocabulary).",
        "that shares one token's probability out between the positions instead of between the "
        "tokens.",
        hint="at one position, which numbers must add up to 1: the chances of every possible "
        "next token, or one token's chances at every position?",
        lesson="lesson 07",
    ),
    Entry(
        "mask_left_out_at_generation",
        "thinks the causal mask is only needed in training, not while generating",
        "your weights let earlier positions look at later ones: the causal mask was left out.",
        "that drops the causal mask while the model writes, as if it were needed only in training.",
        hint="the model was trained with every position seeing only the past: what would its "
        "earlier positions see now if nothing hid the later ones?",
        lesson="lesson 07",
    ),
    Entry(
        "temperature_inverted",
        "multiplied the logits by the temperature instead of dividing by it",
        "your probabilities come from the logits multiplied by the temperature, not divided by it.",
        "that multiplies by the temperature, so a high temperature sharpens instead of flattening.",
        hint="the temperature is the inverse of lesson 2's sharpening factor: how does a "
        "larger temperature change the gaps between the logits?",
        lesson="lesson 07",
    ),
    Entry(
        "heads_full_width",
        "gave every head full-size projections (d_k = d_model) when counting parameters",
        "your count gives every head projections as wide as the model, h times too many.",
        "that gives each head d_model numbers instead of d_model / h.",
        hint="how many numbers does each of the h heads get when they share out d_model?",
        lesson="lesson 07",
    ),
]
