"""No student string runs as code in the grader: tests that would run one, graded both routes.

A teacher released (before the release check knew, or with ``CheckSolution.refuse = False``)
tests that hand a student's answer to ``eval``, ``exec``, ``compile``, ``__import__``,
``pickle.loads``, ``marshal.loads``, ``getattr`` or format it into code. A student fills those
answers with code that writes a file in the grader's ``/tmp`` and returns the expected value.
Graded by plain ``nbgrader autograde`` and by ``make grade``: no file appears (the test never
ran in the grader), no automatic point is given, and each cell is flagged for a teacher.
"""

from __future__ import annotations

import base64
import pickle
import secrets
from pathlib import Path

import nbformat
import pytest

from tests.support.graded_classes import attack_class, cell_scores_and_flags, question_source

ASSIGNMENT = "sinks"
TOKEN = secrets.token_hex(6)
MARK = f"/tmp/attention-sink-{TOKEN}"


def _write(spelling: str) -> str:
    """An expression that leaves a mark in the grader's /tmp, then is worth 42."""
    return f"__import__('pathlib').Path('{MARK}-{spelling}').write_text('x') and 42"


class _Mark:
    def __reduce__(self):
        import os

        return (os.system, (f"touch {MARK}-pickle",))


#: grade_id -> (solution, test, the attacker's answer)
QUESTIONS = {
    "eval": ('expr = "6 * 7"', "assert eval(expr) == 42", f"expr = {_write('eval')!r}"),
    "exec": (
        'code = "result = 6 * 7"',
        "ns = {}\nexec(code, ns)\nassert ns['result'] == 42",
        f"code = {'result = ' + _write('exec')!r}",
    ),
    "compile": (
        'formula = "6 * 7"',
        "assert eval(compile(formula, '<answer>', 'eval')) == 42",
        f"formula = {_write('compile')!r}",
    ),
    "format": (
        "term = 41",
        "assert eval(f'{term} + 1') == 42",
        f"term = {_write('format') + ' - 1'!r}",
    ),
    "import": (
        'module_name = "math"',
        "assert __import__(module_name).floor(2.5) == 2",
        'module_name = "math"',
    ),
    "pickle": (
        "import base64, pickle\nblob = base64.b64encode(pickle.dumps([1, 2])).decode()",
        "import base64, pickle\nassert pickle.loads(base64.b64decode(blob)) == [1, 2]",
        f"blob = {base64.b64encode(pickle.dumps(_Mark())).decode()!r}",
    ),
    "marshal": (
        "import base64, marshal\nmarshalled = base64.b64encode(marshal.dumps(7)).decode()",
        "import base64, marshal\nassert marshal.loads(base64.b64decode(marshalled)) == 7",
        "import base64, marshal\nmarshalled = base64.b64encode(marshal.dumps(7)).decode()",
    ),
    "getattr": (
        'function_name = "floor"',
        "import math\nassert getattr(math, function_name)(2.5) == 2",
        'function_name = "floor"',
    ),
}
STUDENTS = ("honest", "attacker")


@pytest.fixture(scope="module")
def source_root(tmp_path_factory) -> Path:
    return question_source(tmp_path_factory.mktemp("sinks") / "source", ASSIGNMENT, QUESTIONS)


@pytest.fixture(scope="module", params=["nbgrader", "grade"])
def graded(request, shared_class, source_root):
    config = "\nc.CheckSolution.refuse = False\n"  # released as before the check knew
    spec = attack_class(
        f"sinks-{request.param}", source_root, QUESTIONS, STUDENTS, "attacker", config,
        request.param,
    )  # fmt: skip
    return cell_scores_and_flags(shared_class(spec).course, ASSIGNMENT, STUDENTS)


@pytest.mark.slow
def test_no_student_string_ran_in_the_grader(graded):
    assert list(Path("/tmp").glob(f"attention-sink-{TOKEN}*")) == []


@pytest.mark.slow
@pytest.mark.parametrize("student", STUDENTS)
def test_every_such_test_earns_no_automatic_point_and_is_flagged_for_a_teacher(graded, student):
    scores, flags = graded
    assert {f"test_{q}": 0 for q in QUESTIONS} == {
        name: score for name, score in scores[student].items() if name.startswith("test_")
    }
    needs_teacher = {f.detail for f in flags[student] if f.kind == "needs_teacher"}
    for name in QUESTIONS:
        assert any(f"test_{name}" in d and "run_in_kernel" in d for d in needs_teacher), (
            name,
            needs_teacher,
        )


def test_the_release_check_refuses_each_and_says_the_way_out(source_root):
    from attention_grader.batch.solution_check import notebook_cells
    from attention_grader.checking.code_sinks import code_sinks, notebook_aliases

    cells = notebook_cells(nbformat.read(source_root / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4))
    for name in QUESTIONS:
        causes = code_sinks(cells.tests[f"test_{name}"], cells.answers, notebook_aliases(cells))
        assert causes and "run_in_kernel" in causes[0], name
