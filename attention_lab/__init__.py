"""Attention Lab: the shared library of an auto-graded Jupyter course on attention mechanisms.

Lessons call these functions instead of defining their own, so every notebook computes the same
numbers the same way. ``attention_lab.examples`` holds the chapters' worked examples.
"""

from attention_lab import examples
from attention_lab.core import (
    additive_scores,
    attention,
    causal_mask,
    dot_product_scores,
    hard_attention,
    positional_encoding,
    softmax,
)

__version__ = "0.1.0"

__all__ = [
    "examples",
    "softmax",
    "dot_product_scores",
    "attention",
    "causal_mask",
    "hard_attention",
    "additive_scores",
    "positional_encoding",
]
