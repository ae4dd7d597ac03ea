"""Where a teacher's test would turn a value into code in the grader's own process.

Trusted checking runs a test in the grader (:mod:`attention_grader.checking.trusted`) with the
student's answers as plain data. A string is plain data until the test hands it to something
that runs it: ``assert eval(expr) == 42`` on the student's ``expr`` would run whatever the
student wrote, in the grader, outside the sandbox. So a test that reaches any of these is never
run in the grader (:func:`code_sinks`):

* ``eval``, ``exec``, ``compile``, ``__import__``, by any name or spelling (``builtins.eval``,
  ``__builtins__["exec"]``, ``e = eval``, ``from builtins import eval as e``);
* what rebuilds objects or runs code from bytes or text: ``pickle``/``marshal``/``dill``/
  ``cloudpickle``/``shelve``/``joblib``/``jsonpickle`` loads, ``yaml.load``,
  ``pandas.read_pickle``, ``numpy.load(..., allow_pickle=True)``, ``importlib``, ``runpy``,
  ``code``, ``timeit``, ``types.FunctionType``/``CodeType``, ``ctypes``, ``os.system``,
  ``subprocess``, IPython's ``run_cell``;
* ``getattr``/``setattr``/``delattr``/``hasattr``, ``operator.attrgetter``/``methodcaller``,
  and ``globals()``/``vars()``/``__dict__``/``sys.modules`` lookups with a name that comes from
  the student's answers (a student string choosing what the grader reaches).

The release check refuses such a test (``run_in_kernel`` grades it in the student's kernel,
where running the student's string harms no one); grading a test released without the check
flags it for a teacher without running it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

from attention_grader.checking.test_styles import dotted_name, imported_libraries
from attention_grader.checking.trusted_cells import TrustedCells
from attention_grader.wire.cell_code import parse_cell

__all__ = ["code_sinks", "notebook_aliases"]

#: Builtins that turn a string into running code.
_BUILTIN_SINKS = frozenset({"eval", "exec", "compile", "__import__"})
#: Dotted paths (after import aliases are resolved) that run code or unpickle.
_PATH_SINKS = frozenset(
    {
        *(f"builtins.{name}" for name in _BUILTIN_SINKS),
        *(f"{m}.{f}" for m in ("pickle", "_pickle", "cPickle") for f in ("load", "loads")),
        "pickle.Unpickler",
        "_pickle.Unpickler",
        "marshal.load",
        "marshal.loads",
        "cloudpickle.load",
        "cloudpickle.loads",
        "shelve.open",
        "joblib.load",
        "jsonpickle.decode",
        "yaml.load",
        "yaml.load_all",
        "yaml.unsafe_load",
        "yaml.unsafe_load_all",
        "yaml.full_load",
        "pandas.read_pickle",
        "torch.load",
        "importlib.import_module",
        "importlib.__import__",
        "importlib.reload",
        "timeit.timeit",
        "timeit.repeat",
        "timeit.Timer",
        "types.FunctionType",
        "types.LambdaType",
        "types.CodeType",
        "os.system",
        "os.popen",
        "operator.attrgetter",
        "operator.methodcaller",
    }
)
#: Modules every function of which is a way to run code.
_MODULE_SINKS = frozenset({"dill", "runpy", "code", "codeop", "ctypes", "subprocess"})
_OS_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")
#: Methods of IPython's shell that run code (``get_ipython().run_cell(...)``).
_SHELL_METHODS = frozenset({"run_cell", "run_line_magic", "run_cell_magic", "ex", "ev", "system"})
_ATTRIBUTE_BY_NAME = frozenset({"getattr", "setattr", "delattr", "hasattr"})
_NAMESPACES = frozenset({"globals", "vars", "locals"})


def notebook_aliases(cells: TrustedCells) -> dict[str, str]:
    """Names the notebook's read-only cells and released code import: name -> dotted path."""
    found = dict(cells.libraries)
    for source in cells.locked.values():
        found.update(imported_libraries(source))
    return found


def _dotted(node: ast.AST) -> str:
    """Return ``a.b.c`` for a name or attribute chain (``get_ipython().x`` too), else ``""``."""
    base = node
    while isinstance(base, ast.Attribute):
        base = base.value
    if isinstance(base, ast.Call) and dotted_name(base.func) == "get_ipython":
        return f"get_ipython().{dotted_name(node)}" if node is not base else "get_ipython()"
    return dotted_name(node) if isinstance(base, ast.Name) else ""


def _aliases(tree: ast.Module, libraries: Mapping[str, str]) -> dict[str, str]:
    """Bound name -> dotted path, from the test's own imports (nested ones too) over the notebook's."""
    found = dict(libraries)
    imports: list[ast.stmt] = [
        n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    found.update(imported_libraries(ast.Module(body=imports, type_ignores=[])))
    found.setdefault("np", "numpy")
    found.setdefault("pd", "pandas")
    found["__builtins__"] = "builtins"
    return found


def _resolve(dotted: str, aliases: Mapping[str, str]) -> str:
    """Return the dotted path a name stands for (a name nothing imported: a builtin or a local)."""
    root, _, rest = dotted.partition(".")
    if root in aliases:
        root = aliases[root]
    elif rest and root != "get_ipython()":
        return ""  # ``code.strip()`` on a local called ``code`` is not the module
    return f"{root}.{rest}" if rest else root


def _path_sink(path: str) -> bool:
    if path in _BUILTIN_SINKS or path in _PATH_SINKS:
        return True
    if path.split(".")[0] in _MODULE_SINKS and "." in path:
        return True
    return path.startswith(_OS_PREFIXES)


def _bindings(tree: ast.Module) -> list[tuple[list[ast.expr], ast.AST]]:
    """Return each (targets, value) the test binds: assignments, loops, ``with ... as``."""
    binds: list[tuple[list[ast.expr], ast.AST]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            binds.append((node.targets, node.value))
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
            binds.append(([node.target], node.value))
        elif isinstance(node, ast.For | ast.comprehension):
            binds.append(([node.target], node.iter))
        elif isinstance(node, ast.With):
            binds += [([i.optional_vars], i.context_expr) for i in node.items if i.optional_vars]
    return binds


def _tainted(tree: ast.Module, student: set[str]) -> set[str]:
    """Return the student's names and every name the test binds from an expression reading one."""
    tainted = set(student)
    binds = _bindings(tree)
    changed = True
    while changed:
        changed = False
        for targets, value in binds:
            if not _reads(value, tainted):
                continue
            bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            changed |= not bound <= tainted
            tainted |= bound
    return tainted


def _reads(node: ast.AST, names: set[str]) -> bool:
    return any(isinstance(sub, ast.Name) and sub.id in names for sub in ast.walk(node))


def _name_lookups(node: ast.AST, tainted: set[str], aliases: Mapping[str, str]) -> str | None:
    """Return a lookup by a name the student chose: ``getattr(x, s)``, ``globals()[s]``, ..."""
    if isinstance(node, ast.Call):
        path = _resolve(_dotted(node.func), aliases)
        if path in _ATTRIBUTE_BY_NAME or path in {f"builtins.{n}" for n in _ATTRIBUTE_BY_NAME}:
            if len(node.args) > 1 and _reads(node.args[1], tainted):
                return f"{path.split('.')[-1]}(..., <a name from the student's answer>)"
    if isinstance(node, ast.Subscript) and _reads(node.slice, tainted):
        value = node.value
        holder = _resolve(_dotted(value.func if isinstance(value, ast.Call) else value), aliases)
        if (
            holder in _NAMESPACES
            or holder in {"sys.modules", "builtins"}
            or holder.endswith("__dict__")
        ):
            return f"{holder}[<a name from the student's answer>]"
    return None


def _named_sink(node: ast.AST, aliases: Mapping[str, str]) -> str | None:
    """Return the code-running thing a name or attribute stands for, if any."""
    if not isinstance(node, ast.Name | ast.Attribute):
        return None
    path = _resolve(_dotted(node), aliases)
    if path and _path_sink(path):
        return path
    if isinstance(node, ast.Attribute) and node.attr in _SHELL_METHODS:
        if _dotted(node.value).endswith("get_ipython()"):
            return f"get_ipython().{node.attr}"
    return None


def _looked_up_sink(node: ast.AST, aliases: Mapping[str, str]) -> str | None:
    """Return a sink looked up by its name: ``__builtins__["eval"]``, ``getattr(b, "exec")``."""
    by_name = None
    if isinstance(node, ast.Subscript):
        by_name = node.slice
    elif isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] in _ATTRIBUTE_BY_NAME:
        by_name = node.args[1] if len(node.args) > 1 else None
    if isinstance(by_name, ast.Constant) and by_name.value in _BUILTIN_SINKS:
        return str(by_name.value)
    if isinstance(node, ast.Call) and _resolve(_dotted(node.func), aliases) == "numpy.load":
        for kw in node.keywords:
            if kw.arg == "allow_pickle" and not (
                isinstance(kw.value, ast.Constant) and kw.value.value is False
            ):
                return "numpy.load(allow_pickle=True)"
    return None


def code_sinks(
    test_source: str, student: Iterable[str], libraries: Mapping[str, str] | None = None
) -> list[str]:
    """Why running this test in the grader could run a student's value as code (empty: it cannot).

    Parameters
    ----------
    test_source : str
        The test cell's code.
    student : iterable of str
        Names the student's code defines (the solution cells' answers).
    libraries : mapping of str to str, optional
        Names the notebook's other cells import (bound name -> dotted path), so an alias such
        as ``import pickle as pk`` in a setup cell is seen through.

    Returns
    -------
    list of str
        One sentence per cause, in words a teacher reads in the release check.
    """
    tree = parse_cell(test_source)
    if tree is None:
        return []
    aliases = _aliases(tree, libraries or {})
    tainted = _tainted(tree, set(student))
    found: dict[str, None] = {}
    for node in ast.walk(tree):
        sink = _named_sink(node, aliases) or _looked_up_sink(node, aliases)
        if sink:
            found[f"uses `{sink}`"] = None
        lookup = _name_lookups(node, tainted, aliases)
        if lookup:
            found[f"looks up `{lookup}`"] = None
    return [
        f"the test {what}, which could run a student's text as code in the grader (mark the "
        "cell `run_in_kernel`, or compare the student's value without running it)"
        for what in found
    ]
