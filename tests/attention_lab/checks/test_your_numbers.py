"""attention_lab.checks.your_numbers: a lesson exercise's query, drawn for the student (issue 41)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from attention_lab import checks
from attention_lab.checks.selfcheck import self_check
from attention_lab.checks.your_numbers import HIGH, LOW, your_query, your_rows
from attention_lab.examples import ISRO
from attention_lab.variants import SEED_ENV, StudentSeed

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"
KEY = b"a course key for these tests.."
H = np.array([[3, 1], [1, 1], [0, 2]])  # lesson 1's encoder states


def _as(monkeypatch, student: str) -> None:
    monkeypatch.setenv(SEED_ENV, StudentSeed.from_key(KEY, student).to_text())


def _draw(**kw) -> np.ndarray:
    return your_query("01_the_bottleneck", "s2", H, scale=False, practice=[2, -1], **kw)


def test_on_a_laptop_everyone_works_on_the_lessons_numbers(monkeypatch, capsys):
    monkeypatch.delenv(SEED_ENV, raising=False)
    assert _draw().tolist() == [2, -1]
    assert "s2 = [2, -1]  (the lesson's numbers" in capsys.readouterr().out


def test_on_the_hub_each_student_draws_her_own_small_untied_query(monkeypatch, capsys):
    drawn = {}
    for i in range(12):
        _as(monkeypatch, f"student{i}")
        drawn[i] = _draw()
        assert np.array_equal(_draw(show=False), drawn[i])  # the same login, the same numbers
        scores = H @ drawn[i]
        assert drawn[i].any() and LOW <= drawn[i].min() and drawn[i].max() <= HIGH
        assert len(set(scores.tolist())) == 3  # a tie would leave "which dominates?" open
        assert checks.tells_apart(drawn[i], H, H, scale=False)
    assert len({tuple(q) for q in drawn.values()}) >= 6
    assert "your own numbers, drawn for student11" in capsys.readouterr().out


def test_her_self_check_recomputes_so_the_worked_answer_is_not_hers(monkeypatch, capsys):
    _as(monkeypatch, "student1")
    q = your_query("03_worked_examples", "q_new", ISRO.K, ISRO.V, scale=True, practice=[3, 1])
    assert q.tolist() != [3, 1]
    copied = ISRO.K @ np.array([3, 1]) / np.sqrt(2)  # the laptop's numbers, worked
    own = ISRO.K @ q / np.sqrt(2)
    assert not self_check(checks.check_scores, copied, q, ISRO.K, True, name="scores_new").passed
    assert self_check(checks.check_scores, own, q, ISRO.K, True, name="scores_new").passed


DRAWS = {  # lesson -> the query's name and its printed numbers, as the lesson's text states them
    "01_the_bottleneck": ("s2", "(2, -1)"),
    "02_query_key_value": ("q_new", "(-1, 2)"),
    "03_worked_examples": ("q_new", "[3, 1]"),
}


@pytest.mark.parametrize("lesson", DRAWS)
def test_the_lessons_draw_the_exercises_query_and_say_so(lesson):
    name, printed = DRAWS[lesson]
    cells = nbformat.read(NOTEBOOKS / f"{lesson}.ipynb", as_version=4).cells
    at = next(i for i, c in enumerate(cells) if f"{name} = your_query(" in c.source)
    draw = " ".join(cells[at].source.split())
    assert f'"{lesson}", "{name}"' in draw
    practice = re.search(r"practice=(\[[-\d, ]+\])", draw)
    assert practice and practice.group(1) == "[" + printed.strip("()[]") + "]"
    assert f"on your own computer `{printed}`" in " ".join(cells[at - 1].source.split())
    assert "exercise" in cells[at + 1].metadata.get("tags", [])  # her answer comes next
    assert f"{name} = np.array" not in "".join(c.source for c in cells)  # not fixed anywhere


H7 = [[1, 2, 3, 6], [2, 2, 2, 10]]  # lesson 7's printed h


def test_lesson_7s_rows_are_the_lessons_on_a_laptop_and_her_own_on_the_hub(monkeypatch, capsys):
    monkeypatch.delenv(SEED_ENV, raising=False)
    rows = your_rows("07_transformer_block", "h", practice=H7, low=0, high=10)
    assert rows.tolist() == H7 and "(the lesson's numbers" in capsys.readouterr().out
    drawn = []
    for i in range(8):
        _as(monkeypatch, f"student{i}")
        h = your_rows("07_transformer_block", "h", practice=H7, low=0, high=10,
                      tell_apart="layer_norm", show=False)  # fmt: skip
        assert (
            h.shape == (2, 4) and np.array_equal(h, np.round(h)) and 0 <= h.min() <= h.max() <= 10
        )
        assert (np.ptp(h, axis=1) > 0).all() and checks.block_tells_apart("layer_norm", h)
        drawn.append(h.tolist())
    assert len({str(h) for h in drawn}) == 8
    # a worked answer on the lesson's numbers is not hers
    copied = (np.array(H7) - np.mean(H7, axis=1, keepdims=True)) / np.sqrt(
        np.var(H7, axis=1, keepdims=True) + 1e-5
    )
    assert not self_check(checks.check_layer_norm, copied, h, name="h_norm").passed
    own = (h - h.mean(axis=1, keepdims=True)) / np.sqrt(h.var(axis=1, keepdims=True) + 1e-5)
    assert self_check(checks.check_layer_norm, own, h, name="h_norm").passed


def test_add_and_norms_rows_are_drawn_in_halves_apart_from_x(monkeypatch):
    _as(monkeypatch, "student3")
    x = your_rows("07_transformer_block", "x", practice=np.zeros((3, 4)) + [0, 1, 2, 3],
                  low=0, high=3, show=False)  # fmt: skip
    f = your_rows("07_transformer_block", "attn_out", practice=np.zeros((3, 4)), low=-2, high=4,
                  step=0.5, tell_apart="add_norm", given=[x], show=False)  # fmt: skip
    assert np.array_equal(f * 2, np.round(f * 2)) and -1 <= f.min() and f.max() <= 2
    assert checks.block_tells_apart("add_norm", x, f) and (np.ptp(x + f, axis=1) > 0).all()


def test_lesson_7_draws_its_layer_norm_exercises_rows():
    cells = nbformat.read(NOTEBOOKS / "07_transformer_block.ipynb", as_version=4).cells
    for name in ("h", "x", "attn_out"):
        at = next(i for i, c in enumerate(cells) if f"{name} = your_rows(" in c.source)
        assert "exercise" in cells[at + 1].metadata.get("tags", [])  # her answer comes next
        assert f"{name} = np.array" not in "".join(c.source for c in cells)  # not fixed anywhere


def test_a_row_to_normalise_with_equal_numbers_is_drawn_again():
    assert not checks.block_tells_apart("layer_norm", [[1, 1, 1, 1], [0, 1, 2, 3]])
    assert not checks.block_tells_apart("add_norm", [[1, 0, 0, 0]], [[0, 1, 1, 1]])
