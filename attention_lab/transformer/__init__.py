"""Lesson 7: from one attention layer to a tiny Transformer that writes, in plain numpy.

:mod:`.block` is one Transformer block (Vaswani et al. 2017, §3.1): multi-head attention, a
residual add, layer norm, a two-layer feed-forward network, add and norm again, with each part
switchable so a lesson can take it out. :mod:`.gradients` holds its hand-written backward pass,
:mod:`.tiny_model` a character-level model built from one block and trained with Adam, and
:mod:`.generate` the loop that writes one token at a time.
"""
