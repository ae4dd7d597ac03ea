"""practice_implement graded with the library handed in, by every spelling, through both routes.

The course's own implement-it assignment is generated on a copy of the course and graded by
plain ``nbgrader autograde`` and by ``make grade`` (two workers). Each attack replaces one
answer with a spelling that reaches attention_lab's numerics; the graded kernel has a stub
instead of the library, so the attack scores exactly what leaving that answer blank scores,
and is flagged ``library_use``. Honest students in the same batch keep full marks, unflagged.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from attention_grader.common.flag_store import read_flags

import attention_lab
from tests.support.graded_classes import ClassSpec

ROOT = Path(__file__).resolve().parents[3]
ASSIGNMENT = "practice_implement"
LIBRARY = os.path.realpath(attention_lab.__path__[0])
SOFTMAX, ATTENTION = "answer_stable_softmax", "answer_attention"
HEAD = "def stable_softmax(x, axis=-1):\n"

#: student -> {answer cell: source}; the other answers are the source's own.
STUDENTS = {
    "honest": {},
    "blank_softmax": {SOFTMAX: HEAD + "    raise NotImplementedError()"},
    "blank_attention": {
        ATTENTION: "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    raise NotImplementedError()"
    },
    "annotated": {
        SOFTMAX: "import attention_lab.core\n_impl: object = attention_lab.core.softmax\n"
        + HEAD
        + "    return _impl(x, axis=axis)"
    },
    "in_block": {
        SOFTMAX: "import attention_lab as lib\nif True:\n    for _ in [0]:\n"
        "        _impl = lib.softmax\n" + HEAD + "    return _impl(x, axis=axis)"
    },
    "walrus": {
        SOFTMAX: "from attention_lab import core\n[(_impl := core.softmax)]\n"
        + HEAD
        + "    return _impl(x, axis=axis)"
    },
    "builtins_import": {
        SOFTMAX: HEAD + "    lib = __builtins__.__import__('attention_lab.core', fromlist=['x'])\n"
        "    return lib.softmax(x, axis=axis)"
    },
    "importlib": {
        SOFTMAX: "import importlib as _il\n"
        + HEAD
        + "    return _il.import_module('attention' + '_lab.core').softmax(x, axis=axis)"
    },
    "exec_file": {
        SOFTMAX: f"_ns = {{}}\nexec(open({LIBRARY + '/_steps.py'!r}).read(), _ns)\n"
        + HEAD
        + "    return _ns['softmax'](x, axis=axis)"
    },
    "sys_path": {
        SOFTMAX: "import sys\n"
        "[sys.modules.pop(m) for m in list(sys.modules) if m.startswith('attention_lab')]\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'Hidden' not in type(f).__name__]\n"
        f"sys.path.insert(0, {os.path.dirname(LIBRARY)!r})\n"
        "from attention_lab._steps import softmax as _impl\n" + HEAD + "    return _impl(x, axis)"
    },
    "attention_annotated": {
        ATTENTION: "import attention_lab.core\n_attn: object = attention_lab.core.attention\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    return _attn(Q, K, V, mask=mask)"
    },
}
SPELLINGS = sorted(set(STUDENTS) - {"honest", "blank_softmax", "blank_attention"})


def _blank_twin(student: str) -> str:
    return "blank_attention" if ATTENTION in STUDENTS[student] else "blank_softmax"


def _hand_in(course) -> None:
    source = nbformat.read(course.root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    released = nbformat.read(course.root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    answers = {
        c.metadata["nbgrader"]["grade_id"]: c.source
        for c in source.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    for student, changed in STUDENTS.items():
        nb = nbformat.from_dict(released)
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in answers:
                cell.source = changed.get(grade_id, answers[grade_id])
        folder = course.root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")


@pytest.fixture(scope="module", params=["nbgrader", "parallel"])
def batch(request, shared_class):
    """The class graded by plain ``nbgrader autograde`` or by ``make grade`` (two workers)."""
    spec = ClassSpec(
        f"implement-{request.param}",
        hand_in=_hand_in,
        source=ROOT / "source",
        assignments=(ASSIGNMENT,),
        generate_only=True,
        route="nbgrader" if request.param == "nbgrader" else "grade",
    )
    course = shared_class(spec).course
    scores, flags = {}, {}
    with course.gradebook() as gb:
        for student in STUDENTS:
            scores[student] = gb.find_submission(ASSIGNMENT, student).score
            path = course.root / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            flags[student] = read_flags(nbformat.read(path, as_version=4))
    return scores, flags


@pytest.mark.slow
def test_honest_students_keep_their_marks_unflagged(batch):
    scores, flags = batch
    assert scores["honest"] == 9  # every autograded point (the written answers wait for a teacher)
    for student in ("honest", "blank_softmax", "blank_attention"):
        assert flags[student] == [], (student, flags[student])
    assert scores["blank_softmax"] == 9 - 3 and scores["blank_attention"] == 9 - 4


@pytest.mark.slow
@pytest.mark.parametrize("student", SPELLINGS)
def test_handing_in_the_library_earns_what_a_blank_earns_and_is_flagged(batch, student):
    scores, flags = batch
    assert scores[student] == scores[_blank_twin(student)], (student, flags[student])
    assert "library_use" in {f.kind for f in flags[student]}, flags[student]
