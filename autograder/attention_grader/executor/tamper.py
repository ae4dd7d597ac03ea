"""Tampering is flagged for a human look: edited test cells, and the tools of tampering in code.

Since the hidden tests run in the grader's process (:mod:`attention_grader.checking.trusted`), nothing a
submission does in its kernel can change a check, so these flags change no score; they tell the
teacher where to look. One nbgrader preprocessor, :class:`ScanSubmission`, runs first in the
sanitise step (``attention_grader.pipeline.configure``) and records, with
:func:`attention_grader.common.flag_store.record_flags` (the kinds are the registry's tampering entries,
:data:`TAMPER_KINDS`):

1. **Structure** (:func:`test_cell_changes`): the submitted notebook's read-only and test cells
   compared with the gradebook. nbgrader's OverwriteCells restores them (and re-adds deleted
   ones with ``add_missing_cells``); this says that it happened (``edited_test_cell``,
   ``deleted_test_cell``, ``edited_locked_cell``).
2. **Static scan** (:func:`scan_source`): student-written cells searched for redefined builtins,
   monkeypatched modules, ``sys.modules``, exits, hidden tracebacks, fake "passed" prints,
   grading-folder paths, equality-faking classes, IPython/kernel hooks, frame/gc/ctypes tricks,
   sockets and subprocesses; and handed-in files named like installed modules
   (:func:`shadowing_files`).

It also drops any ``attention_grader`` metadata the student put in the notebook, so only what
grading records there counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell
from nbgrader import utils as nbutils
from nbgrader.preprocessors import NbGraderPreprocessor

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import (
    BUILTINS,
    DELETED_TEST_CELL,
    EDITED_LOCKED_CELL,
    EDITED_TEST_CELL,
    EXIT,
    FAKE_ANSWER,
    FAKE_OUTPUT,
    FORGED_CELL,
    GRADER_METADATA,
    GRADING_FILES,
    INTROSPECTION,
    KERNEL_HOOK,
    MONKEYPATCH,
    NETWORK,
    SUBPROCESS,
    SYS_MODULES,
    TRACEBACK,
    Flag,
    tampering_kinds,
)
from attention_grader.common.run_cache import read_once

__all__ = [
    "TAMPER_KINDS",
    "released_lines",
    "scan_source",
    "scan_notebook",
    "shadowing_files",
    "test_cell_changes",
    "ScanSubmission",
    "unmask_forged_cells",
]

#: id -> what it means, for every tampering kind (the registry's, :mod:`attention_grader.common.flags`).
TAMPER_KINDS = tampering_kinds()


# --------------------------------------------------------------------------- static scan

_P = re.compile
_BUILTIN_NAMES = r"(AssertionError|Exception|BaseException|isinstance|len|abs|float|int|round|all"
_BUILTIN_NAMES += r"|any|sum|max|min|bool|print|range|type|repr|str|hasattr|getattr|__import__)"
_STATIC_RULES: list[tuple[str, re.Pattern[str], str]] = [
    (
        BUILTINS.id,
        _P(r"\b__builtins__\b|\bimport\s+builtins\b|\bbuiltins\s*\."),
        "touches builtins",
    ),
    (BUILTINS.id, _P(rf"^\s*{_BUILTIN_NAMES}\s*=[^=]", re.M), "assigns to a builtin's name"),
    (BUILTINS.id, _P(rf"^\s*(def|class)\s+{_BUILTIN_NAMES}\b", re.M), "redefines a builtin"),
    (
        MONKEYPATCH.id,
        _P(r"\b(np|numpy|checks|attention_lab|npt|testing)(\.\w+)+\s*=[^=]"),
        "assigns into numpy or the check module",
    ),
    (
        MONKEYPATCH.id,
        _P(r"\bsetattr\s*\(\s*(np|numpy|checks|attention_lab)\b"),
        "setattr on numpy/check module",
    ),
    (
        MONKEYPATCH.id,
        _P(r"\.\s*__(code|defaults|kwdefaults|globals|class|dict)__\s*=[^=]"),
        "rewrites a function's code or an object's class",
    ),
    (SYS_MODULES.id, _P(r"\bsys\s*\.\s*(modules|meta_path|path_hooks)\b"), "uses sys.modules"),
    (SYS_MODULES.id, _P(r"\bimportlib\b|\b__import__\b"), "uses the import machinery"),
    (
        EXIT.id,
        _P(r"\bsys\s*\.\s*exit\b|\bos\s*\.\s*(_exit|abort|kill)\b|^\s*(exit|quit)\s*\(", re.M),
        "exits the kernel",
    ),
    (
        TRACEBACK.id,
        _P(r"showtraceback|tracebacklimit|excepthook|%xmode|set_custom_exc|InteractiveTB"),
        "hides tracebacks",
    ),
    (
        FAKE_OUTPUT.id,
        _P(r"print\s*\(.*(pass|✓|✔|correct|success|all tests|well done)", re.I),
        "prints success text",
    ),
    (
        GRADING_FILES.id,
        _P(r"gradebook|autograded|feedback|exchange|\bsource/|submitted/|release/|\.\./|nbgrader"),
        "refers to grading folders",
    ),
    (
        FAKE_ANSWER.id,
        _P(
            r"def\s+__(eq|ne|array|array_function|array_ufunc|array_wrap|bool|float)__|__array_priority__"
        ),
        "defines equality/array dunders",
    ),
    (
        KERNEL_HOOK.id,
        _P(r"get_ipython|\bIPython\b|events\s*\.\s*register|transformers|run_cell|\bkernel\b"),
        "hooks IPython/the kernel",
    ),
    (KERNEL_HOOK.id, _P(r"\bsys\s*\.\s*(settrace|setprofile|addaudithook)\b"), "installs a tracer"),
    (
        INTROSPECTION.id,
        _P(r"\bctypes\b|\bgc\s*\.|_getframe|\bf_back\b|\bf_locals\b|\bf_globals\b|currentframe"),
        "inspects frames or memory",
    ),
    (NETWORK.id, _P(r"\bsocket\b|urllib|requests\.|http\.client"), "opens network connections"),
    (SUBPROCESS.id, _P(r"\bsubprocess\b|os\s*\.\s*(system|popen|exec\w*|fork)\b"), "runs programs"),
]


def scan_source(source: str) -> list[tuple[str, str]]:
    """Search one cell's code for tampering tools.

    Parameters
    ----------
    source : str
        The cell's source.

    Returns
    -------
    list of (kind, description)
        One entry per rule matched, with the line number and the matching text.
    """
    found = []
    for kind, pattern, what in _STATIC_RULES:
        match = pattern.search(source)
        if match:
            line = source.count("\n", 0, match.start()) + 1
            snippet = source.splitlines()[line - 1].strip()[:60] if source else ""
            found.append((kind, f"{what} (line {line}: {snippet!r})"))
    return found


def _where(cell: NotebookNode, index: int) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index + 1}"


def released_lines(sources: Iterable[str]) -> frozenset[str]:
    """Return the stripped lines of code the teacher released (plain cells, code above a solution)."""
    return frozenset(line.strip() for source in sources for line in source.splitlines())


def _students_lines(source: str, teachers: frozenset[str]) -> str:
    """``source`` with the lines the teacher released blanked (line numbers kept)."""
    if not teachers:
        return source
    return "\n".join("" if line.strip() in teachers else line for line in source.split("\n"))


def scan_notebook(
    nb: NotebookNode,
    instructor_ids: set[str] | None = None,
    teachers: frozenset[str] = frozenset(),
) -> list[Flag]:
    """Scan every code cell the student could have written, statically.

    Cells that are locked (read-only or tests; OverwriteCells restores them) are skipped, as are
    cells whose grade id is in ``instructor_ids`` (locked cells according to the gradebook).
    Lines the teacher released (``teachers``, from :func:`released_lines`: a plain cell that
    prints "Success!", ``IntSlider(min=1)`` split over lines) are the teacher's, not a
    student's doing, and are not read.
    """
    flags = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if instructor_ids is not None and grade_id in instructor_ids:
            continue
        if instructor_ids is None and nbutils.is_locked(cell):
            continue
        for kind, what in scan_source(_students_lines(cell.source, teachers)):
            flags.append(Flag(kind, f"{_where(cell, index)}: {what} [static scan; flag only]"))
    return flags


def shadowing_files(folder: str | Path) -> list[Flag]:
    """Find handed-in ``.py`` files or packages named like an installed module.

    ``numpy.py`` or ``ipykernel_launcher.py`` is imported instead of the real one when the
    folder is on sys.path.
    """
    import importlib.util

    here = Path(folder).resolve()
    flags = []
    for path in sorted(here.iterdir()) if here.is_dir() else []:
        name = path.stem if path.suffix == ".py" else path.name
        if not (path.suffix == ".py" or (path / "__init__.py").exists()):
            continue
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        origin = Path(spec.origin).resolve() if spec and spec.origin else None
        if spec is not None and (origin is None or here not in origin.parents):
            detail = f"handed-in {path.name} is named like the installed module '{name}'"
            flags.append(Flag(SYS_MODULES, detail))
    return flags


# --------------------------------------------------------------------------- structure


@dataclass(frozen=True)
class _SourceCell:
    name: str
    cell_type: str
    locked: bool
    is_test: bool
    released: str  # the source as the student received it (hidden tests removed)


def _released_source(source: str) -> str:
    from nbgrader.preprocessors import ClearHiddenTests

    cell = new_code_cell(source)
    ClearHiddenTests()._remove_hidden_test_region(cell)
    released: str = cell.source
    return released


def _gradebook_cells(db_url: str, assignment: str, notebook: str) -> list[_SourceCell]:
    """Return the gradebook's cells of one notebook, with the source the student was given."""
    from nbgrader.api import Gradebook, MissingEntry

    # Notebooks are found by assignment name; the course id does not matter for reading them.
    with Gradebook(db_url) as gb:
        try:
            nb = gb.find_notebook(notebook, assignment)
        except MissingEntry:
            return []
        solutions = {c.name for c in nb.solution_cells}
        grades = {c.name for c in nb.grade_cells}
        return [
            _SourceCell(
                c.name,
                c.cell_type,
                bool(c.locked),
                c.name in grades and c.name not in solutions and c.cell_type == "code",
                _released_source(c.source or ""),
            )
            for c in nb.source_cells
        ]


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def test_cell_changes(nb: NotebookNode, source_cells: Iterable[_SourceCell]) -> list[Flag]:
    """Flags for locked/test cells the student edited or deleted, compared with the gradebook."""
    submitted: dict[str, NotebookNode] = {}
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id:
            submitted.setdefault(grade_id, cell)
    flags = []
    for src in source_cells:
        if not (src.locked or src.is_test):
            continue
        cell = submitted.get(src.name)
        kind = "test" if src.is_test else "locked"
        if cell is None:
            flags.append(
                Flag(
                    DELETED_TEST_CELL if src.is_test else EDITED_LOCKED_CELL,
                    f"{src.name}: the {kind} cell is missing from the submission (restored)",
                )
            )
        elif _norm(cell.source) != _norm(src.released):
            flags.append(
                Flag(
                    EDITED_TEST_CELL if src.is_test else EDITED_LOCKED_CELL,
                    f"{src.name}: the {kind} cell was edited (restored)",
                )
            )
    return flags


# --------------------------------------------------------------------------- the preprocessor


def _forget_forged_metadata(nb: NotebookNode) -> None:
    """Drop a student's own ``attention_grader`` metadata (notebook or cells): not grading's."""
    nb.metadata.pop(GRADER_METADATA, None)
    for cell in nb.cells:
        cell.metadata.pop(GRADER_METADATA, None)


def unmask_forged_cells(nb: NotebookNode, known: set[str]) -> list[Flag]:
    """Strip nbgrader metadata from cells the gradebook does not know and from repeats.

    A repeat of a known cell is a student's cell dressed as a test; nbgrader would refuse the
    whole notebook.
    """
    flags, seen = [], set()
    for index, cell in enumerate(nb.cells):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is None:
            continue
        if grade_id in known and grade_id not in seen:
            seen.add(grade_id)
            continue
        del cell.metadata["nbgrader"]
        why = "a repeat of" if grade_id in known else "unknown to the gradebook:"
        flags.append(Flag(FORGED_CELL, f"cell {index + 1} claimed to be {why} {grade_id!r}"))
    return flags


class ScanSubmission(NbGraderPreprocessor):
    """Sanitise step, before OverwriteCells: flag tampering, make forged cells plain cells.

    It flags edited or deleted read-only and test cells, and the tools of tampering in the
    student's cells and files. Changes no grade.
    """

    def _released_sources(self, info: dict[str, Any]) -> list[str]:
        """Return the code the teacher released with this notebook, from ``source/``."""
        from attention_grader.checking.test_styles import released_code
        from attention_grader.config.course import source_notebook

        if not (info.get("assignment") and info.get("notebook")):
            return []
        source = source_notebook(info["assignment"], info["notebook"], self.config, self.log)
        if source is None:
            return []
        return [
            released_code(c.source)
            for c in source.cells
            if c.cell_type == "code" and not c.metadata.get("nbgrader", {}).get("grade")
        ]

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        _forget_forged_metadata(nb)
        info = (resources or {}).get("nbgrader", {})
        instructor = None
        if all(info.get(k) for k in ("db_url", "assignment", "notebook")):
            where = (info["db_url"], info["assignment"], info["notebook"])
            cells = read_once(("gradebook_cells", *where), lambda: tuple(_gradebook_cells(*where)))
            record_flags(unmask_forged_cells(nb, {c.name for c in cells}), notebook=nb)
            record_flags(test_cell_changes(nb, cells), notebook=nb)
            instructor = {c.name for c in cells if c.locked or c.is_test} or None
        named = ("released_lines", str(info.get("assignment")), str(info.get("notebook")))
        teachers = read_once(named, lambda: released_lines(self._released_sources(info)))
        record_flags(scan_notebook(nb, instructor, teachers), notebook=nb)
        folder = (resources or {}).get("metadata", {}).get("path")
        if folder:
            record_flags(shadowing_files(folder), notebook=nb)
        return nb, resources
