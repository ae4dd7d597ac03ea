"""Attention Lab: the shared library of an auto-graded Jupyter course on attention mechanisms.

Lessons call these functions instead of defining their own, so every notebook computes the same
numbers the same way. ``attention_lab.examples`` holds the chapters' worked examples.
"""

__version__ = "0.1.0"

# The plots and the live explorer import matplotlib and ipywidgets, slow imports: they load on
# first use, so `import attention_lab` stays quick for grading kernels.
# Everything is imported on first use (PEP 562), numpy with it: a Jupyter server loading the
# attention_lab.nodelay extension imports this package and never needs numpy (on a hub, every
# student's server would pay for it at start).
_SUBMODULES = ("examples", "core")  # attributes, as when this file imported them
_LAZY = {
    "softmax": "attention_lab.core",
    "dot_product_scores": "attention_lab.core",
    "attention": "attention_lab.core",
    "causal_mask": "attention_lab.core",
    "hard_attention": "attention_lab.core",
    "additive_scores": "attention_lab.core",
    "positional_encoding": "attention_lab.core",
    "attention_heatmap": "attention_lab.plots",
    "weights_bar_chart": "attention_lab.plots",
    "vector_plot": "attention_lab.plots",
    "QueryExplorer": "attention_lab.explorer.query_explorer",
}
__all__ = ["examples", *_LAZY]


def __getattr__(name: str) -> object:
    if name in _LAZY or name in _SUBMODULES:
        import importlib

        if name in _SUBMODULES:
            value = importlib.import_module(f"attention_lab.{name}")
        else:
            value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'attention_lab' has no attribute {name!r}")
