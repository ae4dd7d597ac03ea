"""attention_grader.checking.cell_outputs: a trusted test's outputs as nbgrader reads them, cut."""

from __future__ import annotations

from attention_grader.checking.cell_outputs import error_output, finished_outputs, traceback_lines


def test_an_error_and_its_traceback_are_cut_and_never_show_test_code():
    class Check(Exception):
        def _render_traceback_(self):
            return ["AssertionError: " + "x" * 100]

    error = error_output("ValueError", "v" * 100, 10)
    assert error.evalue == "v" * 10 and error.traceback == ["ValueError: " + "v" * 10]
    assert traceback_lines(Check(), 20) == ["AssertionError: " + "x" * 4]
    assert traceback_lines(KeyError("k" * 100), 5) == ["KeyError: 'kkkk"]


def test_a_finished_test_says_stderr_shows_stdout_and_its_value_cut():
    outputs = finished_outputs("the test wrote to stderr\n", "p" * 100, 0.5, 8)
    assert [o.output_type for o in outputs] == ["stream", "stream", "execute_result"]
    assert outputs[0].text == "the test wrote to stderr\n" and outputs[1].text == "p" * 8
    assert outputs[2].data == {"text/plain": "0.5"}
    assert finished_outputs("", "", None, 8) == []  # full marks: nothing
