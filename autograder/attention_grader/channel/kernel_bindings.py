"""A test that rebinds or deletes a student's name does so in the student's kernel too.

nbgrader's own documentation tests that ``sum_of_squares`` uses ``squares`` by deleting it::

    orig_squares = squares
    del squares
    try:
        sum_of_squares(1)
    except NameError:
        pass
    ...
    finally:
        squares = orig_squares

The test runs in the grader (:mod:`attention_grader.checking.trusted`), the student's functions in their
kernel. So each such statement is followed (:func:`bind_in_kernel`) by a request: ``del squares``
unbinds ``squares`` in the kernel (kept aside, so ``orig_squares`` still calls it), and
``squares = orig_squares`` binds it there again. The value bound is what the request can carry:
data, a student's object or function (by its number in the kernel). A function of the test's own
(a spy: ``factorial = spy``) cannot be carried (the student's code in the kernel cannot call back
into the grader): :func:`refused_rebinds` names it for the release check, and at grading time the
bind request makes the cell need a teacher.

Only statements the test runs at its top level (also inside ``if``/``try``/``for``/``with``
blocks) are followed, a top-level loop variable or ``with ... as`` named like a student's answer
included (bound in the kernel after the statement, as plain nbgrader leaves it); a name a
function, lambda or comprehension of the test binds is the test's own; a ``global`` rebinding
stays refused.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

__all__ = ["BIND", "UNBIND", "bind_in_kernel", "refused_rebinds"]

#: The names of the two functions the checker puts in the test's namespace.
BIND, UNBIND = "__attention_bind__", "__attention_unbind__"
_BLOCKS = ("body", "orelse", "finalbody")


def _targets(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign) and stmt.value is not None:
        return [stmt.target]
    if isinstance(stmt, ast.Delete):
        return list(stmt.targets)
    if isinstance(stmt, ast.For | ast.AsyncFor):  # the name keeps the loop's last value
        return [stmt.target]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [i.optional_vars for i in stmt.items if i.optional_vars is not None]
    return []


def _local_names(tree: ast.Module) -> set[int]:
    """``id()`` of the Name nodes a function, lambda or comprehension of the test binds locally.

    They are the test's own names (``for x in ...`` inside a helper, ``[x for x in xs]``), not
    the student's, whatever they are called; a ``global`` declaration is refused on its own.
    """
    local: set[int] = set()
    for scope in ast.walk(tree):
        if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            declared = {
                n
                for node in ast.walk(scope)
                if isinstance(node, ast.Global | ast.Nonlocal)
                for n in node.names
            }
            local |= {
                id(n)
                for n in ast.walk(scope)
                if isinstance(n, ast.Name)
                and isinstance(n.ctx, ast.Store | ast.Del)
                and n.id not in declared
            }
        elif isinstance(scope, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            local |= {
                id(n)
                for generator in scope.generators
                for n in ast.walk(generator.target)
                if isinstance(n, ast.Name)
            }
    return local


def _names(targets: list[ast.expr], student: set[str]) -> list[ast.Name]:
    found = []
    for target in targets:
        if isinstance(target, ast.Name) and target.id in student:
            found.append(target)
        elif isinstance(target, ast.Tuple | ast.List):
            found += _names(list(target.elts), student)
    return found


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Yield the statements the test runs at its top level, blocks included (not in functions)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for block in _BLOCKS:
            inner = getattr(stmt, block, None)
            if isinstance(inner, list):
                yield from _statements(inner)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _statements(handler.body)


def _own_functions(tree: ast.Module) -> set[str]:
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def followed(tree: ast.Module, student: set[str]) -> set[int]:
    """``id()`` of the Name nodes whose rebinding or deletion is followed in the kernel."""
    own = _own_functions(tree)
    ids = set()
    for stmt in _statements(tree.body):
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.Lambda) or isinstance(value, ast.Name) and value.id in own:
            continue  # a function of the test's own: refused (refused_rebinds)
        ids |= {id(n) for n in _names(_targets(stmt), student)}
    return ids


def refused_rebinds(tree: ast.Module, student: set[str]) -> list[str]:  # noqa: C901 -- one branch per binding form
    """Why the test's rebinding of a student's name cannot be followed (empty: it can)."""
    done = followed(tree, student)
    own = _own_functions(tree)
    causes: list[str] = []

    def add(cause: str) -> None:
        if cause not in causes:
            causes.append(cause)

    for stmt in _statements(tree.body):
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.Lambda) or isinstance(value, ast.Name) and value.id in own:
            for name in _names(_targets(stmt), student):
                what = "a lambda" if isinstance(value, ast.Lambda) else f"`{value.id}`"
                add(
                    f"the test rebinds `{name.id}` to a function of its own ({what}): the "
                    "student's code in the kernel cannot call back into the grader"
                )
    done |= _local_names(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in student and id(node) not in done:
            if isinstance(node.ctx, ast.Store | ast.Del) and not any(
                f"`{node.id}`" in c for c in causes
            ):
                add(
                    f"the test rebinds or deletes `{node.id}` inside a function, loop or `with` "
                    "of its own: only plain statements of the test are followed in the kernel"
                )
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for declared in node.names:
                if declared in student:
                    add(f"the test declares `{declared}` global: its rebinding is not followed")
    return causes


def _call(function: str, name: str, value: ast.expr | None = None) -> ast.stmt:
    args = [ast.Constant(name)] + ([value] if value is not None else [])
    return ast.Expr(ast.Call(ast.Name(function, ast.Load()), args, []))


def bind_in_kernel(tree: ast.Module, student: set[str]) -> ast.Module:
    """``tree`` with a bind (unbind) request after (before) each followed statement."""
    done = followed(tree, student)

    def rewrite(body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for stmt in body:
            if not isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for block in _BLOCKS:
                    if isinstance(getattr(stmt, block, None), list):
                        setattr(stmt, block, rewrite(getattr(stmt, block)))
                for handler in getattr(stmt, "handlers", []) or []:
                    handler.body = rewrite(handler.body)
            names = [n.id for n in _names(_targets(stmt), student) if id(n) in done]
            if isinstance(stmt, ast.Delete):
                out += [_call(UNBIND, n) for n in dict.fromkeys(names)] + [stmt]
            else:
                out += [stmt] + [
                    _call(BIND, n, ast.Name(n, ast.Load())) for n in dict.fromkeys(names)
                ]
        return out

    tree.body = rewrite(tree.body)
    return ast.fix_missing_locations(tree)
