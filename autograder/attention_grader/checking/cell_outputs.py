"""What a trusted test leaves in the graded notebook: the outputs nbgrader reads, cut to size.

An ``error`` output fails the test (its message is the check's feedback), an
``execute_result`` number is partial credit, nothing is full marks; every text is cut at
``c.Answers.max_output_chars``. :func:`quiet_run` is how a test runs in the grader's process:
its prints captured, the grader's own warnings dropped.
"""

from __future__ import annotations

import contextlib
import io
import sys
import warnings
from collections.abc import Iterator

import numpy as np
from nbformat import NotebookNode

__all__ = ["error_output", "finished_outputs", "quiet_run", "traceback_lines"]


def error_output(
    ename: str, evalue: str, cut: int, traceback: list[str] | None = None
) -> NotebookNode:
    """Return an error output, its message cut at ``cut`` characters (``c.Answers.max_output_chars``)."""
    evalue = evalue[:cut]
    return NotebookNode(
        output_type="error",
        ename=ename,
        evalue=evalue,
        traceback=traceback or [f"{ename}: {evalue}"],
    )


def traceback_lines(exc: BaseException, cut: int) -> list[str]:
    """Return the one-line traceback a check gives (``_render_traceback_``), never test code."""
    render = getattr(exc, "_render_traceback_", None)
    if callable(render):
        with contextlib.suppress(Exception):
            lines = render()
            if isinstance(lines, list) and all(isinstance(x, str) for x in lines):
                return [line[:cut] for line in lines]
    return [f"{type(exc).__name__}: {str(exc)[:cut]}"]


@contextlib.contextmanager
def quiet_run(out: io.StringIO, err: io.StringIO, import_dirs: list[str]) -> Iterator[None]:
    """Capture stdout and stderr; drop the grader's own warnings (its numpy is not the kernel's)."""
    added = [d for d in import_dirs if d not in sys.path]
    sys.path[:0] = added
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            warnings.catch_warnings(),
            np.errstate(all="ignore"),
        ):
            warnings.simplefilter("ignore")
            yield
    finally:
        for d in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(d)


def finished_outputs(stderr: str, stdout: str, value: object, cut: int) -> list[NotebookNode]:
    """Return the outputs of a test that ran to its end: what it wrote, and its value if any.

    ``stderr`` is said, not shown (a test cell with stderr output earns nothing, as in
    nbgrader); ``stdout`` and the value's ``repr`` are cut at ``cut`` characters.
    """
    outputs = []
    if stderr:
        outputs.append(NotebookNode(output_type="stream", name="stderr", text=stderr))
    if stdout:
        outputs.append(NotebookNode(output_type="stream", name="stdout", text=stdout[:cut]))
    if value is not None:
        outputs.append(
            NotebookNode(
                output_type="execute_result",
                execution_count=None,
                metadata={},
                data={"text/plain": repr(value)[:cut]},
            )
        )
    return outputs
