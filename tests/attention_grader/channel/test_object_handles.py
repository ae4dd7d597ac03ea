"""Red team of the handles: every use of a student's object grades as in plain nbgrader, or the
cell needs a teacher; never a silent wrong grade.

Each test runs a hidden test through trusted checking against a stand-in kernel (the kernel
side's real text on a namespace, ``test_answer_channel.kernel``) and compares with what plain
nbgrader gives: the same test run directly on the student's namespace.
"""

from __future__ import annotations

import pytest

from tests.support.stand_in_kernel import checker, graded

POINT = (
    "class Point:\n"
    "    def __init__(self, x, y):\n        self.x, self.y = x, y\n"
    "    def __eq__(self, other):\n"
    "        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)\n"
    "    def __hash__(self):\n        return hash((self.x, self.y))\n"
    "    def __add__(self, other):\n        return Point(self.x + other.x, self.y + other.y)\n"
    "    def __lt__(self, other):\n        return (self.x, self.y) < (other.x, other.y)\n"
    '    def __repr__(self):\n        return f"Point({self.x}, {self.y})"\n'
    "class Point3(Point):\n    pass\n"
    "def midpoint(a, b):\n    return Point((a.x + b.x) / 2, (a.y + b.y) / 2)\n"
)


def student(source: str) -> dict:
    namespace = {"__name__": "__main__"}
    exec(source, namespace)  # the test's own student code
    return namespace


def plain(source: str, test: str) -> float:
    """The score plain nbgrader gives: the test runs in the student's namespace."""
    namespace = student(source)
    try:
        exec(test, namespace)
    except Exception:
        return 0.0
    return 1.0


def course(source: str, test: str, answers=("Point", "Point3", "midpoint"), **cells):
    check = checker(student(source), {"t": test}, answers=frozenset(answers), **cells)
    for grade_id in cells.get("locked", {}):
        assert check.run_locked(grade_id) is None
    return graded(check.run_test("t"), points=1.0), check.needs_teacher.get("t")


FAITHFUL = [
    'm = midpoint(Point(0, 0), Point(2, 4))\nassert type(m).__name__ == "Point"',
    "m = midpoint(Point(0, 0), Point(2, 4))\nassert type(m) is Point and m.__class__ is Point",
    "assert isinstance(Point3(1, 2), Point) and not isinstance(Point(1, 2), Point3)",
    "assert issubclass(Point3, Point) and not issubclass(Point, Point3)",
    "assert type(Point(1, 2)) is not Point3",
    "assert midpoint(Point(0, 0), Point(2, 4)) == Point(1.0, 2.0) != Point(0, 0)",
    "assert Point(1, 2) + Point(3, 4) == Point(4, 6)",
    "assert sorted([Point(2, 0), Point(1, 5)])[0].x == 1 and max([Point(2, 0), Point(1, 5)]).x == 2",
    "assert len({Point(1, 2), Point(1, 2), Point(0, 0)}) == 2",
    'assert repr(Point(1, 2)) == "Point(1, 2)" == str(Point(1, 2)) == f"{Point(1, 2)}"',
    'assert not callable(Point(1, 2)) and callable(Point) and "x" in dir(Point(1, 2))',
    "p = Point(1, 2)\nassert vars(p) == {'x': 1, 'y': 2} and p.__dict__['y'] == 2",
    "import copy\np = Point(1, 2)\nq = copy.deepcopy(p)\nq.x = 9\nassert p.x == 1 and q.x == 9",
    "import copy\np = Point(1, 2)\nassert copy.copy(p) is not p and copy.copy(p) == p",
    "p = Point(1, 2)\nassert p.x is p.x and p is p and Point(1, 2) is not Point(1, 2)",
    "p = Point(1, 2)\np.x = 5\ndel p.y\nassert p.x == 5 and not hasattr(p, 'y')",
    "import json\ntry:\n    json.dumps(Point(1, 2))\nexcept TypeError as e:\n    assert 'Point' in str(e)",
    "try:\n    len(Point(1, 2))\nexcept TypeError:\n    pass\nelse:\n    raise AssertionError",
    "p = Point(1, 2)\nassert bool(p) and hash(p) == hash(Point(1, 2))",
]


@pytest.mark.parametrize("test", FAITHFUL)
def test_what_a_test_does_with_a_students_object_grades_as_in_plain_nbgrader(test):
    assert plain(POINT, test) == 1.0, "the stand-in must be right under plain nbgrader too"
    assert course(POINT, test) == (1.0, None)


WRONG_POINT = POINT.replace("return Point((a.x", "return ((a.x").replace(
    "    def __eq__", "    def __eq_unused__"
)


@pytest.mark.parametrize("test", FAITHFUL[:6])
def test_a_wrong_class_loses_the_points_it_loses_in_plain_nbgrader(test):
    assert course(WRONG_POINT, test)[0] == plain(WRONG_POINT, test)


LIAR = (
    "class Anything:\n"
    "    def __eq__(self, other):\n        return True\n"
    "    def __lt__(self, other):\n        return True\n"
    "    __gt__ = __lt__\n"
    "    __hash__ = object.__hash__\n"
    "def answer():\n    return Anything()\n"
)


@pytest.mark.parametrize(
    "test",
    ["assert answer() == 42", "assert 0 < answer() < 1", "assert not answer() != [1, 2]"],
)
def test_a_students_comparison_never_decides_against_the_teachers_data(test):
    """Plain nbgrader gives the liar the point; here the cell needs a teacher: never a pass."""
    score, cause = course(LIAR, test, answers=("Anything", "answer"))
    assert score == 0.0 and "__" in cause and "Anything" in cause


def test_objects_without_their_own_comparison_compare_as_pythons_default():
    source = "class Box:\n    pass\nbox = Box()\n"
    for test in ("assert box != 3 and not box == None", "assert box == box", "box < 3"):
        assert course(source, test, answers=("Box", "box")) == (plain(source, test), None)


def test_a_test_that_pickles_a_students_object_needs_a_teacher():
    score, cause = course(POINT, "import pickle\npickle.dumps(Point(1, 2))")
    assert score == 0.0 and "pickles" in cause


TEXTS = (
    "def shout(words):\n"
    "    return np.array([w.upper() for w in words])\n"  # a text array: not carried
    "def pair(words):\n"
    "    return [len(words), np.array(words)]\n"
)


def test_a_test_that_passes_while_using_a_placeholder_needs_a_teacher():
    """``x != expected`` holds for any placeholder: the pass says nothing about the student."""
    import numpy as np

    tests = [
        'out = shout(["a"])\nassert not np.array_equal(out, np.array(["a"]))',
        'assert shout(["a"]) is not None',
        'assert pair(["a", "b"])[1] != ["x"]',
    ]
    for test in tests:
        check = checker({"shout": student(f"import numpy as np\n{TEXTS}")["shout"],
                         "pair": student(f"import numpy as np\n{TEXTS}")["pair"]},
                        {"t": test}, answers=frozenset({"shout", "pair"}))  # fmt: skip
        check.namespace["np"] = np
        assert graded(check.run_test("t"), points=1.0) == 0.0, test
        assert "could not be carried" in check.needs_teacher["t"], test


def test_a_placeholder_the_test_never_touches_does_not_need_a_teacher():
    ns = student(f"import numpy as np\n{TEXTS}")
    check = checker(ns, {"t": 'assert pair(["a", "b"])[0] == 2'}, answers=frozenset({"pair"}))
    assert graded(check.run_test("t"), points=1.0) == 1.0 and check.needs_teacher == {}


def test_a_function_returning_its_argument_returns_the_tests_own_object():
    source = "def same(xs):\n    return xs\ndef fresh(xs):\n    return list(xs)\n"
    test = "xs = [1]\nassert same(xs) is xs and fresh(xs) is not xs and fresh(xs) == xs"
    assert course(source, test, answers=("same", "fresh")) == (1.0, None)


def test_a_generator_the_student_made_keeps_its_state_across_test_cells():
    ns = student("def count():\n    yield 1\n    yield 2\n    yield 3\ng = count()\n")
    check = checker(ns, {"a": "assert next(g) == 1", "b": "assert next(g) == 2\nassert list(g) == [3]"},
                    answers=frozenset({"count", "g"}))  # fmt: skip
    assert graded(check.run_test("a"), points=1.0) == 1.0
    assert graded(check.run_test("b"), points=1.0) == 1.0 and check.needs_teacher == {}
    assert next(ns["g"], "done") == "done"  # the kernel's generator was used, as in nbgrader


def test_a_students_exception_class_is_caught_by_its_name():
    source = (
        "class EmptyError(Exception):\n    pass\n"
        "def pop(xs):\n    if not xs:\n        raise EmptyError('nothing')\n    return xs.pop()\n"
    )
    test = "try:\n    pop([])\nexcept EmptyError as e:\n    assert 'nothing' in str(e)\nelse:\n    raise AssertionError"
    assert course(source, test, answers=("EmptyError", "pop")) == (1.0, None)
    wrong = source.replace("raise EmptyError('nothing')", "raise IndexError('nothing')")
    assert course(wrong, test, answers=("EmptyError", "pop")) == (0.0, None)


def test_a_students_function_passed_to_another_runs_in_the_kernel():
    source = "def twice(f, x):\n    return f(f(x))\ndef inc(x):\n    return x + 1\n"
    assert course(source, "assert twice(inc, 1) == 3", answers=("twice", "inc")) == (1.0, None)


def test_an_object_of_the_teachers_class_needs_a_teacher_when_the_test_fails():
    """The teacher's ``Node`` exists in the kernel and in the grader: they are not the same class."""
    locked = {"setup": "class Node:\n    def __init__(self, v):\n        self.v = v\n"}
    ns = student(locked["setup"] + "def head(v):\n    return Node(v)\n")
    check = checker(ns, {"t": "assert isinstance(head(1), Node)"}, answers=frozenset({"head"}),
                    locked=locked)  # fmt: skip
    assert check.run_locked("setup") is None
    assert graded(check.run_test("t"), points=1.0) == 0.0
    assert "__main__.Node" in check.needs_teacher["t"]
    check = checker(ns, {"t": "assert head(1).v == 1"}, answers=frozenset({"head"}), locked=locked)
    assert check.run_locked("setup") is None
    assert graded(check.run_test("t"), points=1.0) == 1.0  # what is carried still grades


def test_a_pandas_object_says_pandas_is_not_carried():
    """Told by its class's module (pandas is not in the grader's environment, nor this one)."""
    frame = type("DataFrame", (), {"__module__": "pandas.core.frame", "equals": lambda s, o: 0})
    ns = {"table": frame()}
    check = checker(ns, {"t": "assert table.equals(None)"}, answers=frozenset({"table"}))
    assert graded(check.run_test("t"), points=1.0) == 0.0
    assert "pandas objects are not carried" in check.needs_teacher["t"]


SQUARES = (
    "def squares(n):\n    return [i * i for i in range(1, n + 1)]\n"
    "def sum_of_squares(n):\n    return sum(squares(n))\n"
)
DEL_RESTORE = (  # nbgrader's documentation's pattern
    "assert sum_of_squares(3) == 14\n"
    "orig_squares = squares\ndel squares\n"
    "try:\n    sum_of_squares(1)\nexcept NameError:\n    pass\n"
    'else:\n    raise AssertionError("sum_of_squares does not use squares")\n'
    "finally:\n    squares = orig_squares\n"
    "assert orig_squares(2) == [1, 4]"
)


def test_a_deleted_and_restored_student_name_is_deleted_and_restored_in_the_kernel():
    ns = student(SQUARES)
    check = checker(ns, {"t": DEL_RESTORE}, answers=frozenset({"squares", "sum_of_squares"}))
    assert graded(check.run_test("t"), points=1.0) == 1.0 and check.needs_teacher == {}
    assert ns["squares"](2) == [1, 4]  # restored in the kernel, as in plain nbgrader
    closed = SQUARES.replace("sum(squares(n))", "n * (n + 1) * (2 * n + 1) // 6")
    assert plain(closed, DEL_RESTORE) == 0.0
    assert course(closed, DEL_RESTORE, answers=("squares", "sum_of_squares")) == (0.0, None)


def test_a_student_name_rebound_to_another_of_their_functions_is_rebound_in_the_kernel():
    source = (
        "def f(x):\n    return g(x) + 1\ndef g(x):\n    return x\ndef h(x):\n    return 10 * x\n"
    )
    test = "real = g\ng = h\ntry:\n    assert f(2) == 21\nfinally:\n    g = real\nassert f(2) == 3"
    assert (
        course(source, test, answers=("f", "g", "h")) == (1.0, None) == (plain(source, test), None)
    )


def test_a_spy_of_the_tests_own_is_refused_with_its_cause():
    source = "def fact(n):\n    return 1 if n <= 1 else n * fact(n - 1)\n"
    test = (
        "calls = []\nreal = fact\n\ndef spy(n):\n    calls.append(n)\n    return real(n)\n\n"
        "fact = spy\ntry:\n    real(3)\nfinally:\n    fact = real\nassert calls == [2, 1]"
    )
    score, cause = course(source, test, answers=("fact",))
    assert score == 0.0 and "rebinds `fact` to a function of its own (`spy`)" in cause


def test_a_module_the_test_imports_itself_is_the_tests_own_not_a_placeholder():
    """The solution imports ``datetime`` (an answer name) and so does the test."""
    ns = student("import datetime\ndef add_days(day, n):\n    return day + datetime.timedelta(n)\n")
    test = "import datetime\nassert add_days(datetime.date(2024, 2, 28), 2) == datetime.date(2024, 3, 1)"
    check = checker(ns, {"t": test}, answers=frozenset({"datetime", "add_days"}))
    assert graded(check.run_test("t"), points=1.0) == 1.0 and check.needs_teacher == {}


# ------------------------------------------------ operators between her object and the test's data

ARITHMETIC_LIAR = (
    "seen = []\n"
    "class Zero:\n"
    "    def __sub__(self, other):\n        seen.append(other)\n        return 0.0\n"
    "    __rsub__ = __add__ = __radd__ = __truediv__ = __rtruediv__ = __sub__\n"
    "    def __abs__(self):\n        return 0.0\n"
    "    def __float__(self):\n        return 0.0\n"
    "def answer():\n    return Zero()\n"
)


@pytest.mark.parametrize(
    "test",
    [
        "assert abs(answer() - 0.25) < 1e-6",
        "assert abs(0.25 - answer()) < 1e-6",
        "assert np.isclose(answer(), 0.25)",
        "assert np.allclose([answer()], [0.25])",
        "np.testing.assert_almost_equal(answer(), 0.25)",
        "try:\n    assert abs(answer() - 0.25) < 1e-6\nexcept Exception:\n    pass",
    ],
)
def test_an_operator_between_a_students_object_and_the_tests_value_needs_a_teacher(test):
    """Plain nbgrader gives the liar the point and hands it 0.25; here: no points, a teacher
    decides, and the expected value never reaches the kernel.
    """
    import numpy as np

    ns = student(ARITHMETIC_LIAR)
    check = checker(ns, {"t": test}, answers=frozenset({"Zero", "answer"}))
    check.namespace["np"] = np
    assert graded(check.run_test("t"), points=1.0) == 0.0
    assert "operator would decide" in check.needs_teacher["t"]
    assert ns["seen"] == []


def test_operators_between_the_students_own_objects_still_run_in_the_kernel():
    assert course(POINT, "assert (Point(1, 2) + Point(3, 4)).x == 4") == (1.0, None)


# ------------------------------------------------ caps on what one notebook's kernel hands over


def test_fresh_classes_past_the_cap_need_a_teacher_and_hold_no_more_stand_ins():
    from attention_grader.channel.answer_channel import AnswerChannel
    from attention_grader.checking.trusted import TrustedChecker
    from attention_grader.checking.trusted_cells import TrustedCells
    from attention_grader.config.settings import AnswerLimits

    from tests.support.stand_in_kernel import kernel

    ns = student("objs = [type(f'C{i}', (), {})() for i in range(50)]\n")
    limits = AnswerLimits(max_classes=20, max_handles=1000)
    channel = AnswerChannel(kernel(ns), limits)
    cells = TrustedCells(tests={"t": "assert len(objs) == 50"}, answers=frozenset({"objs"}))
    check = TrustedChecker(cells, channel)
    assert graded(check.run_test("t"), points=1.0) == 0.0
    assert "more than 20 classes" in check.needs_teacher["t"]
    assert len(channel.handles._classes) <= 20
    limits = AnswerLimits(max_classes=100, max_handles=30)
    channel = AnswerChannel(kernel(ns), limits)
    check = TrustedChecker(cells, channel)
    assert graded(check.run_test("t"), points=1.0) == 0.0
    assert "more than 30 objects" in check.needs_teacher["t"]
