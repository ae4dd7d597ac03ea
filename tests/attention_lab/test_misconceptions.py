"""attention_lab.misconceptions: one entry per misconception, its id carried as data."""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_lab import checks, misconceptions
from attention_lab._steps import Case, compute

# Cases on which every computed misconception must differ from the right answer somewhere.
RNG = np.random.default_rng(3)
CASES = [
    Case.of([0, 1], [[1, 0], [0, 1], [1, 1]], [[1, 2], [3, 0], [0, 4]]),
    Case.of([2, 0], [[1, 1], [0, 3]], [[1, 0], [0, 1]], scale=False),
    Case.of(RNG.normal(size=(4, 3)), RNG.normal(size=(5, 3)), RNG.normal(size=(5, 3))),
    Case.of(
        RNG.normal(size=(4, 3)),
        RNG.normal(size=(5, 3)),
        RNG.normal(size=(5, 2)),
        mask=np.tril(np.ones((4, 5), dtype=bool), k=1),
    ),
]
SCORES = [
    RNG.normal(size=(3, 4)) * 3,
    np.array([1e3, 2.5e3, 4e3]),
    np.vstack([np.zeros(3), 800 + np.arange(3.0)]),
]
# Self-attention with different queries and keys (one query per key): a weight matrix that is
# not symmetric, where reading a column for a row shows.
_SQUARE = np.random.default_rng(4).normal(size=(3, 3, 2))
CASES.append(Case.of(*_SQUARE))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _differs(a, b) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(all="ignore"):
        return a.shape != b.shape or not np.allclose(a, b)


def test_ids_are_unique_snake_case_and_entries_are_complete():
    ids = [e.id for e in misconceptions.REGISTRY.values()]
    assert len(ids) == len(set(ids)) and ids == list(misconceptions.REGISTRY)
    for entry in misconceptions.REGISTRY.values():
        assert re.fullmatch(r"[a-z]+(_[a-z0-9]+)*", entry.id)
        assert entry.title and entry.message and entry.teaching
        # the hint too: the grader's accuracy suite reads a decimal in feedback as a leaked value
        for text in (entry.title, entry.message, entry.idea, entry.hint):
            assert not re.search(r"\d\.\d", text), f"{entry.id}: a number in its text"


def test_checks_and_report_read_the_registry():
    assert checks.MISCONCEPTIONS == misconceptions.titles()
    from attention_grader.reports.class_diagnoses import misconception_titles

    assert misconception_titles() == misconceptions.titles()


@pytest.mark.parametrize("mid", list(misconceptions.REGISTRY))
def test_a_misconception_carries_its_id_and_text_as_data(mid):
    err = checks.Misconception(mid, "launched_output", "(On n = 3.)")
    assert err.id == mid
    assert err.text.startswith("launched_output: ") and err.text.endswith("(On n = 3.)")
    assert err.text == misconceptions.diagnosis_text(mid, "launched_output", detail="(On n = 3.)")
    # the student sees the id in brackets; nothing reads it back from there
    assert str(err) == f"[{mid}] {err.text}"
    assert str(err) == misconceptions.format_diagnosis(mid, "launched_output", detail="(On n = 3.)")


def test_a_given_message_replaces_the_entrys_message_not_its_lesson():
    """``message`` is what the student reads first (a choice shows the entry's idea there)."""
    err = checks.Misconception("forgot_scaling", "q3 ('b')", message="the idea in plain words")
    assert err.text == "q3 ('b'): the idea in plain words"
    entry = misconceptions.get("forgot_scaling")
    plain = checks.Misconception("forgot_scaling", "w")
    assert plain.text == f"w: {entry.feedback()}" and entry.lesson in plain.text
    assert not hasattr(misconceptions, "parse_diagnosis")


def test_unknown_id_names_the_registry():
    with pytest.raises(KeyError, match="misconceptions.py"):
        misconceptions.get("not_a_misconception")
    with pytest.raises(KeyError):
        checks.Misconception("not_a_misconception")


@pytest.mark.parametrize(
    "entry", [e for e in misconceptions.REGISTRY.values() if e.wrong], ids=lambda e: e.id
)
def test_every_wrong_computation_really_is_wrong_somewhere(entry):
    """A computation that always equals the right answer could never be named."""
    differs = False
    for wrong in entry.wrong:
        if wrong.causal_mask is not None:
            differs |= any(
                not np.array_equal(wrong.causal_mask(n), np.tril(np.ones((n, n), bool)))
                for n in (3, 5)
            )
            continue
        for case in CASES:
            steps = compute(case, wrong)
            if steps is None:
                continue
            right = compute(case)
            differs |= _differs(steps.output, right.output)
        if wrong.softmax is not None:
            for x in SCORES:
                with np.errstate(all="ignore"):
                    got = wrong.softmax(x, -1)
                    differs |= got is not None and _differs(got, _softmax(x))
    assert differs, entry.id


def test_entries_for_keeps_the_registry_order_and_the_kinds():
    order = list(misconceptions.REGISTRY)
    for kind in ("scores", "weights", "output", "softmax", "attention", "causal_mask"):
        found = [slug for slug, _ in misconceptions.entries_for(kind)]
        assert found == sorted(found, key=order.index)
    assert "weights_not_scores" in dict(misconceptions.entries_for("scores"))
    assert "weights_not_scores" not in dict(misconceptions.entries_for("weights"))
    assert "mask_wrong_triangle" in dict(misconceptions.entries_for("causal_mask"))
    assert "keys_as_values" not in dict(misconceptions.entries_for("softmax"))


def test_a_new_entry_is_enough_for_the_checks_to_name_it(monkeypatch):
    """The authoring guide's promise: a new misconception is one new entry."""
    cubed = misconceptions.Entry(
        "cubed_scores",
        "cubed the scores",
        "your scores are cubed.",
        wrong=(misconceptions.WrongComputation(scores=lambda c: (c.Q @ c.K.T) ** 3),),
    )
    registry = {"cubed_scores": cubed, **misconceptions.REGISTRY}
    monkeypatch.setattr(misconceptions, "REGISTRY", registry)
    monkeypatch.setattr(misconceptions, "_ENTRIES", [cubed, *misconceptions._ENTRIES])
    q, k = np.array([2.0, 1.0]), np.array([[1.0, 2.0], [3.0, 1.0]])
    with pytest.raises(checks.Misconception, match=r"^\[cubed_scores\] "):
        checks.check_scores((k @ q) ** 3, q, k, scale=False)


def test_every_entry_gives_feedback_in_three_levels():
    """Issue 27: the misconception in plain words, a hint at the idea, the lesson to reread."""
    for entry in misconceptions.REGISTRY.values():
        assert entry.hint, f"{entry.id}: no hint"
        text = entry.feedback()
        assert text.startswith(entry.message) and f"Hint: {entry.hint}" in text
        if entry.id != "used_library":  # every lesson builds with numpy: no one place to reread
            assert re.fullmatch(r"lesson 0\d", entry.lesson), entry.id
            assert text.endswith(f"(See {entry.lesson}.)")
        if entry.idea:
            assert entry.teaching.startswith(entry.idea) and entry.hint in entry.teaching
