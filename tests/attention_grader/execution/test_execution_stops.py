"""How a notebook stopped early is recorded (attention_grader.execution.execution_stops)."""

from attention_grader.common.flags import GRADER_METADATA
from attention_grader.execution.execution_stops import (
    KERNEL_DIED,
    KERNEL_UNRESPONSIVE,
    NOTEBOOK_TIMEOUT,
    cell_label,
    execution_flags,
    mark_not_run,
)
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def test_a_cell_not_run_gets_an_error_naming_why():
    for kind, words in (
        (KERNEL_DIED, "kernel died"),
        (KERNEL_UNRESPONSIVE, "stopped responding"),
        (NOTEBOOK_TIMEOUT, "time budget"),
    ):
        cell = new_code_cell("assert answer == 3")
        mark_not_run(cell, kind, 4)
        (out,) = cell.outputs
        # An error output is what makes nbgrader score the test 0.
        assert out.output_type == "error" and out.ename == kind and words in out.evalue


def test_only_code_with_something_to_run_is_marked():
    text, empty = new_markdown_cell("# Q1"), new_code_cell("   \n")
    for cell in (text, empty):
        mark_not_run(cell, KERNEL_DIED, 0)
    assert "outputs" not in text and empty.outputs == []


def test_execution_flags_read_back_how_the_notebook_stopped():
    nb = new_notebook()
    assert execution_flags(nb) == []
    nb.metadata[GRADER_METADATA] = {"execution": {"stopped": NOTEBOOK_TIMEOUT, "cell": 2}}
    [(kind, detail)] = execution_flags(nb)
    assert kind == "timeout" and "ran out of time" in detail
    nb.metadata[GRADER_METADATA]["execution"]["stopped"] = KERNEL_DIED
    assert execution_flags(nb)[0][0] == "exit"


def test_cell_label_prefers_the_grade_id():
    graded = new_code_cell("x", metadata={"nbgrader": {"grade_id": "q1_test"}})
    assert cell_label(graded, 0) == "q1_test"
    assert cell_label(new_code_cell("x"), 0) == "cell 1"
