"""The lessons' live widgets: the query explorer and the one-slider widgets.

The query explorer is composed of its parts, and the one-slider widgets are built from the same
parts (every one renders through :mod:`attention_lab.live_figure`).

Lessons reach the widgets through :mod:`attention_lab.demos`. Within the library this package
may import the numerics, :mod:`attention_lab.plots` and :mod:`attention_lab.experiments`, never
:mod:`attention_lab.checks` or :mod:`attention_lab.demos` (tests/attention_lab/test_layers.py).
"""
