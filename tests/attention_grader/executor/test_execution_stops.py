"""How a notebook stopped early is recorded (attention_grader.executor.execution_stops)."""

from time import monotonic

from attention_grader.common.flags import GRADER_METADATA
from attention_grader.executor.execution_stops import (
    KERNEL_DIED,
    KERNEL_UNRESPONSIVE,
    NOTEBOOK_TIMEOUT,
    Stop,
    StopState,
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


def test_a_cells_timeout_is_cut_to_the_notebooks_time_left():
    assert StopState.starting(0).cell_timeout(None) is None  # no notebook limit
    assert StopState.starting(0).cell_timeout(30) == 30 and not StopState.starting(0).out_of_time()
    roomy = StopState(monotonic() + 1000)
    assert roomy.cell_timeout(30) == 30 and 990 <= roomy.cell_timeout(None) <= 1001
    late = StopState(monotonic() - 5)
    assert late.out_of_time() and late.cell_timeout(30) == 1  # never 0: that means "no limit"


def test_a_stop_marks_the_cells_after_it_and_is_recorded_once():
    state = StopState(None, Stop(KERNEL_DIED, 2))
    cell = new_code_cell("assert answer == 3")
    state.mark(cell)
    assert cell.outputs[0].ename == KERNEL_DIED and "at cell 2" in cell.outputs[0].evalue
    nb = new_notebook(cells=[cell])
    flags = Stop(KERNEL_DIED, 2).record(nb, "lab")
    assert nb.metadata[GRADER_METADATA]["execution"] == {"stopped": KERNEL_DIED, "cell": 2}
    assert [(f.kind, f.detail) for f in flags] == [
        ("exit", "lab: the kernel exited or was killed; the tests after it scored 0")
    ]
