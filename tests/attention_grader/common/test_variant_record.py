"""attention_grader.common.variant_record: a test's numbers and answers, carried as data."""

from __future__ import annotations

import numpy as np
from attention_grader.common.variant_record import MAX_CHARS, read_variant, record_variant, shown
from nbformat.v4 import new_code_cell


def test_what_a_test_read_round_trips_as_short_text():
    cell = new_code_cell("check(x)")
    numbers = {"K": np.array([[1, 0], [2, 2]]), "q": np.array([0.123456, 1.0])}
    record_variant(cell, "alice", numbers, {"x": [1.5, 2.25]})
    read = read_variant(cell)
    assert read is not None and read.student == "alice"
    assert read.numbers == (("K", "[[1, 0], [2, 2]]"), ("q", "[0.1235, 1.0]"))
    assert read.answers == (("x", "[1.5, 2.25]"),)
    assert read.also_right_for == ()
    record_variant(cell, "alice", numbers, {"x": [1.5, 2.25]}, ["bob", "practice"])
    assert read_variant(cell).also_right_for == ("bob", "practice")


def test_a_long_answer_is_cut():
    text = shown("<b>" * 1000)
    assert len(text) == MAX_CHARS and text.endswith("…")


def test_what_grading_did_not_write_is_not_read():
    assert read_variant(new_code_cell("x")) is None
    forged = new_code_cell("x", metadata={"attention_grader": {"variant": {"student": 3}}})
    assert read_variant(forged) is None
    odd = {"student": "a", "numbers": {"K": ["not text"], "q": "[1]"}, "answers": "x",
           "also_right_for": ["bob", 3]}  # fmt: skip
    read = read_variant(new_code_cell("x", metadata={"attention_grader": {"variant": odd}}))
    assert read is not None and read.numbers == (("q", "[1]"),) and read.answers == ()
    assert read.also_right_for == ("bob",)
