"""The output caps of a graded notebook (attention_grader.executor.output_caps).

The flood itself, cut while it streams from a real kernel, is tests/attention_grader/executor/test_execute.py's (slow); these
read the meter's arithmetic alone.
"""

from attention_grader.executor.output_caps import OutputCaps, OutputMeter, content_size
from nbformat.v4 import new_code_cell, new_notebook


def _text(n: int) -> dict[str, str]:
    return {"text": "x" * n}


def test_a_message_is_sized_by_its_text_data_and_traceback():
    assert content_size({"text": "abc", "traceback": ["de", "f"]}) == 6
    assert content_size({"data": {"text/plain": "12", "application/json": {"a": 1}}}) == 2 + 8
    assert content_size({"text": None, "data": None, "traceback": None}) == 0


def test_a_cell_over_its_cap_is_cut_once_and_the_next_cell_starts_afresh():
    meter = OutputMeter(OutputCaps(cell_bytes=10, notebook_bytes=100))
    assert meter.keeps(_text(6)) and not meter.keeps(_text(6))
    assert meter.cut(3) and not meter.cut(3)  # one cut per cell, however long the flood
    meter.fresh_cell()
    assert meter.keeps(_text(10)) and meter.truncated == [3]


def test_the_notebook_cap_counts_every_cell_but_not_the_graders_requests():
    meter = OutputMeter(OutputCaps(cell_bytes=10, notebook_bytes=15))
    assert meter.keeps(_text(10))
    meter.fresh_cell()
    meter.requesting = True  # reading the answers still works after a noisy notebook
    assert meter.keeps(_text(10))
    meter.fresh_cell()
    meter.requesting = False
    assert meter.keeps(_text(5)) and not meter.keeps(_text(1))  # 16 bytes of the cells'


def test_cells_cut_or_lost_are_flagged_once_each_by_their_label():
    nb = new_notebook(cells=[new_code_cell("print(1)"), new_code_cell("print(2)")])
    nb.cells[1].metadata["nbgrader"] = {"grade_id": "q2"}
    meter = OutputMeter(OutputCaps(1, 1), truncated=[1, 0, 1, 7], lost=[1])
    assert [(f.kind, f.detail) for f in meter.flags(nb, "lab")] == [
        ("output_truncated", "lab/cell 1 printed too much output"),
        ("output_truncated", "lab/q2 printed too much output"),
        ("output_truncated", "lab/? printed too much output"),
        ("output_truncated", "lab/q2: output lost (too large)"),
    ]
