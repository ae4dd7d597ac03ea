"""Trusted checking carries ordinary nbgrader test styles, or says a teacher must grade the cell.

Answers cross from a stand-in kernel (``test_answer_channel.kernel``) exactly as from a real one:
the kernel side's text runs on the student's namespace and only its JSON reply comes back.
"""

from __future__ import annotations

import collections
import datetime
import fractions

import numpy as np
import pytest
from attention_grader.checking.needs_teacher import STUDENT_TEXT
from attention_grader.checking.test_styles import (
    imported_libraries,
    solution_names,
    uncarried_styles,
)
from attention_grader.checking.trusted import TrustedChecker

from tests.support.stand_in_kernel import checker, graded


def run(student: dict, test: str, **cells) -> tuple[float, TrustedChecker, list]:
    check = checker(student, {"t": test}, **cells)
    for grade_id in cells.get("locked", {}):
        assert check.run_locked(grade_id) is None
    outputs = check.run_test("t")
    return graded(outputs, points=1.0), check, outputs


# ------------------------------------------------------------------ libraries are the grader's


def test_a_rebound_library_function_is_the_graders_own_and_earns_nothing():
    """``from numpy.testing import assert_allclose`` in the released notebook, then the student
    rebinds it to a no-op: the test still uses numpy's.
    """
    student = {"assert_allclose": lambda *a, **k: None, "normalise": lambda v: v}
    test = "assert_allclose(normalise(np.array([3.0, 4.0])), [0.6, 0.8])"
    libraries = {"assert_allclose": "numpy.testing.assert_allclose", "np": "numpy"}
    score, check, _ = run(student, test, libraries=libraries)
    assert score == 0.0 and check.needs_teacher == {}
    student["normalise"] = lambda v: np.asarray(v) / 5.0
    assert run(student, test, libraries=libraries)[0] == 1.0


def test_libraries_are_what_the_released_code_imports_and_answers_are_what_solutions_define():
    code = "import numpy as np\nimport os.path\nfrom numpy.testing import assert_allclose as ac"
    assert imported_libraries(code) == {
        "np": "numpy",
        "os": "os",
        "ac": "numpy.testing.assert_allclose",
    }
    cell = "import math\n### BEGIN SOLUTION\nfrom math import factorial\ndef f(x):\n    pass\n"
    cell += "### END SOLUTION"
    assert solution_names(cell) == {"factorial", "f"}
    inside = "def softmax(xs):\n    ### BEGIN SOLUTION\n    return xs\n    ### END SOLUTION"
    assert solution_names(inside) == {"softmax"}  # the def is above the markers


# ------------------------------------------------------------------------ more kinds of data


def test_complex_dates_fractions_decimals_counters_and_generators_are_carried_both_ways():
    def countdown(n):
        while n > 0:
            yield n
            n -= 1

    student = {
        "roots": lambda: (1j, -1j),
        "add_days": lambda d, n: d + datetime.timedelta(days=n),
        "mean": lambda xs: sum(map(fractions.Fraction, xs)) / len(xs),
        "half": lambda x: x / 2,
        "counts": collections.Counter("abca"),
        "countdown": countdown,
    }
    test = (
        "import datetime, fractions, decimal\n"
        "assert set(roots()) == {1j, -1j}\n"
        "assert add_days(datetime.date(2024, 2, 28), 2) == datetime.date(2024, 3, 1)\n"
        "assert mean([decimal.Decimal('0.1'), decimal.Decimal('0.2')]) == fractions.Fraction(3, 20)\n"
        "assert half(decimal.Decimal('0.3')) == decimal.Decimal('0.15')\n"
        "assert counts['a'] == 2 and counts['z'] == 0 and counts.most_common(1) == [('a', 2)]\n"
        "g = countdown(3)\nassert next(g) == 3 and list(g) == [2, 1]"
    )
    score, check, outputs = run(student, test)
    assert score == 1.0, outputs
    assert check.needs_teacher == {}


def test_printed_output_reaches_a_redirect_but_never_the_cells_output():
    student = {"greet": lambda name: print(f"Hello, {name}!")}
    test = (
        "import io, contextlib\nbuffer = io.StringIO()\n"
        "with contextlib.redirect_stdout(buffer):\n    greet('Ada')\n"
        "assert buffer.getvalue() == 'Hello, Ada!\\n'\ngreet('Bo')"
    )
    score, _, outputs = run(student, test)
    assert score == 1.0
    assert "Hello" not in str(outputs)  # a student's own printing is not shown in feedback


def test_arguments_changed_in_place_are_changed_in_the_test_too():
    def double_all(xs):
        for i in range(len(xs)):
            xs[i] *= 2

    test = (
        "xs = [1, 2]\nassert double_all(xs) is None\nassert xs == [2, 4]\n"
        "arr = np.array([1.0, 5.0])\ndouble_all(arr)\nassert arr.tolist() == [2.0, 10.0]\n"
        "d = {'a': 1}\nkeep = dict(d)\nassert d == keep"
    )
    score, _, outputs = run({"double_all": double_all}, test, locked={"i": "import numpy as np"})
    assert score == 1.0, outputs
    copy = {"double_all": lambda xs: [2 * x for x in xs]}  # returns a new list: xs unchanged
    assert run(copy, test, locked={"i": "import numpy as np"})[0] == 0.0


def test_the_teachers_exception_classes_and_a_students_subclass_are_caught_by_name():
    locked = {"errors": "class NegativeInputError(ValueError):\n    pass"}
    test = (
        "try:\n    safe_sqrt(-1)\nexcept NegativeInputError:\n    pass\n"
        "else:\n    raise AssertionError('no NegativeInputError')"
    )
    kernel_ns: dict = {}
    exec(locked["errors"], kernel_ns)  # the read-only cell ran in the kernel too

    def safe_sqrt(x):
        raise kernel_ns["NegativeInputError"]("negative")

    assert run({"safe_sqrt": safe_sqrt}, test, locked=locked)[0] == 1.0

    def plain_value_error(x):
        raise ValueError("negative")

    assert run({"safe_sqrt": plain_value_error}, test, locked=locked)[0] == 0.0

    class Oops(ValueError):
        pass

    def own_subclass(x):
        raise Oops("negative")

    test = "try:\n    safe_sqrt(-1)\nexcept ValueError:\n    pass"
    assert run({"safe_sqrt": own_subclass}, test)[0] == 1.0


# ------------------------------------------------------------------ what cannot be carried


def test_a_function_passed_to_a_students_function_needs_a_teacher_never_a_silent_zero():
    student = {"apply_twice": lambda f, x: f(f(x))}
    score, check, outputs = run(student, "assert apply_twice(lambda v: v + 3, 1) == 7")
    assert score == 0.0
    assert "a function (<lambda>)" in check.needs_teacher["t"]
    assert outputs[0].evalue == STUDENT_TEXT  # the cause (it may quote the test) is the teacher's


@pytest.mark.slow
def test_objects_of_a_students_class_are_used_through_handles_in_the_kernel():
    class Stack:
        def __init__(self):
            self.items = []

        def push(self, item):
            self.items.append(item)

        def pop(self):
            return self.items.pop()

        def __len__(self):
            return len(self.items)

        def __iter__(self):
            return iter(self.items)

        def __getitem__(self, i):
            return self.items[i]

        def __eq__(self, other):  # claims to equal anything: must never decide a test
            return True

    test = (
        "s = Stack()\nassert isinstance(s, Stack) and not isinstance(3, Stack)\n"
        "s.push(1)\ns.push(2)\nassert len(s) == 2 and list(s) == [1, 2] and s.items == [1, 2]\n"
        "assert s[0] == 1 and s[-1] == 2\n"
        "assert s.pop() == 2 and len(s) == 1"
    )
    score, check, outputs = run({"Stack": Stack}, test)
    assert score == 1.0 and check.needs_teacher == {}, outputs
    assert run({"Stack": Stack}, "s = Stack()\nassert s == 5")[0] == 0.0
    assert run({"Stack": Stack}, "s = Stack()\nassert s.__eq__(5)")[0] == 0.0
    # Setting an attribute happens on the object in the kernel, as in plain nbgrader.
    score, check, _ = run({"Stack": Stack}, "s = Stack()\ns.items = [3]\nassert s.pop() == 3")
    assert score == 1.0 and check.needs_teacher == {}


def test_a_module_that_stays_in_the_kernel_needs_a_teacher_when_the_test_fails():
    import math

    score, check, _ = run({"m": math}, "assert m.sqrt(4) == 2")
    assert score == 0.0 and "`m`, a module object" in check.needs_teacher["t"]


def test_a_patched_builtin_stays_in_the_test_and_the_cell_needs_a_teacher():
    test = (
        "import builtins\nreal = builtins.max\nbuiltins.max = None\n"
        "try:\n    assert largest([3, 9]) == 9\nfinally:\n    builtins.max = real"
    )
    score, check, outputs = run({"largest": lambda xs: max(xs)}, test)
    assert max([1, 2]) == 2  # the grader's builtins are untouched
    assert "builtins.max" in check.needs_teacher["t"]
    assert score == 0.0  # it passed, but says nothing: no automatic points, a teacher decides


def test_styles_the_grader_cannot_follow_are_named():
    student = {"factorial", "squares", "total"}
    spy = "real = factorial\nfactorial = lambda n: real(n)\nfactorial(3)\nfactorial = real"
    assert "rebinds `factorial`" in uncarried_styles(spy, student)[0]
    restore = "orig = squares\ndel squares\ntry:\n    pass\nfinally:\n    squares = orig"
    assert uncarried_styles(restore, student) == []  # followed in the kernel (kernel_bindings)
    inside = "def f():\n    global squares\n    squares = 1"
    assert "`squares`" in uncarried_styles(inside, student)[0]
    patch = "from unittest import mock\nwith mock.patch('builtins.max'):\n    pass"
    assert "builtins.max" in uncarried_styles(patch, student)[0]
    assert "inspect" in uncarried_styles("import inspect\ninspect.getsource(total)", student)[0]
    assert uncarried_styles("assert total([1]) == 1\nx = 2\ndel x", student) == []


def test_a_matplotlib_axes_arrives_as_a_read_only_snapshot_of_its_data():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def plot_squares(n, title="Squares"):
        fig, ax = plt.subplots()
        ax.plot(range(n), [x * x for x in range(n)], label="squares")
        ax.set_title(title)
        ax.set_xlabel("n")
        ax.legend()
        return ax

    test = (
        "ax = plot_squares(4)\nx, y = ax.lines[0].get_data()\n"
        "assert list(x) == [0, 1, 2, 3] and list(y) == [0, 1, 4, 9]\n"
        "assert ax.get_title() == 'Squares' and ax.get_xlabel() == 'n'\n"
        "assert [t.get_text() for t in ax.get_legend().get_texts()] == ['squares']"
    )
    score, check, outputs = run({"plot_squares": plot_squares}, test)
    assert score == 1.0 and check.needs_teacher == {}, outputs
    wrong = {"plot_squares": lambda n: plot_squares(n, title="Cubes")}
    score, check, _ = run(wrong, test)
    assert score == 0.0 and "snapshot" in check.needs_teacher["t"]  # a teacher looks
    unknown = "ax = plot_squares(2)\nassert ax.get_xticks() is not None"
    score, check, _ = run({"plot_squares": plot_squares}, unknown)
    assert score == 0.0 and "`get_xticks`" in check.needs_teacher["t"]
    plt.close("all")


@pytest.mark.slow
def test_a_huge_student_sequence_costs_a_capped_number_of_requests():
    class Endless:
        def __len__(self):
            return 10**9

        def __getitem__(self, i):
            return 1.0

    score, check, _ = run(
        {"make": lambda: Endless()}, "e = make()\nassert sum(e[i] for i in range(5000)) > 0"
    )
    assert score == 0.0 and "more than 2000 times" in check.needs_teacher["t"]


def test_the_course_config_sets_a_tests_handle_uses_and_its_output_text():
    """``c.Answers.max_handle_ops`` and ``c.Answers.max_output_chars`` reach the checker."""
    from attention_grader.channel.answer_channel import AnswerChannel
    from attention_grader.checking.trusted_cells import TrustedCells
    from attention_grader.config.settings import answer_limits
    from traitlets.config import Config

    from tests.support.stand_in_kernel import kernel

    class Sequence:
        def __len__(self):
            return 100

        def __getitem__(self, i):
            return 1.0

    config = Config()
    config.Answers.max_handle_ops = 10
    config.Answers.max_output_chars = 50
    student = {"make": lambda: Sequence()}
    tests = {
        "items": "e = make()\nassert sum(e[i] for i in range(20)) > 0",
        "long": "raise ValueError('b' * 500)",
        "printed": "print('a' * 500)",
    }
    channel = AnswerChannel(kernel(student), limits=answer_limits(config))
    check = TrustedChecker(TrustedCells(tests=tests), channel)
    check.run_test("items")
    assert "more than 10 times" in check.needs_teacher["items"]
    (error,) = check.run_test("long")
    assert error.evalue == "b" * 50 and error.traceback == ["ValueError: " + "b" * 50]
    (printed,) = [o for o in check.run_test("printed") if o.get("name") == "stdout"]
    assert printed.text == "a" * 50
    default = TrustedChecker(TrustedCells(tests=tests), AnswerChannel(kernel(student)))
    assert len(default.run_test("long")[0].evalue) == 500
