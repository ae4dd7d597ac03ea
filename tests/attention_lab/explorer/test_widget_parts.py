"""Parts every live widget shares (attention_lab.explorer.widget_parts): when to redraw."""

from __future__ import annotations

import pytest

from attention_lab.explorer.widget_parts import Redraws


class _Counter:
    """A redraw that counts itself and, as the explorer's does, clears what was pending."""

    def __init__(self) -> None:
        self.count = 0
        self.redraws = Redraws(self)

    def __call__(self) -> None:
        self.redraws.pending = False
        self.count += 1


def test_a_change_outside_a_batch_redraws_at_once():
    drawn = _Counter()
    drawn.redraws.request()
    drawn.redraws.request()
    assert drawn.count == 2 and not drawn.redraws.pending


def test_a_batch_of_changes_redraws_once_at_its_end_and_nested_batches_once_in_all():
    drawn = _Counter()
    with drawn.redraws.batch():
        drawn.redraws.request()
        with drawn.redraws.batch():
            drawn.redraws.request()
            drawn.redraws.request()
        assert drawn.count == 0 and drawn.redraws.pending  # the inner end is not the end
        drawn.redraws.request()
    assert drawn.count == 1 and not drawn.redraws.pending


def test_a_batch_that_changed_nothing_or_already_redrew_does_not_redraw_again():
    drawn = _Counter()
    with drawn.redraws.batch():
        pass
    assert drawn.count == 0
    with drawn.redraws.batch():
        drawn.redraws.request()
        drawn()  # a redraw asked for directly inside the batch (the explorer's refresh())
    assert drawn.count == 1


def test_a_batch_that_fails_still_redraws_what_changed_before():
    drawn = _Counter()
    with pytest.raises(ValueError), drawn.redraws.batch():
        drawn.redraws.request()
        raise ValueError("a bad value half way")
    assert drawn.count == 1
