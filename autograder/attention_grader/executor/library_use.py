"""Which forbidden library a student's function reaches, read statically from the submitted source.

For implement-it exercises the checks reject a finished implementation (``scipy.special.softmax``,
``attention_lab``). The student's function runs in their kernel and its code object never
leaves it, so the grader reads the submitted cells instead (:func:`library_in_source`; the checks'
own :func:`attention_lab.checks._library.library_use` inspects a function object).
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from typing import Any

from attention_grader.wire.cell_code import parse_cell
from attention_lab.checks import FORBIDDEN_ROOTS

__all__ = ["FORBIDDEN_ROOTS", "library_in_source"]

# FORBIDDEN_ROOTS: the libraries an implement-it exercise must not call, listed once, where the
# checks use them (attention_lab.checks); the grader may import attention_lab, never the reverse.
#: Names through which code can reach any library without naming it.
_DYNAMIC: tuple[str, ...]
_DYNAMIC = ("__import__", "importlib", "exec", "eval", "compile", "globals", "vars", "sys")
_DYNAMIC += ("__builtins__", "builtins", "open", "runpy", "__loader__", "__spec__")


def _definitions(trees: list[ast.Module]) -> tuple[dict[str, str], dict[str, ast.AST]]:  # noqa: C901 -- one branch per import form
    """Return imported names (alias -> dotted module) and top-level definitions (name -> node)."""
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


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Yield the statements that run at module level, inside if/for/while/with/try blocks too."""
    for node in body:
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field_name, None)
            if isinstance(inner, list):
                stmts: list[Any] = [getattr(x, "body", x) for x in inner]
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


def library_in_source(
    student_sources: list[str], name: str, stop: Collection[str] = ()
) -> str | None:
    """Return what forbidden library the student's ``name`` (and what it calls) refers to, if any.

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
    trees = [t for t in map(parse_cell, student_sources) if t is not None]
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
