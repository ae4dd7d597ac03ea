"""Tampering is flagged for a human look: edited test cells, and the tools of tampering in code.

Since the hidden tests run in the grader's process (:mod:`attention_grader.trusted`), nothing a
submission does in its kernel can change a check, so these flags change no score; they tell the
teacher where to look. One nbgrader preprocessor, :class:`ScanSubmission`, runs first in the
sanitise step (``attention_grader.pipeline.configure``) and records, with
:func:`attention_grader.summary.record_flags`:

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

from nbformat import NotebookNode
from nbformat.v4 import new_code_cell
from nbgrader import utils as nbutils
from nbgrader.preprocessors import NbGraderPreprocessor

from .kernel_tests import KERNEL_TEST
from .kernel_tests import MEANING as KERNEL_TEST_MEANING
from .needs_teacher import MEANING as NEEDS_TEACHER_MEANING
from .needs_teacher import NEEDS_TEACHER
from .summary import GRADER_METADATA, Flag, record_flags

__all__ = [
    "TAMPER_KINDS",
    "scan_source",
    "scan_notebook",
    "shadowing_files",
    "test_cell_changes",
    "ScanSubmission",
    "unmask_forged_cells",
]

#: Flag kinds and what they mean, for the batch summary and the teacher's report.
TAMPER_KINDS = {
    "edited_test_cell": "edited a test cell (restored from the gradebook)",
    "deleted_test_cell": "deleted a test cell (restored from the gradebook)",
    "edited_locked_cell": "edited a read-only cell (restored from the gradebook)",
    "forged_cell": "added a cell dressed as a graded or read-only cell (made a plain cell)",
    "builtins": "redefined or shadowed builtins (assert, AssertionError, ...)",
    "monkeypatch": "monkeypatched numpy or the check module",
    "sys_modules": "tampered with sys.modules or the import system",
    "fake_answer": "handed in an object that fakes equality instead of numbers",
    "fake_output": "printed fake 'passed' text",
    "exit": "called sys.exit / os._exit / killed the kernel",
    "traceback": "disabled or hid tracebacks",
    "kernel_hook": "hooked IPython or kernel internals",
    "introspection": "used frames, gc or ctypes",
    "grading_files": "referred to grading folders (source, gradebook, autograded, feedback, ...)",
    "network": "opened network connections",
    "subprocess": "started other programs",
    "unreadable_answer": "answers the grader could not read as plain data (those tests scored 0)",
    "timeout": "ran out of time (cell limit or notebook budget)",
    "library_use": "used a finished implementation in an implement-it exercise (not in its kernel)",
    "grading_budget": "grading it took longer than the per-submission budget (stopped there)",
    "output_truncated": "printed more output than the grader stores",
    NEEDS_TEACHER: NEEDS_TEACHER_MEANING,
    KERNEL_TEST: KERNEL_TEST_MEANING,
}


# --------------------------------------------------------------------------- static scan

_P = re.compile
_BUILTIN_NAMES = r"(AssertionError|Exception|BaseException|isinstance|len|abs|float|int|round|all"
_BUILTIN_NAMES += r"|any|sum|max|min|bool|print|range|type|repr|str|hasattr|getattr|__import__)"
_STATIC_RULES: list[tuple[str, re.Pattern, str]] = [
    ("builtins", _P(r"\b__builtins__\b|\bimport\s+builtins\b|\bbuiltins\s*\."), "touches builtins"),
    ("builtins", _P(rf"^\s*{_BUILTIN_NAMES}\s*=[^=]", re.M), "assigns to a builtin's name"),
    ("builtins", _P(rf"^\s*(def|class)\s+{_BUILTIN_NAMES}\b", re.M), "redefines a builtin"),
    (
        "monkeypatch",
        _P(r"\b(np|numpy|checks|attention_lab|npt|testing)(\.\w+)+\s*=[^=]"),
        "assigns into numpy or the check module",
    ),
    (
        "monkeypatch",
        _P(r"\bsetattr\s*\(\s*(np|numpy|checks|attention_lab)\b"),
        "setattr on numpy/check module",
    ),
    (
        "monkeypatch",
        _P(r"\.\s*__(code|defaults|kwdefaults|globals|class|dict)__\s*=[^=]"),
        "rewrites a function's code or an object's class",
    ),
    ("sys_modules", _P(r"\bsys\s*\.\s*(modules|meta_path|path_hooks)\b"), "uses sys.modules"),
    ("sys_modules", _P(r"\bimportlib\b|\b__import__\b"), "uses the import machinery"),
    (
        "exit",
        _P(r"\bsys\s*\.\s*exit\b|\bos\s*\.\s*(_exit|abort|kill)\b|^\s*(exit|quit)\s*\(", re.M),
        "exits the kernel",
    ),
    (
        "traceback",
        _P(r"showtraceback|tracebacklimit|excepthook|%xmode|set_custom_exc|InteractiveTB"),
        "hides tracebacks",
    ),
    (
        "fake_output",
        _P(r"print\s*\(.*(pass|✓|✔|correct|success|all tests|well done)", re.I),
        "prints success text",
    ),
    (
        "grading_files",
        _P(r"gradebook|autograded|feedback|exchange|\bsource/|submitted/|release/|\.\./|nbgrader"),
        "refers to grading folders",
    ),
    (
        "fake_answer",
        _P(
            r"def\s+__(eq|ne|array|array_function|array_ufunc|array_wrap|bool|float)__|__array_priority__"
        ),
        "defines equality/array dunders",
    ),
    (
        "kernel_hook",
        _P(r"get_ipython|\bIPython\b|events\s*\.\s*register|transformers|run_cell|\bkernel\b"),
        "hooks IPython/the kernel",
    ),
    ("kernel_hook", _P(r"\bsys\s*\.\s*(settrace|setprofile|addaudithook)\b"), "installs a tracer"),
    (
        "introspection",
        _P(r"\bctypes\b|\bgc\s*\.|_getframe|\bf_back\b|\bf_locals\b|\bf_globals\b|currentframe"),
        "inspects frames or memory",
    ),
    ("network", _P(r"\bsocket\b|urllib|requests\.|http\.client"), "opens network connections"),
    ("subprocess", _P(r"\bsubprocess\b|os\s*\.\s*(system|popen|exec\w*|fork)\b"), "runs programs"),
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


def _where(cell, index: int) -> str:
    return cell.metadata.get("nbgrader", {}).get("grade_id") or f"cell {index + 1}"


def scan_notebook(nb: NotebookNode, instructor_ids: set[str] | None = None) -> list[Flag]:
    """Static scan of every code cell the student could have written.

    Cells that are locked (read-only or tests; OverwriteCells restores them) are skipped, as are
    cells whose grade id is in ``instructor_ids`` (locked cells according to the gradebook).
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
        for kind, what in scan_source(cell.source):
            flags.append(Flag(kind, f"{_where(cell, index)}: {what} [static scan; flag only]"))
    return flags


def shadowing_files(folder: str | Path) -> list[Flag]:
    """Handed-in ``.py`` files or packages named like an installed module (``numpy.py``,
    ``ipykernel_launcher.py``): imported instead of the real one when the folder is on sys.path."""
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
            flags.append(Flag("sys_modules", detail))
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
    return cell.source


def _gradebook_cells(db_url: str, assignment: str, notebook: str) -> list[_SourceCell]:
    """The gradebook's cells of one notebook, with the source the student was given."""
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
    submitted = {}
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
                    "deleted_test_cell" if src.is_test else "edited_locked_cell",
                    f"{src.name}: the {kind} cell is missing from the submission (restored)",
                )
            )
        elif _norm(cell.source) != _norm(src.released):
            flags.append(
                Flag(
                    "edited_test_cell" if src.is_test else "edited_locked_cell",
                    f"{src.name}: the {kind} cell was edited (restored)",
                )
            )
    return flags


# --------------------------------------------------------------------------- the preprocessor


def _forget_forged_metadata(nb: NotebookNode) -> None:
    """A student's own ``attention_grader`` metadata (notebook or cells) is not grading's."""
    nb.metadata.pop(GRADER_METADATA, None)
    for cell in nb.cells:
        cell.metadata.pop(GRADER_METADATA, None)


def unmask_forged_cells(nb: NotebookNode, known: set[str]) -> list[Flag]:
    """Strip nbgrader metadata from cells the gradebook does not know, and from every repeat of
    a known one (a student's cell dressed as a test); nbgrader would refuse the whole notebook."""
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
        flags.append(Flag("forged_cell", f"cell {index + 1} claimed to be {why} {grade_id!r}"))
    return flags


class ScanSubmission(NbGraderPreprocessor):
    """Sanitise step, before OverwriteCells: flag edited or deleted read-only and test cells, and
    the tools of tampering in the student's cells and files; make forged cells plain cells.
    Changes no grade."""

    def preprocess(self, nb, resources):
        _forget_forged_metadata(nb)
        info = (resources or {}).get("nbgrader", {})
        instructor = None
        if all(info.get(k) for k in ("db_url", "assignment", "notebook")):
            cells = _gradebook_cells(info["db_url"], info["assignment"], info["notebook"])
            record_flags(nb, unmask_forged_cells(nb, {c.name for c in cells}))
            record_flags(nb, test_cell_changes(nb, cells))
            instructor = {c.name for c in cells if c.locked or c.is_test} or None
        record_flags(nb, scan_notebook(nb, instructor))
        folder = (resources or {}).get("metadata", {}).get("path")
        if folder:
            record_flags(nb, shadowing_files(folder))
        return nb, resources
