"""What can go wrong when the grader asks a student's kernel for an answer.

:class:`UnreadableAnswer` (the reply was not plain data), :class:`KernelGone` (the kernel died or
stopped answering), :class:`StudentCodeError` (the student's own code raised; made by
:func:`student_error` as an instance of the builtin exception of the same name too, so a test's
``except ValueError`` catches what the student's function raised in the kernel) and
:class:`CannotGrade` (the test used what cannot be carried out of the kernel: the cell needs a
teacher, :mod:`~attention_grader.checking.needs_teacher`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = [
    "ERROR_CLASSES",
    "CannotGrade",
    "KernelGone",
    "StudentCodeError",
    "UnreadableAnswer",
    "student_error",
]


class CannotGrade(BaseException):
    """A test touched something trusted checking cannot carry; ``cause`` says what.

    A ``BaseException``, so that a test's own ``except Exception`` cannot turn it into a pass.
    """

    def __init__(self, cause: str):
        self.cause = str(cause)[:500]
        super().__init__(self.cause)


class UnreadableAnswer(Exception):
    """The kernel's reply was missing or not valid plain data."""


class KernelGone(Exception):
    """The student's kernel died or stopped answering while the grader asked it for answers."""


class StudentCodeError(Exception):
    """The student's function raised, or ran out of time; ``str()`` is ``"Name: message"``.

    Made by :func:`student_error`, which also makes it an instance of the builtin exception of
    the same name (a ``NotImplementedError`` in the kernel is one here too), so checks that
    catch a particular error keep working.
    """

    def __init__(self, ename: str, message: str = ""):
        self.ename = ename
        self.message = message
        super().__init__(f"{ename}: {message}" if message else ename)


def _both(name: str, base: type[BaseException]) -> type[StudentCodeError]:
    """Make a class named ``name`` that is a StudentCodeError and a ``base``."""
    made: type[StudentCodeError] = type(name, (StudentCodeError, base), {"__module__": "student"})
    return made


_BUILTIN_ERRORS = (
    ArithmeticError, AssertionError, AttributeError, FloatingPointError, IndexError, KeyError,
    LookupError, MemoryError, NameError, NotImplementedError, OverflowError, RecursionError,
    RuntimeError, StopIteration, TypeError, ValueError, ZeroDivisionError,
)  # fmt: skip
#: builtin name -> a class that is both a StudentCodeError and that builtin exception
ERROR_CLASSES: dict[str, type[StudentCodeError]] = {
    e.__name__: _both(e.__name__, e) for e in _BUILTIN_ERRORS
}


def student_error(
    ename: str,
    message: str,
    bases: Sequence[object] = (),
    classes: Callable[[str], type | None] | None = None,
) -> StudentCodeError:
    """Return the error a student's function raised in the kernel, as an exception here.

    Parameters
    ----------
    ename, message : str
        The exception's class name and text, from the kernel.
    bases : sequence of str
        The names of its classes, most derived first (``type(exc).__mro__`` in the kernel), so a
        student's own ``class Oops(ValueError)`` is caught by ``except ValueError``.
    classes : callable, optional
        ``classes(name) -> type | None``: an exception class of the teacher's read-only cells of
        that name (``NegativeInputError``), which the error then also is.
    """
    ename, message = str(ename)[:80], str(message)[:2000]
    if ename == "CellTimeoutError":
        ename, message = (
            "Timeout",
            "it ran longer than the time limit: is there a loop that never ends?",
        )
    names = [ename, *(str(b)[:80] for b in list(bases)[:20])]
    for name in names:
        teacher = classes(name) if classes else None
        if isinstance(teacher, type) and issubclass(teacher, StudentCodeError):
            made: StudentCodeError = teacher(ename, message)  # a student's own class, as seen
            return made
        if teacher is not None:
            maybe = _teacher_error(ename, message, teacher)
            if maybe is not None:
                return maybe
        if name in ERROR_CLASSES:
            return ERROR_CLASSES[name](ename, message)
    return StudentCodeError(ename, message)


def _teacher_error(ename: str, message: str, teacher: type) -> StudentCodeError | None:
    """Make a StudentCodeError that is also the teacher's exception class (None if they cannot)."""
    try:
        cls = type(ename, (StudentCodeError, teacher), {"__module__": "student"})
        made: StudentCodeError = cls(ename, message)
        return made
    except TypeError:  # a layout conflict or an __init__ with other arguments
        return None
