"""Reading a cell's source as Python (attention_grader.wire.cell_code)."""

from __future__ import annotations

from attention_grader.wire.cell_code import answer_names, parse_cell


def test_answer_names_are_what_a_cell_reads_but_does_not_define():
    source = "import numpy as np\ny = 2\ndef f(a):\n    return a + z\nassert np.allclose(x, y)"
    assert answer_names(source) == ["x", "z"]
    assert "w" in answer_names("%matplotlib inline\nprint(w)")  # IPython syntax is read too


def test_a_cell_that_is_not_python_parses_to_none():
    assert parse_cell("def f(:\n") is None
    assert parse_cell("!ls\nx = 1") is not None  # a shell line is IPython syntax, not an error
