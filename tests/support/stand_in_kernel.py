"""A kernel stand-in for the checking tests: requests run in this process, on a plain namespace.

The channel, trusted-checking and codec tests read a student's answers through
:func:`kernel` (``_kernel_side.py``'s text run as a kernel would run it, with ``globals()`` the
student's namespace) and grade a test cell's outputs as nbgrader does (:func:`graded`).
"""

from __future__ import annotations

from collections.abc import Callable

from attention_grader.channel.answer_channel import AnswerChannel
from attention_grader.checking.trusted import TrustedChecker
from attention_grader.checking.trusted_cells import TrustedCells
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell
from nbgrader.utils import determine_grade


def kernel(namespace: dict) -> Callable[[str], list]:
    """A stand-in kernel: runs each request's code on ``namespace`` and returns its outputs."""

    def run(source: str) -> list:
        shown = []
        import IPython.display

        real = IPython.display.display
        IPython.display.display = lambda data, raw=False: shown.append(data)
        try:
            exec(source, {"globals": lambda: namespace})
        except Exception as exc:  # as a kernel reports an error
            return [NotebookNode(output_type="error", ename=type(exc).__name__, evalue=str(exc))]
        finally:
            IPython.display.display = real
        return [NotebookNode(output_type="display_data", data=d, metadata={}) for d in shown]

    return run


def graded(outputs: list, points: float = 2.0) -> float:
    """The points nbgrader gives a test cell of ``points`` with these ``outputs``."""
    cell = new_code_cell("", outputs=outputs)
    cell.metadata["nbgrader"] = {"grade": True, "solution": False, "points": points}
    return determine_grade(cell)[0]


def checker(student: dict, tests: dict, **cells) -> TrustedChecker:
    """A trusted checker of ``tests`` (grade id -> source) reading ``student`` through
    :func:`kernel`; ``cells`` are :class:`TrustedCells`' other fields (``locked``, ``answers``).
    """
    return TrustedChecker(TrustedCells(tests=tests, **cells), AnswerChannel(kernel(student)))
