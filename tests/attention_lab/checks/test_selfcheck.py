"""attention_lab.checks.selfcheck: the instant checks under the lessons' your-turn exercises."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import checks
from attention_lab.checks.selfcheck import self_check

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
        == f"not yet: s still has a blank ({blank}) in it: replace it with your answer."
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


def _run_in_a_kernel(*sources: str) -> list[dict]:
    """Run cells in a real IPython kernel, as a student does one after another; their outputs."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True).execute()
    return [cell.outputs for cell in nb.cells]


_LESSON_01 = (
    "import numpy as np\n"
    "from attention_lab import checks, softmax\n"
    "from attention_lab.checks.selfcheck import self_check\n"
    "H = np.array([[3, 1], [1, 1], [0, 2]]); s = np.array([1, 2])"
)
_CHECK_C = 'self_check(checks.check_output, c, query=s, keys=H, values=H, scale=False, name="c")'


@pytest.mark.slow
def test_a_check_judges_only_what_the_last_run_of_the_exercise_produced():
    """Lesson 01, your turn 2: a hard pick first, then `c = a * H` raises; the check must not
    describe the old pick (the issue's report), nor say anything of a value no longer there.
    """
    outputs = _run_in_a_kernel(
        _LESSON_01,
        "a = softmax(H @ s)\nc = H[np.argmax(a)]",  # an earlier try: the hard-attention pick
        _CHECK_C,
        "a = softmax(H @ s)\nc = a * H",  # the new try raises: shapes (3,) and (3, 2)
        _CHECK_C,
        "c = a @ H",  # fixed
        _CHECK_C,
    )
    first, after_error, fixed = ("".join(o.get("text", "") for o in outputs[i]) for i in (2, 4, 6))
    assert "[hard_attention]" in first
    assert "hard_attention" not in after_error
    assert after_error.startswith(
        "not yet: the last run of the cell that sets c stopped with ValueError"
    )
    assert fixed.strip() == "✓ c: right."
    # every check printed its line and left no empty Out[n] prompt behind
    assert all(o["output_type"] == "stream" for i in (2, 4, 6) for o in outputs[i])


def test_a_lesson_before_the_entrys_own_names_it_without_the_later_lesson(capsys):
    """Issue 38: lesson 1's checks named lesson-2 entries with "(See lesson 02.)" and its hint."""
    s, H = np.array([1, 2]), np.array([[3, 1], [1, 1], [0, 2]])
    scaled = H @ s / np.sqrt(2)  # divided by sqrt(d_k) where the question says not to
    late = self_check(checks.check_scores, scaled, s, H, scale=False, name="scores", lesson=1)
    assert late.misconception == "scaled_when_not_asked"
    assert "lesson 02" not in late.message and "Hint" not in late.message
    assert late.message.startswith("not yet: [scaled_when_not_asked] scores: your answer was")
    taught = self_check(checks.check_scores, scaled, s, H, scale=False, name="scores", lesson=2)
    assert "(See lesson 02.)" in taught.message and "Hint" in taught.message
    capsys.readouterr()
