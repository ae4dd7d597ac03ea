"""The lessons' live widgets: the query explorer, composed of its parts, and the
one-slider widgets built from the same parts (every one renders through
:mod:`attention_lab.live_figure`)."""
