"""What the student's code raised, as an exception here (attention_grader.wire.answer_errors)."""

from __future__ import annotations

import pytest
from attention_grader.wire.answer_errors import StudentCodeError, student_error


def test_a_builtin_error_from_the_kernel_is_that_builtin_here_too():
    err = student_error("ZeroDivisionError", "division by zero")
    assert isinstance(err, ZeroDivisionError) and isinstance(err, StudentCodeError)
    assert str(err) == "ZeroDivisionError: division by zero"
    with pytest.raises(ArithmeticError):  # a test's `except ArithmeticError` catches it
        raise err


def test_a_students_own_error_is_caught_by_its_builtin_base():
    err = student_error("Oops", "bad input", bases=["Oops", "ValueError", "Exception"])
    assert isinstance(err, ValueError) and err.ename == "Oops"
    unknown = student_error("Weird", "x", bases=["Weird", "object"])
    assert type(unknown) is StudentCodeError


def test_a_teachers_exception_class_of_that_name_is_what_the_test_catches():
    class NegativeInputError(Exception):
        pass

    classes = {"NegativeInputError": NegativeInputError}.get
    err = student_error("NegativeInputError", "x < 0", classes=classes)
    assert isinstance(err, NegativeInputError) and isinstance(err, StudentCodeError)


def test_a_cell_timeout_says_what_to_look_for_and_hostile_text_is_capped():
    err = student_error("CellTimeoutError", "")
    assert err.ename == "Timeout" and "loop that never ends" in err.message
    long = student_error("E" * 500, "m" * 10_000)
    assert len(long.ename) == 80 and len(long.message) == 2000
