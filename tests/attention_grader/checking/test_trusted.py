"""Trusted checking (attention_grader.checking.trusted): tests run here, against answers as plain data."""

from __future__ import annotations

import numpy as np
import pytest
from attention_grader.channel.answer_channel import AnswerChannel
from attention_grader.checking.trusted import TrustedChecker
from attention_grader.checking.trusted_cells import TrustedCells
from attention_grader.executor.library_use import library_in_source
from attention_grader.wire.answer_errors import UnreadableAnswer

from tests.support.stand_in_kernel import graded, kernel


def checker(student_ns: dict, tests: dict, locked: dict | None = None) -> TrustedChecker:
    cells = TrustedCells(tests=tests, locked=locked or {})
    return TrustedChecker(cells, AnswerChannel(kernel(student_ns)))


def test_read_only_cells_define_the_tests_data_not_the_student():
    """A student who reassigns K (or the check module) changes nothing the test compares with."""
    student = {"K": np.zeros((3, 2)), "checks": None, "np": None, "scores": [0.0, 0.707, 0.707]}
    locked = {"data": "import numpy as np\nK = np.array([[1, 0], [0, 1], [1, 1]])"}
    tests = {"t": "assert np.allclose(scores, K @ np.array([0, 1]) / np.sqrt(2), atol=1e-3)"}
    check = checker(student, tests, locked)
    assert check.run_locked("data") is None
    assert graded(check.run_test("t")) == 2.0
    student["scores"] = [0.0, 0.0, 0.0]  # right for the student's own K, wrong for the chapter's
    assert graded(check.run_test("t")) == 0.0


def test_outputs_are_what_nbgrader_grades_by():
    student = {"x": 3}
    check = checker(
        student,
        {
            "passes": "print('checked', x)\nassert x == 3",
            "fails": "assert x == 4, 'x is not 4 yet'",
            "partial": "x / 2",
            "stderr": "import sys\nsys.stderr.write('noise')\nx / 2",
            "undefined": "assert y == 1",
        },
    )
    out = check.run_test("passes")
    assert [o.output_type for o in out] == ["stream"] and out[0].text == "checked 3\n"
    assert graded(out) == 2.0
    out = check.run_test("fails")
    assert out[0].traceback == ["AssertionError: x is not 4 yet"] and graded(out) == 0.0
    assert graded(check.run_test("partial")) == 1.5  # the value is the credit
    out = check.run_test("stderr")  # as in nbgrader: stderr output earns nothing
    assert out[0].name == "stderr" and "noise" not in out[0].text and graded(out) == 0.0
    assert check.run_test("undefined")[0].ename == "NameError"


def test_unreadable_answers_fail_the_test_and_are_recorded():
    def silent(source):
        return []

    check = TrustedChecker(TrustedCells(tests={"t": "assert x"}), AnswerChannel(silent))
    out = check.run_test("t")
    assert out[0].ename == "UnreadableAnswer" and graded(out) == 0.0
    assert check.unreadable and check.unreadable[0].startswith("t: ")


def test_a_students_function_is_called_in_its_kernel_and_errors_read_as_its_own():
    student = {"softmax": lambda x: 1 / 0}
    check = checker(student, {"t": "softmax([1.0, 2.0])"})
    out = check.run_test("t")
    assert out[0].ename == "ZeroDivisionError" and "division by zero" in out[0].evalue


def test_a_substituted_reference_is_seen_by_the_students_function_only_inside():
    student = {}
    exec(  # the student's notebook: a broken softmax, attention that calls it
        "import numpy as np\n"
        "def stable_softmax(x):\n    return np.zeros(len(x))\n"
        "def attention(x):\n    return stable_softmax(x)\n",
        student,
    )
    own = student["stable_softmax"]
    channel = AnswerChannel(kernel(student))
    fn = channel.get(["attention"])["attention"]
    assert np.allclose(fn(np.array([0.0, 0.0])), 0.0)
    with fn.substituting("stable_softmax", "attention_lab._steps.softmax"):
        assert np.allclose(fn(np.array([0.0, 0.0])), 0.5)
    assert student["stable_softmax"] is own
    with pytest.raises(ValueError, match="attention_lab"), fn.substituting("x", "os.system"):
        pass


def test_a_reference_the_students_code_kept_during_a_check_is_dead_after_it():
    """Her attention keeps the reference softmax it was lent; her softmax calls it later."""
    student = {}
    exec(
        "import numpy as np\n"
        "kept = []\n"
        "def stable_softmax(x):\n    return kept[0](x) if kept else np.zeros(len(x))\n"
        "def attention(x):\n    kept.append(stable_softmax)\n    return stable_softmax(x)\n",
        student,
    )
    channel = AnswerChannel(kernel(student))
    fn = channel.get(["attention"])["attention"]
    with fn.substituting("stable_softmax", "attention_lab._steps.softmax"):
        assert np.allclose(fn(np.array([0.0, 0.0])), 0.5)
    softmax = channel.get(["stable_softmax"])["stable_softmax"]
    with pytest.raises(Exception, match="only lent"):
        softmax(np.array([0.0, 0.0]))
    assert student["kept"][0].__globals__ == {}  # nothing of the grader's stays reachable


@pytest.mark.parametrize(
    ("sources", "found"),
    [
        (["import scipy.special as ss\ndef f(x):\n    return ss.softmax(x)"], "scipy.special"),
        (["from attention_lab import softmax\ndef f(x):\n    return softmax(x)"], "attention_lab"),
        (["import attention_lab.core\nf = attention_lab.core.softmax"], "attention_lab"),
        (
            [
                "import torch\n",
                "def g(x):\n    return torch.softmax(x, 0)\ndef f(x):\n    return g(x)",
            ],
            "torch",
        ),
        (["def f(x):\n    return __import__('scipy').special.softmax(x)"], "__import__"),
        (["def f(x):\n    from scipy.special import softmax\n    return softmax(x)"], "scipy"),
    ],
)
def test_library_use_is_found_in_the_submitted_source(sources, found):
    assert found in (library_in_source(sources, "f") or "")


def test_honest_code_and_other_graded_answers_are_not_charged():
    honest = "import numpy as np\ndef f(x):\n    e = np.exp(x - np.max(x))\n    return e / e.sum()"
    assert library_in_source([honest], "f") is None
    softmax = "import scipy.special\ndef stable_softmax(x):\n    return scipy.special.softmax(x)"
    attention = "def attention(q):\n    return stable_softmax(q)"
    assert library_in_source([softmax, attention], "stable_softmax") == "scipy.special"
    assert library_in_source([softmax, attention], "attention", stop={"stable_softmax"}) is None
    with pytest.raises(UnreadableAnswer):
        AnswerChannel(lambda source: []).get(["f"])


def test_a_misconception_is_kept_as_its_id_whatever_its_message_says():
    """The check's id travels as data (the report never reads the message back)."""
    from attention_lab.misconceptions import REGISTRY

    tests = {
        "named": "from attention_lab import checks\nchecks.check_weights([1.0, 0.0], [1, 0], "
        "[[1, 0], [0, 1]], scale=False, name='w')",
        # a check whose wording changed: no "[id]" at the start of its message at all
        "reworded": "from attention_lab import checks\nraise checks.Misconception("
        "'forgot_scaling', 'w', message='new words for the same idea')",
        "plain": "assert False, '[forgot_scaling] only text'",
    }
    check = checker({}, tests)
    named = check.run_test("named")
    assert named[0].ename == "Misconception" and check.diagnoses["named"].id in REGISTRY
    assert check.diagnoses["named"].text.startswith("w: ")
    check.run_test("reworded")
    assert check.diagnoses["reworded"].id == "forgot_scaling"
    assert check.diagnoses["reworded"].text == "w: new words for the same idea"
    check.run_test("plain")
    assert "plain" not in check.diagnoses  # a message that looks like one is not a diagnosis


def test_a_tests_imports_and_definitions_are_defined_in_the_kernel_too():
    """``from math import isclose`` in a visible test: a later answer using it works, as in
    plain nbgrader; the hidden region, the asserts and the student's names stay out.
    """
    student = {}
    exec("def area(r):\n    return 3.14159 * r * r\n", student)
    test = (
        "from math import isclose\nTOL = 1e-3\ndef helper():\n    return 1\n"
        "assert isclose(area(1), 3.14159, rel_tol=TOL)\narea = area\n"
        "### BEGIN HIDDEN TESTS\nimport fractions\nSECRET = 42\n### END HIDDEN TESTS"
    )
    cells = TrustedCells(
        tests={"t": test, "u": "assert later()"}, answers=frozenset({"area", "later"})
    )
    check = TrustedChecker(cells, AnswerChannel(kernel(student)))
    assert graded(check.run_test("t")) == 2.0
    assert {"isclose", "TOL", "helper"} <= student.keys()
    assert "fractions" not in student and "SECRET" not in student
    exec("def later():\n    return isclose(area(2), 4 * 3.14159)\n", student)
    assert graded(check.run_test("u")) == 2.0


def test_what_the_students_code_writes_to_stderr_during_a_test_counts_as_in_nbgrader():
    """Plain nbgrader gives 0 to a test cell with stderr output.

    (A warning her code shows in a real kernel is stderr too; this stand-in kernel runs inside
    the grader's own process, whose warnings are off while a test runs.)
    """
    student = {}
    exec(
        "import sys\n"
        "def loud(x):\n    print('careful', file=sys.stderr)\n    return x\n"
        "def quiet(x):\n    return x\n",
        student,
    )
    cells = TrustedCells(
        tests={
            "a": "assert loud(1) == 1",
            "b": "assert warns(1) == 1",
            "c": "assert quiet(1) == 1",
        },
        answers=frozenset({"loud", "warns", "quiet"}),
    )
    check = TrustedChecker(cells, AnswerChannel(kernel(student)))
    out = check.run_test("a")
    assert out[0].name == "stderr" and graded(out) == 0.0
    assert "stderr" in out[0].text and "careful" not in out[0].text  # said, never her text
    assert graded(check.run_test("c")) == 2.0
