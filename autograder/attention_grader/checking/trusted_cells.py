"""The teacher's code of one notebook, read from the gradebook: what trusted checking trusts.

The tests and read-only cells come from the gradebook (never from the submitted notebook, whose
cells and metadata the student controls); the names the teacher's solutions define (the
answers) and the libraries the released code imports come from the teacher's ``source/``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from nbformat import NotebookNode

from attention_grader.checking.locked_names import locked_bindings
from attention_grader.checking.test_styles import (
    imported_libraries,
    released_code,
    solution_names,
)

__all__ = [
    "TrustedCells",
    "load_trusted_cells",
    "plain_cells",
    "solution_and_plain_cells",
    "trusted_cells_of",
]


@dataclass(frozen=True)
class TrustedCells:
    """The teacher's code of one notebook, from the gradebook.

    Attributes
    ----------
    tests : dict of str to str
        grade_id -> source of each autograder test cell, hidden tests included.
    locked : dict of str to str
        grade_id -> source of each read-only code cell that is not a test (imports, data).
    answers : frozenset of str
        Names the teacher's solutions define: the student's answers (never a library).
    libraries : dict of str to str
        Names the released notebook's own code imports (outside the solutions), as dotted
        paths: the test gets the grader's own module or function, never the student's binding.
    """

    tests: dict[str, str] = field(default_factory=dict)
    locked: dict[str, str] = field(default_factory=dict)
    answers: frozenset[str] = frozenset()
    libraries: dict[str, str] = field(default_factory=dict)

    @cached_property
    def locked_names(self) -> frozenset[str]:
        """Every name the read-only cells bind.

        Never asked of the student's kernel, except :attr:`locked_data` her own cells change.
        """
        return locked_bindings(self.locked.values())[0]

    @cached_property
    def locked_data(self) -> frozenset[str]:
        """The names read-only cells bind by assignment (data, not imports, functions, classes)."""
        return locked_bindings(self.locked.values())[1]


def trusted_cells_of(
    cells: Iterable[tuple[str, bool]], tests: dict[str, str], locked: dict[str, str]
) -> TrustedCells:
    """Add what the teacher's other code cells say (answers, libraries) to tests and locked cells.

    ``cells`` are ``(source, is_solution)`` pairs of the source notebook's code cells that are
    neither tests nor read-only: solution cells and plain cells students receive as they are.
    """
    answers, libraries = set(), {}
    for source, is_solution in cells:
        # A plain cell's names live in the student's kernel too (the student may edit it):
        # a test's ``del squares`` ... restore is followed there wherever ``squares`` is defined.
        answers |= solution_names(source if is_solution else released_code(source))
        libraries.update(imported_libraries(released_code(source) if is_solution else source))
    libraries = {k: v for k, v in libraries.items() if k not in answers}
    return TrustedCells(tests, locked, frozenset(answers), libraries)


def load_trusted_cells(
    db_url: str, assignment: str, notebook: str, source_notebook: NotebookNode | None = None
) -> TrustedCells:
    """Read the test and read-only code cells of ``notebook`` from the gradebook.

    ``source_notebook`` (the teacher's, from ``source/``) adds the plain cells' imports.
    """
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            nb = gb.find_notebook(notebook, assignment)
        except MissingEntry:
            return TrustedCells()
        solutions = {c.name for c in nb.solution_cells}
        graded = {c.name for c in nb.grade_cells if c.cell_type == "code"}
        tests, locked, others = {}, {}, []
        for cell in nb.source_cells:
            if cell.cell_type != "code":
                continue
            if cell.name in solutions:
                others.append((cell.source or "", True))
            elif cell.name in graded:
                tests[cell.name] = cell.source or ""
            elif cell.locked:
                locked[cell.name] = cell.source or ""
    if source_notebook is not None:
        # The gradebook keeps solution cells as released (solutions cleared): the teacher's
        # solutions (the names they define) and the plain cells come from source/.
        others = solution_and_plain_cells(source_notebook)
    return trusted_cells_of(others, tests, locked)


def solution_and_plain_cells(nb: NotebookNode) -> list[tuple[str, bool]]:
    """``(source, is_solution)`` of a source notebook's solution cells and plain code cells."""
    solutions = [
        (c.source, True)
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
    ]
    return solutions + plain_cells(nb)


def plain_cells(nb: NotebookNode) -> list[tuple[str, bool]]:
    """Return a source notebook's code cells without nbgrader metadata, as ``(source, False)``."""
    return [
        (c.source, False)
        for c in nb.cells
        if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade_id")
    ]
