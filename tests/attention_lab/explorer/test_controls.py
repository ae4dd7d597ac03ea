"""The explorer's controls (attention_lab.explorer.controls): showing a query on the sliders."""

from __future__ import annotations

import numpy as np

from attention_lab.explorer.controls import ExplorerControls


def _controls() -> ExplorerControls:
    return ExplorerControls(["a", "b"], np.array([1.0, 0.5]), 1, True, 3.0, None)


def test_a_query_shown_on_the_sliders_is_clipped_to_their_range():
    controls = _controls()
    controls.show_query(np.array([-0.25, 7.0]))
    assert [s.value for s in controls.query_sliders] == [-0.25, 3.0]


def test_observers_can_tell_a_shown_query_from_the_students_move():
    controls = _controls()
    seen = []
    controls.query_sliders[0].observe(lambda _c: seen.append(controls.showing_query), "value")
    controls.show_query(np.array([2.0, 0.5]))
    controls.query_sliders[0].value = -1.0  # the student
    assert seen == [True, False] and not controls.showing_query
