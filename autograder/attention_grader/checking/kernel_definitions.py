"""A test cell's imports and plain definitions reach the student's kernel, as in plain nbgrader.

Plain nbgrader runs each test cell in the student's kernel, so a visible test's
``from numpy import isclose`` defines ``isclose`` for every later cell, and a right answer
that uses it works. Here tests run in the grader (:mod:`attention_grader.checking.trusted`),
so after each test the names its *visible* part defines at top level are defined in the
kernel too (:func:`kernel_definitions`): imports, functions, classes and names bound to a
literal. Never an assert or a call, never the hidden region (hidden tests never reach the
kernel), never a student's answer name (rebinding those is :mod:`kernel_bindings`' job).
"""

from __future__ import annotations

import ast
from collections.abc import Container
from functools import lru_cache

from nbformat.v4 import new_code_cell

from attention_grader.wire.cell_code import parse_cell

__all__ = ["kernel_definitions", "visible_part"]


def visible_part(source: str) -> str:
    """Return a test's code as students receive it (nbgrader's hidden regions removed)."""
    from nbgrader.preprocessors import ClearHiddenTests

    cell = new_code_cell(source)
    ClearHiddenTests()._remove_hidden_test_region(cell)
    visible: str = cell.source
    return visible


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _defines(stmt: ast.stmt, answers: Container[str]) -> bool:
    if isinstance(stmt, ast.Import | ast.ImportFrom):
        bound = [(a.asname or a.name).split(".")[0] for a in stmt.names]
        return "*" not in bound and not any(name in answers for name in bound)
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return stmt.name not in answers
    if isinstance(stmt, ast.Assign) and _literal(stmt.value):
        return all(isinstance(t, ast.Name) and t.id not in answers for t in stmt.targets)
    return False


@lru_cache(maxsize=512)  # each test of a class, once
def kernel_definitions(source: str, answers: frozenset[str]) -> str:
    """Return the code the kernel runs after the test ``source`` ("" when it defines nothing)."""
    tree = parse_cell(visible_part(source))
    if tree is None:
        return ""
    kept = [stmt for stmt in tree.body if _defines(stmt, answers)]
    return ast.unparse(ast.Module(body=kept, type_ignores=[])) if kept else ""
