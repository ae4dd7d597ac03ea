"""Trusted checking: hidden tests run in the grader's process, never in the student's kernel.

Whatever runs in a student's kernel can be rewritten by the student's code (the check module,
the tolerances, the kernel's replies), so the autograde executor
(:class:`attention_grader.execute.GradingExecute`) sends only the student's own cells and the
read-only cells to the kernel. For each autograder test cell it calls :meth:`TrustedChecker.run_test`
here, which

1. takes the test's code from the gradebook (never from the submitted notebook, whose cells the
   student controls, metadata included);
2. finds the names the test reads that the trusted namespace does not define (the answers) and
   asks the kernel for them as plain data (:class:`attention_grader.answers.AnswerChannel`); a
   student's function becomes a call proxy;
3. runs the test in the trusted namespace (built from the gradebook's read-only cells: ``np``,
   ``checks`` and the question's data come from the teacher, not the student), and turns what
   happened into the cell's outputs exactly as nbgrader reads them: an ``error`` output fails
   the test (its message is the check's feedback), an ``execute_result`` number is partial
   credit, nothing is full marks.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
from nbformat import NotebookNode

from .answers import AnswerChannel, KernelGone, StudentCodeError, UnreadableAnswer

__all__ = ["TrustedCells", "TrustedChecker", "answer_names", "library_use", "load_trusted_cells"]

#: Libraries an implement-it exercise must not call (roots of module names).
FORBIDDEN_ROOTS = ("attention_lab", "scipy", "torch", "tensorflow", "jax")
#: Names through which code can reach any library without naming it.
_DYNAMIC = ("__import__", "importlib", "exec", "eval", "compile", "globals", "vars", "sys")
_DYNAMIC += ("__builtins__", "builtins", "open", "runpy", "__loader__", "__spec__")
_MAX_TEXT = 20_000


@dataclass(frozen=True)
class TrustedCells:
    """The teacher's code of one notebook, from the gradebook.

    Attributes
    ----------
    tests : dict of str to str
        grade_id -> source of each autograder test cell, hidden tests included.
    locked : dict of str to str
        grade_id -> source of each read-only code cell that is not a test (imports, data).
    """

    tests: dict[str, str] = field(default_factory=dict)
    locked: dict[str, str] = field(default_factory=dict)


def load_trusted_cells(db_url: str, assignment: str, notebook: str) -> TrustedCells:
    """Read the test and read-only code cells of ``notebook`` from the gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url) as gb:
        try:
            nb = gb.find_notebook(notebook, assignment)
        except MissingEntry:
            return TrustedCells()
        solutions = {c.name for c in nb.solution_cells}
        graded = {c.name for c in nb.grade_cells if c.cell_type == "code"}
        tests, locked = {}, {}
        for cell in nb.source_cells:
            if cell.cell_type != "code" or cell.name in solutions:
                continue
            if cell.name in graded:
                tests[cell.name] = cell.source or ""
            elif cell.locked:
                locked[cell.name] = cell.source or ""
        return TrustedCells(tests, locked)


def _python(source: str) -> str:
    """IPython syntax (``%magic``, ``!cmd``) as plain Python, so ``exec`` can run it."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(_python(source))
    except (SyntaxError, ValueError):
        return None


def answer_names(source: str) -> list[str]:
    """Names a cell reads but does not define itself (sorted): what it needs from elsewhere."""
    tree = _parse(source)
    if tree is None:
        return []
    loaded, stored = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            stored.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stored.add(node.name)
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
    return sorted(loaded - stored)


# --------------------------------------------------------------------------- static library use


def _definitions(trees: list[ast.Module]) -> tuple[dict[str, str], dict[str, ast.AST]]:
    """Imported names (alias -> dotted module) and top-level definitions (name -> node)."""
    imports: dict[str, str] = {}
    defs: dict[str, ast.AST] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    imports[(a.asname or a.name).split(".")[0]] = a.name
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    imports[a.asname or a.name] = f"{node.module or ''}.{a.name}"
        for node in _module_level(tree.body):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defs[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:  # `a, b = lib.softmax, 1` binds both to the whole value
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            defs[name.id] = node.value
        for node in ast.walk(tree):  # a walrus binds at module level wherever it sits
            if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
                defs.setdefault(node.target.id, node.value)
    return imports, defs


def _module_level(body: list[ast.stmt]):
    """The statements that run at module level, inside if/for/while/with/try blocks too."""
    for node in body:
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field_name, None)
            if isinstance(inner, list):
                stmts = [getattr(x, "body", x) for x in inner]
                for block in stmts:
                    yield from _module_level(block if isinstance(block, list) else [block])


def _references(node: ast.AST) -> tuple[set[str], list[str]]:
    """Names read inside ``node`` and modules it imports itself."""
    names, modules = set(), []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            names.add(sub.id)
        elif isinstance(sub, ast.Import):
            modules += [a.name for a in sub.names]
        elif isinstance(sub, ast.ImportFrom):
            modules.append(sub.module or "")
    return names, modules


def library_use(student_sources: list[str], name: str, stop=()) -> str | None:
    """What forbidden library the student's ``name`` (and what it calls) refers to, if any.

    Read from the submitted source (the function's code object never leaves the kernel): the
    definition of ``name``, the student's other definitions it uses, and the imports they rely
    on. Code that can reach a library without naming it (``__import__``, ``exec``, ...) counts.
    Names in ``stop`` (other graded answers, such as the ``stable_softmax`` an attention
    function calls) are not followed: each answer is charged for its own code only.

    Returns
    -------
    str or None
        The dotted name found (``"scipy.special.softmax"``), or None.
    """
    trees = [t for t in map(_parse, student_sources) if t is not None]
    imports, defs = _definitions(trees)
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in defs or (current in stop and current != name):
            continue
        seen.add(current)
        names, modules = _references(defs[current])
        for module in modules:
            if module.split(".")[0] in FORBIDDEN_ROOTS:
                return module
        for word in sorted(names):
            target = imports.get(word, word)
            if target.split(".")[0] in FORBIDDEN_ROOTS:
                return target
            if word in _DYNAMIC:
                return f"{word} (the grader cannot tell what it calls)"
            todo.append(word)
    return None


# --------------------------------------------------------------------------- the checker


class _AnswersUnavailable(Exception):
    """The answers a test needs could not be read from the kernel."""


def _error(ename: str, evalue: str, traceback: list[str] | None = None) -> NotebookNode:
    evalue = evalue[:_MAX_TEXT]
    return NotebookNode(
        output_type="error",
        ename=ename,
        evalue=evalue,
        traceback=traceback or [f"{ename}: {evalue}"],
    )


def _traceback_of(exc: BaseException) -> list[str]:
    """The one-line traceback a check gives (``_render_traceback_``), never test code."""
    render = getattr(exc, "_render_traceback_", None)
    if callable(render):
        with contextlib.suppress(Exception):
            lines = render()
            if isinstance(lines, list) and all(isinstance(x, str) for x in lines):
                return [line[:_MAX_TEXT] for line in lines]
    return [f"{type(exc).__name__}: {str(exc)[:_MAX_TEXT]}"]


@contextlib.contextmanager
def _quiet_run(out: io.StringIO, import_dirs: list[str]):
    """Capture stdout, drop stderr and warnings (stderr would zero the test in nbgrader)."""
    added = [d for d in import_dirs if d not in sys.path]
    sys.path[:0] = added
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(io.StringIO()),
            warnings.catch_warnings(),
            np.errstate(all="ignore"),
        ):
            warnings.simplefilter("ignore")
            yield
    finally:
        for d in added:
            with contextlib.suppress(ValueError):
                sys.path.remove(d)


class TrustedChecker:
    """Runs one notebook's tests in the grader's process, against answers read as plain data.

    Parameters
    ----------
    cells : TrustedCells
        The teacher's code, from the gradebook.
    channel : AnswerChannel
        Asks the student's kernel for answers.
    import_dirs : list of str
        Folders the teacher's cells may import helpers from (the assignment's source folder),
        never the student's submission folder.
    """

    def __init__(self, cells: TrustedCells, channel: AnswerChannel, import_dirs=()):
        self.cells = cells
        self.channel = channel
        self.import_dirs = [str(d) for d in import_dirs]
        self.namespace: dict = {"__name__": "__main__", "__builtins__": builtins}
        self.unreadable: list[str] = []

    def is_test(self, grade_id: str | None) -> bool:
        return grade_id in self.cells.tests

    def is_locked(self, grade_id: str | None) -> bool:
        return grade_id in self.cells.locked

    def _needed(self, source: str) -> list[str]:
        return [
            n for n in answer_names(source) if n not in self.namespace and not hasattr(builtins, n)
        ]

    def _run(self, source: str, label: str):
        """Run ``source`` in the trusted namespace with the student's answers it reads.

        Returns ``(stdout, last expression value)``; raises what the code raised.
        """
        tree = ast.parse(_python(source))
        try:
            answers = self.channel.get(self._needed(source))
        except (UnreadableAnswer, StudentCodeError) as exc:
            raise _AnswersUnavailable(str(exc)) from None
        scope = dict(self.namespace)
        scope.update(answers)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        out = io.StringIO()
        try:
            with _quiet_run(out, self.import_dirs):
                exec(compile(tree, label, "exec"), scope)  # noqa: S102 -- the teacher's code
                value = None
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), label, "eval"), scope)  # noqa: S307
        finally:
            for key, val in scope.items():  # what the teacher's code defined stays
                if key not in answers or answers[key] is not val:
                    self.namespace[key] = val
        return out.getvalue(), value

    def run_locked(self, grade_id: str) -> str | None:
        """Run a read-only cell's code here too; return why it failed, or None."""
        try:
            self._run(self.cells.locked[grade_id], f"<read-only cell {grade_id}>")
        except KernelGone:
            raise
        except Exception as exc:  # noqa: BLE001 -- reported to the teacher, never fatal
            return f"{type(exc).__name__}: {exc}"[:300]
        return None

    def run_test(self, grade_id: str) -> list[NotebookNode]:
        """Run one test; return the outputs nbgrader grades it by.

        Raises :class:`~attention_grader.answers.KernelGone` when the kernel died while its
        answers were read (the executor then stops the notebook).
        """
        try:
            stdout, value = self._run(self.cells.tests[grade_id], f"<test {grade_id}>")
        except KernelGone:
            raise
        except _AnswersUnavailable as exc:
            self.unreadable.append(f"{grade_id}: {exc}")
            text = f"the grader could not read your answers for this test ({exc})"
            return [_error("UnreadableAnswer", text)]
        except KeyboardInterrupt:
            raise
        except StudentCodeError as exc:  # the student's function raised, uncaught by the test
            return [_error(exc.ename, exc.message)]
        except BaseException as exc:  # noqa: BLE001 -- a failed test, whatever it raised
            return [_error(type(exc).__name__, str(exc), _traceback_of(exc))]
        outputs = []
        if stdout:
            outputs.append(
                NotebookNode(output_type="stream", name="stdout", text=stdout[:_MAX_TEXT])
            )
        if value is not None:
            outputs.append(
                NotebookNode(
                    output_type="execute_result",
                    execution_count=None,
                    metadata={},
                    data={"text/plain": repr(value)[:_MAX_TEXT]},
                )
            )
        return outputs
