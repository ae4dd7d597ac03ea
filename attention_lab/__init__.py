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

# The plots and the live explorer import matplotlib and ipywidgets, slow imports: they load on
# first use, so `import attention_lab` stays quick for grading kernels.
_LAZY = {
    "attention_heatmap": "attention_lab.plots",
    "weights_bar_chart": "attention_lab.plots",
    "vector_plot": "attention_lab.plots",
    "QueryExplorer": "attention_lab.explorer.query_explorer",
}
__all__ += list(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'attention_lab' has no attribute {name!r}")
