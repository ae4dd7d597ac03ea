"""The explorer's opening on a chapter's worked example (attention_lab/explorer/opening.py)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import examples
from attention_lab.explorer.opening import example_opening


def test_the_title_says_what_the_chapter_does_with_its_own_tokens():
    tiffin, isro = example_opening(examples.TIFFIN), example_opening(examples.ISRO)
    assert "does not scale" in tiffin.title and "scales the scores" in isro.title
    assert examples.TIFFIN.chapter in tiffin.title
    assert all(f"“{token}”" in tiffin.title for token in examples.TIFFIN.tokens)
    assert (tiffin.scale, tiffin.query_index) == (False, examples.TIFFIN.query_index)


def test_a_start_query_replaces_the_asking_row_only_and_never_the_chapters():
    chapter = np.array(examples.TIFFIN.Q, dtype=float)
    opening = example_opening(examples.TIFFIN, (2, 1))
    row = examples.TIFFIN.query_index
    np.testing.assert_array_equal(opening.Q[row], [2.0, 1.0])
    others = np.arange(len(chapter)) != row
    np.testing.assert_array_equal(opening.Q[others], chapter[others])
    np.testing.assert_array_equal(examples.TIFFIN.Q, chapter)  # the example is not changed


@pytest.mark.parametrize("bad", [(1,), (1, 2, 3), (np.nan, 1), "ab"])
def test_a_start_query_that_is_not_two_finite_numbers_says_what_to_pass(bad):
    with pytest.raises(ValueError, match=r"start_query must be 2 finite numbers, e\.g\. \(2, 1\)"):
        example_opening(examples.ISRO, bad)
