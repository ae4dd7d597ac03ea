"""attention_lab.selfcheck: the instant checks under the lessons' your-turn exercises."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import checks
from attention_lab.selfcheck import self_check

K = [[3, 1], [1, 1], [0, 2]]


@pytest.mark.parametrize(
    ("answer", "blank"),
    [([5, 3, None], "None"), ((5, None, 4), "None"), ([5, 3, ...], "..."), ([[1, None]], "None")],
)
def test_a_half_filled_answer_is_named_as_a_blank_not_as_nan(answer, blank, capsys):
    result = self_check(checks.check_scores, answer, query=[1, 2], keys=K, scale=False, name="s")
    printed = capsys.readouterr().out
    assert not result.passed
    assert (
        printed.strip()
        == f"not yet: s still has a blank ({blank}) in it: replace it with your number."
    )
    assert "nan" not in printed


def test_right_answers_pass_and_misconceptions_are_named(capsys):
    assert self_check(checks.check_scores, [5, 3, 4], [1, 2], K, False, name="s").passed
    assert capsys.readouterr().out.strip() == "✓ s: right."
    scaled = list(np.array([5, 3, 4]) / np.sqrt(2))
    result = self_check(checks.check_scores, scaled, [1, 2], K, False, name="s")
    assert result.misconception == "scaled_when_not_asked"
    printed = capsys.readouterr().out
    assert printed.startswith("not yet: [scaled_when_not_asked]")
    assert "5" not in printed.replace("[scaled_when_not_asked]", "")  # no expected value shown


def test_none_and_errors_never_raise(capsys):
    assert not self_check(checks.check_output, None, [1, 2], K, K, False, name="c").passed
    assert "c is still None" in capsys.readouterr().out
    result = self_check(checks.check_scores, [1, 2, 3], [1, 2], [[1, "x"]] * 3, False, name="s")
    assert not result.passed and "not yet: checking s raised ValueError" in capsys.readouterr().out
