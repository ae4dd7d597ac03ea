"""The checker of one notebook and what its source says (attention_grader.executor.notebook_checker).

Grading with it end to end is tests/attention_grader/checking/test_trusted.py's and the attacks'
(tests/attacks/rebind_imported_assert.py); these read its parts alone.
"""

from attention_grader.executor.notebook_checker import notebook_checker, rebound_libraries


def test_a_student_cell_that_rebinds_an_imported_name_is_found_once():
    libraries = {"np": "numpy", "check_answer": "attention_lab.checks"}
    students = [
        "np = FakeNumpy()",
        "def check_answer(x):\n    return True",
        "del np",
        "numpy_result = np.ones(3)",  # reading a name is not rebinding it
        "this is not python (",  # a cell that does not parse is skipped, not an error
    ]
    assert rebound_libraries(students, libraries) == ["np", "check_answer"]
    assert rebound_libraries(["x = 1", "class Q: pass"], libraries) == []


def test_without_a_gradebook_or_the_teachers_cells_there_is_nothing_to_check():
    import logging

    from nbformat.v4 import new_notebook
    from traitlets.config import Config

    def run_request(source):
        raise AssertionError("nothing may run in the kernel")

    log = logging.getLogger("test")
    for resources in (None, {}, {"nbgrader": {"assignment": "a", "notebook": "n"}}):
        assert notebook_checker(new_notebook(), resources, None, run_request, Config(), log) is None
