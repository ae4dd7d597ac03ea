"""Cells whose output nbgrader's LimitOutput cut are flagged (attention_grader.executor.flag_limited_output)."""

from attention_grader.common.flag_store import read_flags
from attention_grader.executor.flag_limited_output import LIMIT_OUTPUT_MARKER, FlagLimitedOutput
from nbformat.v4 import new_code_cell, new_notebook, new_output


def test_a_cut_cell_is_flagged_by_its_grade_id_and_others_are_not():
    cut = new_code_cell("print(1)", metadata={"nbgrader": {"grade_id": "q2"}})
    cut.outputs = [new_output("stream", name="stdout", text="1\n" + LIMIT_OUTPUT_MARKER)]
    quiet = new_code_cell("print(2)")
    quiet.outputs = [new_output("stream", name="stdout", text="2\n")]
    nb = new_notebook(cells=[cut, quiet])
    FlagLimitedOutput().preprocess(nb, {"nbgrader": {"notebook": "lab"}})
    flags = read_flags(nb)
    assert [(f.kind, f.detail) for f in flags] == [
        ("output_truncated", "lab/q2 printed too much output")
    ]
