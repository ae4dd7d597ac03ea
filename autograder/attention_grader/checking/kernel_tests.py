"""The last resort, per cell and opt-in: a test cell the teacher marks to run in the student's kernel.

Some tests cannot be graded outside the student's kernel (a spy that rebinds a student's
recursive function, a patched builtin; docs/authoring.md, "Test styles"). A teacher may mark
such a test cell, in ``source/`` only, with the cell metadata::

    "attention_grader": {"run_in_kernel": true}

The mark is read from the teacher's source notebook, never from a submission (a student's
``attention_grader`` metadata is dropped at intake). The marked test's code, from the
gradebook, then runs in the student's kernel as plain nbgrader runs every test. That costs what
trusted checking exists to prevent: the student's code can read the test and change its result
(rewrite the check, fake the kernel's reply). So every grade it gives is flagged
``kernel_test`` (:data:`attention_grader.common.flags.KERNEL_TEST`), listed in the batch summary and
the report, and the release check grades it the same way (in the kernel).
"""

from __future__ import annotations

from collections.abc import Container

from nbformat import NotebookNode

from attention_grader.common.flags import GRADER_METADATA

__all__ = ["RUN_IN_KERNEL", "kernel_test_ids"]

#: The key of the mark under the cell's ``attention_grader`` metadata.
RUN_IN_KERNEL = "run_in_kernel"


def kernel_test_ids(source_notebook: NotebookNode | None, tests: Container[str]) -> set[str]:
    """Return the grade_ids of test cells ``source_notebook`` marks to run in the kernel."""
    if source_notebook is None:
        return set()
    marked: set[str] = set()
    for cell in source_notebook.cells:
        meta = cell.metadata.get(GRADER_METADATA, {})
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if isinstance(meta, dict) and meta.get(RUN_IN_KERNEL) is True and grade_id in tests:
            marked.add(grade_id)
    return marked
