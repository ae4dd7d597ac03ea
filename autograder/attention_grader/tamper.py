"""Tamper resistance for autograding: no points a submission did not earn, and every attempt flagged.

Three layers, each a small nbgrader/nbconvert preprocessor or function:

1. **Structure** (:func:`test_cell_changes`, :class:`ScanSubmission`): compare the submitted
   notebook's locked and test cells with the gradebook's source cells. nbgrader's OverwriteCells
   already restores edited cells (and re-adds deleted ones with ``add_missing_cells``); this
   *flags* the attempt (``edited_test_cell``, ``deleted_test_cell``, ``edited_locked_cell``).
2. **Static scan** (:func:`scan_source`): student-written cells are searched for the tools of
   tampering: redefined builtins, monkeypatched numpy or check modules, ``sys.modules``, exits,
   disabled tracebacks, fake "passed" prints, grading-folder paths, equality-faking classes,
   IPython/kernel hooks, frame/gc/ctypes tricks, sockets, subprocesses. Flags only.
3. **Runtime guard** (:class:`InsertGuards` + :class:`CollectGuardReports`): a hidden first cell
   snapshots builtins, numpy, the check modules, ``sys`` and IPython hooks before any student code
   runs (``_kernel_guard.py``); hidden cells before each test restore that snapshot and neutralise
   fake answers, hidden cells after each test detect patching *during* the test (that test is
   zeroed). A guard that does not report with its nonce, or whose deliberate error is swallowed,
   means the kernel's machinery was hijacked: every test of the notebook is zeroed (fail closed).

Flags are written to the autograded notebook (``metadata.attention_grader.tamper_flags``), to
``resources["attention_grader_flags"]`` for :mod:`attention_grader.grade`'s batch summary, and are
read back by :func:`notebook_flags` / :func:`collect_flags`.

Plain nbgrader: call :func:`configure` from ``nbgrader_config.py``. With ``attention_grader.grade``:
pass :func:`grade_hooks`.
"""

from __future__ import annotations

import ast
import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell
from nbgrader import utils as nbutils
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List, Unicode

from .sandbox import execution_flags

__all__ = [
    "TAMPER_KINDS",
    "TamperFlag",
    "scan_source",
    "scan_notebook",
    "shadowing_files",
    "test_cell_changes",
    "ScanSubmission",
    "InsertGuards",
    "CollectGuardReports",
    "notebook_flags",
    "collect_flags",
    "format_flags",
    "post_check",
    "grade_hooks",
    "configure",
]

#: Flag kinds and what they mean, for the batch summary and the teacher's report.
TAMPER_KINDS = {
    "edited_test_cell": "edited a test cell (restored from the gradebook)",
    "deleted_test_cell": "deleted a test cell (restored from the gradebook)",
    "edited_locked_cell": "edited a read-only cell (restored from the gradebook)",
    "builtins": "redefined or shadowed builtins (assert, AssertionError, ...)",
    "monkeypatch": "monkeypatched numpy or the check module",
    "sys_modules": "tampered with sys.modules or the import system",
    "rebound_import": "rebound a name imported by a read-only cell (np, checks, ...)",
    "fake_answer": "handed in an object that fakes equality instead of numbers",
    "fake_output": "printed fake 'passed' text or smuggled a result into a test cell",
    "exit": "called sys.exit / os._exit / killed the kernel",
    "traceback": "disabled or hid tracebacks",
    "kernel_hook": "hooked IPython or kernel internals",
    "introspection": "used frames, gc or ctypes to reach the grader's objects",
    "grading_files": "referred to grading folders (source, gradebook, autograded, feedback, ...)",
    "network": "opened network connections",
    "subprocess": "started other programs",
    "grader_hijack": "the grader's hidden checks could not run: all tests zeroed",
    "timeout": "ran out of time (notebook budget)",
}

#: Where flags travel in nbconvert resources (same key as ``attention_grader.grade.FLAGS_KEY``).
FLAGS_KEY = "attention_grader_flags"
_META = "attention_grader"
_GUARD_SOURCE = (Path(__file__).with_name("_kernel_guard.py")).read_text()
#: Per-process token: metadata written by our sanitise step carries it; a student's forged
#: ``attention_grader`` metadata does not, and is discarded.
_TOKEN = secrets.token_hex(8)

DEFAULT_PROTECTED = (
    "numpy",
    "numpy.testing",
    "numpy.linalg",
    "math",
    "os",
    "posix",
    "attention_lab",
    "attention_lab.core",
    "attention_lab.checks",
)


@dataclass(frozen=True)
class TamperFlag:
    """One tampering attempt found in a notebook.

    Attributes
    ----------
    kind : str
        A key of :data:`TAMPER_KINDS`.
    detail : str
        What and where, in one line (``"cell q2: np.allclose = ..."``).
    how : str
        ``"structure"``, ``"static"`` (source scan) or ``"runtime"`` (the guard saw it happen).
    effect : str
        What the grader did about it: ``"restored"``, ``"zeroed <cell>"``, ``"flag only"``.
    """

    kind: str
    detail: str
    how: str = "static"
    effect: str = "flag only"

    def as_tuple(self) -> tuple[str, str]:
        """``(kind, detail)`` for :mod:`attention_grader.grade` (its ``Flag``)."""
        return self.kind, f"{self.detail} [{self.how}; {self.effect}]"


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


def scan_notebook(nb: NotebookNode, instructor_ids: set[str] | None = None) -> list[TamperFlag]:
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
            flags.append(TamperFlag(kind, f"{_where(cell, index)}: {what}", "static"))
    return flags


def shadowing_files(folder: str | Path) -> list[TamperFlag]:
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
            flags.append(TamperFlag("sys_modules", detail, "static"))
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


def test_cell_changes(nb: NotebookNode, source_cells: Iterable[_SourceCell]) -> list[TamperFlag]:
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
                TamperFlag(
                    "deleted_test_cell" if src.is_test else "edited_locked_cell",
                    f"{src.name}: the {kind} cell is missing from the submission",
                    "structure",
                    "restored by nbgrader",
                )
            )
        elif _norm(cell.source) != _norm(src.released):
            flags.append(
                TamperFlag(
                    "edited_test_cell" if src.is_test else "edited_locked_cell",
                    f"{src.name}: the {kind} cell was edited",
                    "structure",
                    "restored by nbgrader",
                )
            )
    return flags


# --------------------------------------------------------------------------- metadata helpers


def _record(nb: NotebookNode, resources: dict | None, flags: Iterable[TamperFlag]) -> None:
    """Append flags to the notebook metadata and to ``resources`` (for the batch summary)."""
    meta = nb.metadata.setdefault(_META, {})
    stored = meta.setdefault("tamper_flags", [])
    for flag in flags:
        entry = asdict(flag)
        if entry in stored:
            continue
        stored.append(entry)
        if resources is not None:
            resources.setdefault(FLAGS_KEY, []).append(flag.as_tuple())


def _trusted_metadata(nb: NotebookNode) -> None:
    """Drop ``attention_grader`` metadata not written by this process (a student may forge it)."""
    meta = nb.metadata.get(_META)
    if meta is not None and meta.get("token") != _TOKEN:
        del nb.metadata[_META]


def _resources_ids(resources: dict) -> tuple[str, str, str] | None:
    info = (resources or {}).get("nbgrader", {})
    if not all(info.get(k) for k in ("db_url", "assignment", "notebook")):
        return None
    return info["db_url"], info["assignment"], info["notebook"]


# --------------------------------------------------------------------------- preprocessors


class ScanSubmission(NbGraderPreprocessor):
    """Sanitise step (before OverwriteCells): flag edited/deleted locked and test cells.

    Also discards any ``attention_grader`` metadata the student put in the notebook.
    """

    def preprocess(self, nb, resources):
        nb.metadata.pop(_META, None)
        nb.metadata[_META] = {"token": _TOKEN}
        ids = _resources_ids(resources)
        if ids is not None:
            _record(nb, None, test_cell_changes(nb, _gradebook_cells(*ids)))
        return nb, resources


class InsertGuards(NbGraderPreprocessor):
    """Before execution: static scan, then hidden guard cells around every autograder test.

    Inserted: one snapshot cell first; before each test cell a ``before`` guard (restore +
    neutralise fake answers), after it an ``after`` guard (detect patching during the test).
    """

    extra_protected_modules = List(
        Unicode(), help="Modules whose attributes the guard restores, besides the defaults."
    ).tag(config=True)

    def preprocess(self, nb, resources):
        _trusted_metadata(nb)
        for cell in nb.cells:  # a student's cell dressed up as a guard is just a cell
            cell.metadata.pop(_META, None)
        meta = nb.metadata.setdefault(_META, {})
        meta["token"] = _TOKEN
        ids = _resources_ids(resources)
        instructor = None
        if ids is not None:
            cells = _gradebook_cells(*ids)
            instructor = {c.name for c in cells if c.locked} or None
        if resources is not None and meta.get("tamper_flags"):
            # Flags from the sanitise step (same process) go to the batch summary now.
            for entry in meta["tamper_flags"]:
                resources.setdefault(FLAGS_KEY, []).append(TamperFlag(**entry).as_tuple())
        _record(nb, resources, scan_notebook(nb, instructor))
        folder = (resources or {}).get("metadata", {}).get("path")
        if folder:
            _record(nb, resources, shadowing_files(folder))

        nonce = secrets.token_hex(12)
        meta["nonce"] = nonce
        bindings = _import_bindings(c for c in nb.cells if _is_locked_code(c))
        modules = list(DEFAULT_PROTECTED) + list(self.extra_protected_modules)
        modules += sorted({m for _, m, _ in bindings} - set(modules))
        installed = list(DEFAULT_PROTECTED) + list(self.extra_protected_modules)
        cells = [_guard_cell(_init_source(nonce, modules, installed), "init", "", nonce)]
        for cell in nb.cells:
            if _is_test(cell):
                grade_id = _where(cell, len(cells))
                call = _check_source(
                    nonce, "before", grade_id, _answer_names(cell.source), bindings
                )
                cells.append(_guard_cell(call, "before", grade_id, nonce))
                cells.append(cell)
                call = _check_source(nonce, "after", grade_id, [], [])
                cells.append(_guard_cell(call, "after", grade_id, nonce))
            else:
                cells.append(cell)
        nb.cells = cells
        return nb, resources


class CollectGuardReports(NbGraderPreprocessor):
    """After execution: read the guards' reports, zero what cannot be trusted, remove the guards."""

    def preprocess(self, nb, resources):
        meta = nb.metadata.get(_META, {})
        nonce = meta.get("nonce")
        if not nonce or meta.get("token") != _TOKEN:
            return nb, resources  # InsertGuards did not run: nothing to collect
        stopped = meta.get("execution", {}).get("stopped")
        flags: list[TamperFlag] = []
        hijacked = []
        zero: dict[str, str] = {}
        for index, cell in enumerate(nb.cells):
            guard = cell.metadata.get(_META, {}).get("guard")
            if guard is None:
                if _is_test(cell):
                    flags += _smuggled_results(cell, index)
                continue
            if _never_ran(cell, stopped):
                continue
            report, problem = _read_report(cell, nonce)
            where = cell.metadata[_META].get("for") or "start"
            if problem:
                hijacked.append(f"{guard} guard of {where}: {problem}")
                continue
            for kind, detail in report["changes"]:
                if guard == "init":
                    # The snapshot itself is not pristine: nothing after it can be trusted.
                    hijacked.append(detail)
                    flags.append(TamperFlag(_kind(kind), detail, "runtime", "zeroed all tests"))
                    continue
                if guard == "after":
                    zero[where] = kind
                    effect = f"zeroed {where}"
                    detail = f"{where}: during the test, {detail}"
                else:
                    effect = "restored before the test"
                    detail = f"before {where}: {detail}" if where != "start" else detail
                flags.append(TamperFlag(_kind(kind), detail, "runtime", effect))
        nb.cells = [c for c in nb.cells if c.metadata.get(_META, {}).get("guard") is None]
        flags += [
            TamperFlag(kind, detail, "runtime", "remaining tests zeroed")
            for kind, detail in execution_flags(nb)
        ]
        if hijacked:
            flags.append(
                TamperFlag("grader_hijack", "; ".join(hijacked[:3]), "runtime", "zeroed all tests")
            )
            for cell in nb.cells:
                if _is_test(cell):
                    _zero(cell, "the grader's hidden checks were tampered with")
        for cell in nb.cells:
            kind = zero.get(_where(cell, 0)) if _is_test(cell) else None
            if kind:
                _zero(cell, f"the grader's checks were tampered with during this test ({kind})")
        _record(nb, resources, flags)
        for flag in flags:
            self.log.warning("Tampering flagged: %s: %s [%s]", flag.kind, flag.detail, flag.effect)
        return nb, resources


def _kind(kind: str) -> str:
    return kind if kind in TAMPER_KINDS else "kernel_hook"


def _never_ran(cell, stopped: str | None) -> bool:
    return bool(stopped) and any(o.get("ename") == stopped for o in cell.get("outputs", []))


def _read_report(cell, nonce: str) -> tuple[dict | None, str]:
    """The guard's one report line and canary error, or what is wrong with them."""
    prefix = f"ATTENTION-GUARD {nonce} "
    lines = [
        line
        for out in cell.get("outputs", [])
        if out.get("output_type") == "stream"
        for line in out.get("text", "").splitlines()
        if line.startswith("ATTENTION-GUARD")
    ]
    mine = [line for line in lines if line.startswith(prefix)]
    if len(lines) != 1 or len(mine) != 1:
        return None, f"expected one report, found {len(lines)}"
    canary = [
        o
        for o in cell.get("outputs", [])
        if o.get("output_type") == "error" and o.get("ename") == "GuardCanary"
    ]
    if not canary or nonce not in canary[0].get("evalue", ""):
        return None, "its deliberate error was swallowed"
    try:
        report = json.loads(mine[0][len(prefix) :])
    except json.JSONDecodeError:
        return None, "the report is garbled"
    return report, ""


def _smuggled_results(cell, index: int) -> list[TamperFlag]:
    """A test cell that failed but also shows a result before the error gets partial credit in
    nbgrader (the first ``execute_result`` wins); drop such results and flag them."""
    outputs = cell.get("outputs", [])
    errors = [i for i, o in enumerate(outputs) if o.get("output_type") == "error"]
    if not errors:
        return []
    first_error = errors[0]
    smuggled = [
        i for i, o in enumerate(outputs[:first_error]) if o.get("output_type") == "execute_result"
    ]
    if not smuggled:
        return []
    cell.outputs = [o for i, o in enumerate(outputs) if i not in smuggled]
    detail = f"{_where(cell, index)}: a result was displayed before the test's error"
    return [TamperFlag("fake_output", detail, "runtime", "result removed")]


def _zero(cell, why: str) -> None:
    """Make nbgrader give this test cell 0: an error output placed first."""
    err = NotebookNode(
        output_type="error",
        ename="TamperDetected",
        evalue=why,
        traceback=[f"TamperDetected: {why}"],
    )
    cell.outputs = [err] + [o for o in cell.get("outputs", []) if o.get("output_type") != "error"]


# --------------------------------------------------------------------------- guard cell sources


def _is_test(cell) -> bool:
    return (
        cell.cell_type == "code"
        and nbutils.is_grade(cell)
        and not nbutils.is_solution(cell)
        and cell.metadata.get(_META, {}).get("guard") is None
    )


def _is_locked_code(cell) -> bool:
    return cell.cell_type == "code" and nbutils.is_locked(cell)


def _guard_cell(source: str, phase: str, grade_id: str, nonce: str) -> NotebookNode:
    cell = new_code_cell(source)
    cell.metadata[_META] = {"guard": phase, "for": grade_id}
    return cell


def _init_source(nonce: str, modules: list[str], installed: list[str] = ()) -> str:
    # Runs as a private module so the student's namespace gains nothing but one hidden name.
    return (
        "def _ag_boot():\n"
        "    import sys, types\n"
        f"    mod = types.ModuleType('_ag_{nonce}')\n"
        f"    exec(compile({_GUARD_SOURCE!r}, '<attention-guard>', 'exec'), mod.__dict__)\n"
        "    sys.modules[mod.__name__] = mod\n"
        f"    mod.install({nonce!r}, {modules!r}, get_ipython(), {list(installed)!r})\n"
        "try:\n"
        "    _ag_boot()\n"
        "finally:\n"
        "    del _ag_boot\n"
    )


def _check_source(nonce: str, phase: str, grade_id: str, answers, bindings) -> str:
    args = f"{phase!r}, {grade_id!r}, {list(answers)!r}, {[list(b) for b in bindings]!r}"
    return f"__import__('sys').modules['_ag_{nonce}'].check({args})\n"


def _parse(source: str) -> ast.Module | None:
    # IPython magics and shell escapes are not Python: blank them out before parsing.
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _import_bindings(cells: Iterable) -> list[tuple[str, str, str | None]]:
    """``(alias, module, attribute)`` for every top-level import in the locked cells."""
    out = []
    for cell in cells:
        tree = _parse(cell.source)
        for node in tree.body if tree else []:
            if isinstance(node, ast.Import):
                for a in node.names:
                    alias = a.asname or a.name.split(".")[0]
                    out.append((alias, a.name if a.asname else a.name.split(".")[0], None))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:
                    if a.name != "*":
                        out.append((a.asname or a.name, node.module, a.name))
    return out


def _answer_names(source: str) -> list[str]:
    """Names a test cell reads but does not define itself: the student's answers."""
    tree = _parse(source)
    if tree is None:
        return sorted(set(re.findall(r"\b[A-Za-z_]\w*\b", source)))
    loaded, stored = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stored.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stored.add(node.name)
    return sorted(loaded - stored)


# --------------------------------------------------------------------------- reading flags back


def notebook_flags(path: str | Path) -> list[TamperFlag]:
    """The tamper flags stored in one autograded notebook."""
    nb = nbformat.read(str(path), as_version=4)
    return [TamperFlag(**f) for f in nb.metadata.get(_META, {}).get("tamper_flags", [])]


def collect_flags(course_root: str | Path, assignment: str) -> dict[str, list[TamperFlag]]:
    """Flags per student from ``autograded/<student>/<assignment>/*.ipynb``."""
    out: dict[str, list[TamperFlag]] = {}
    for path in sorted(Path(course_root, "autograded").glob(f"*/{assignment}/*.ipynb")):
        student = path.parent.parent.name
        flags = notebook_flags(path)
        if flags:
            out.setdefault(student, []).extend(flags)
    return out


def format_flags(by_student: dict[str, list[TamperFlag]]) -> str:
    """The tamper section of a batch summary: one line per student and kind."""
    if not by_student:
        return "Tampering: none detected."
    lines = ["Tampering flagged (student: kind -- detail [how; effect]):"]
    for student in sorted(by_student):
        for flag in by_student[student]:
            lines.append(f"  {student}: {flag.kind} -- {flag.detail} [{flag.how}; {flag.effect}]")
    return "\n".join(lines)


def post_check(autograded_notebook: Path, student: str) -> list[tuple[str, str]]:
    """``attention_grader.grade`` post-check: edited/deleted test cells of the *submitted* notebook.

    (grade's hooks have no sanitise step, so the structural comparison reads the submission.)
    """
    path = Path(autograded_notebook)
    assignment = path.parent.name
    root = path.parent.parent.parent.parent
    submitted = root / "submitted" / student / assignment / path.name
    if not submitted.exists():
        return []
    from .course import load_course

    nb = nbformat.read(str(submitted), as_version=4)
    cells = _gradebook_cells(load_course(root).db_url, assignment, path.stem)
    return [f.as_tuple() for f in test_cell_changes(nb, cells)]


# --------------------------------------------------------------------------- wiring


def grade_hooks(sandbox: bool = True):
    """:class:`attention_grader.grade.GradeHooks` with the sandbox and every tamper check."""
    from .grade import GradeHooks

    return GradeHooks(
        kernel_manager_class="attention_grader.sandbox.SandboxedKernelManager" if sandbox else None,
        pre_execute=["attention_grader.tamper.InsertGuards"],
        post_execute=["attention_grader.tamper.CollectGuardReports"],
        post_checks=["attention_grader.tamper.post_check"],
    )


def configure(c, sandbox: bool = True) -> None:
    """Turn on the sandbox and tamper checks for plain ``nbgrader autograde``.

    In ``nbgrader_config.py``::

        from attention_grader.tamper import configure
        configure(c)

    Parameters
    ----------
    c : traitlets.config.Config
    sandbox : bool
        Also run kernels in :class:`attention_grader.sandbox.SandboxedKernelManager`.
    """
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        CheckCellMetadata,
        ClearOutput,
        DeduplicateIds,
        IgnorePattern,
        LimitOutput,
        OverwriteCells,
        OverwriteKernelspec,
        SaveAutoGrades,
    )

    from .sandbox import GuardedExecute

    c.Autograde.sanitize_preprocessors = [
        ScanSubmission,
        ClearOutput,
        DeduplicateIds,
        OverwriteKernelspec,
        OverwriteCells,
        CheckCellMetadata,
    ]
    c.Autograde.autograde_preprocessors = [
        InsertGuards,
        GuardedExecute,
        CollectGuardReports,
        IgnorePattern,
        ClearMetadataPreprocessor,
        LimitOutput,
        SaveAutoGrades,
        AssignLatePenalties,
        CheckCellMetadata,
    ]
    # A deleted test cell comes back and runs, instead of silently missing.
    c.OverwriteCells.add_missing_cells = True
    c.GuardedExecute.sandbox_kernels = bool(sandbox)
