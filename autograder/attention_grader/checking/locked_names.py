"""The names the teacher's read-only cells bind, and which of them a student's cells change.

Trusted checking (:mod:`attention_grader.checking.trusted`) runs the read-only cells in the
grader, in the teacher's order (:mod:`~attention_grader.executor.cell_order`), so a test reads
the teacher's ``checks``, ``np`` and data. What a read-only cell binds is never asked of the
student's kernel, with one exception plain nbgrader makes the rule: *data* (a name bound by an
assignment, not an import, function or class) that the student's own cells visibly rebind or
change (``coin_flips = coin_flips[:20]``, ``data.append(x)``, ``shuffle(data)``) is read from
her kernel, as plain data only, because plain nbgrader tests her value.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from attention_grader.wire.cell_code import parse_cell

__all__ = ["is_data", "is_plain_data", "locked_bindings", "same_data", "student_changes"]


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """Return the cell's statements outside functions and classes (blocks included)."""
    out: list[ast.stmt] = []
    todo = list(tree.body)
    while todo:
        stmt = todo.pop(0)
        out.append(stmt)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for block in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, block, None)
            if isinstance(inner, list):
                todo += [s for s in inner if isinstance(s, ast.stmt)]
        for handler in getattr(stmt, "handlers", []) or []:
            todo += handler.body
    return out


def locked_bindings(sources: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """``(every name the cells bind, the names bound as data)``.

    Data: bound by an assignment (or a ``for``/``with`` target) and never by an import, a
    ``def`` or a ``class`` of the same cells.
    """
    names: set[str] = set()
    code: set[str] = set()
    for tree in filter(None, map(parse_cell, sources)):
        for stmt in _top_level(tree):
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                code.add(stmt.name)
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                code.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*")
            for target in _targets(stmt):
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return frozenset(names | code), frozenset(names - code)


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        return [stmt.target]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.target]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    return []


def _base(node: ast.expr) -> str | None:
    """Return ``data`` for ``data``, ``data[0]``, ``data.attr``, ``data[0].x``."""
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def student_changes(sources: Iterable[str], data: Iterable[str]) -> frozenset[str]:
    """Return the names of ``data`` the student's cells rebind, delete or may change in place.

    A name counts when her code assigns, defines, imports, deletes or declares it ``global``, assigns into it
    (``data[0] = 1``, ``data.x = 1``), calls a method on it (``data.append``) or passes it to a
    call (``shuffle(data)``): statically, as the teacher reads the cell.
    """
    wanted = set(data)
    found: set[str] = set()
    for tree in filter(None, map(parse_cell, sources)):
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                found.add(node.id)
            elif isinstance(node, ast.Subscript | ast.Attribute) and isinstance(
                node.ctx, ast.Store | ast.Del
            ):
                found.add(_base(node) or "")
            elif isinstance(node, ast.Global):
                found.update(node.names)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found.add(node.name)
            elif isinstance(node, ast.Import | ast.ImportFrom):
                found.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute):
                    found.add(_base(node.func.value) or "")
                found.update(
                    _base(a) or "" for a in [*node.args, *(k.value for k in node.keywords)]
                )
    return frozenset(found & wanted)


def is_plain_data(value: object, depth: int = 0) -> bool:
    """Whether a value read from the kernel is data (no function, object or placeholder of hers)."""
    from attention_grader.channel.object_handles import ObjectHandle, StudentClass
    from attention_grader.channel.student_function import StudentFunction
    from attention_grader.wire.unsupported_answer import UnsupportedAnswer

    if isinstance(value, ObjectHandle | StudentClass | StudentFunction | UnsupportedAnswer):
        return False
    if depth > 32:
        return False
    if isinstance(value, dict):
        items: list[object] = [*value.keys(), *value.values()]
        return all(is_plain_data(v, depth + 1) for v in items)
    if isinstance(value, list | tuple | set | frozenset):
        return all(is_plain_data(v, depth + 1) for v in value)
    return True


def is_data(value: object) -> bool:
    """Whether a value of the grader's could travel as plain data (the wire's kinds)."""
    from attention_grader.channel.answer_encoding import encode

    try:
        encode(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


def same_data(student: object, teacher: object) -> bool:
    """Whether the student's data equals the teacher's (``student`` is decoded plain data)."""
    import numpy as np

    try:
        if isinstance(student, np.ndarray) or isinstance(teacher, np.ndarray):
            return (
                isinstance(student, np.ndarray)
                and isinstance(teacher, np.ndarray)
                and student.dtype == teacher.dtype
                and bool(np.array_equal(student, teacher))
            )
        return type(student) is type(teacher) and bool(student == teacher)
    except Exception:  # noqa: BLE001 -- not comparable: not the same
        return False
