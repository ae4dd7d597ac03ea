"""What a teacher's test does that trusted checking cannot carry, read from its source.

Trusted checking runs a test in the grader's process while the student's code stays in the
student's kernel (:mod:`attention_grader.checking.trusted`). A few ordinary nbgrader test styles reach into
that kernel in ways no answer request can carry, and would give a wrong grade without a word:

* rebinding a name the student's code defines to a function of the test's own (a spy on a
  recursive function), or inside a function of the test (plain rebinding and ``del squares``
  ... restore are followed in the kernel: :mod:`attention_grader.channel.kernel_bindings`);
* patching a builtin (``builtins.max = ...``, ``mock.patch("builtins.max")``): the student's code
  in the kernel does not see the patch;
* reading a student's function with ``inspect`` (its code never leaves the kernel).

:func:`uncarried_styles` names them, once per cause, for the release check (which refuses the
release) and for grading (which flags the cell for a teacher). The names a solution defines and
the libraries the released notebook imports are read here too, from the teacher's source.
"""

from __future__ import annotations

import ast
import re

from attention_grader.channel.kernel_bindings import refused_rebinds
from attention_grader.wire.cell_code import parse_cell

__all__ = [
    "dotted_name",
    "imported_libraries",
    "released_code",
    "solution_names",
    "uncarried_styles",
]

_SOLUTION = re.compile(r"^\s*#+\s*BEGIN SOLUTION.*?^\s*#+\s*END SOLUTION[^\n]*$", re.M | re.S)
_INSPECT_READERS = {"getsource", "getsourcelines", "getfile", "getmodule", "getclosurevars"}


def released_code(source: str) -> str:
    """Return a solution cell's code as students receive it: the solution region removed."""
    return _SOLUTION.sub("", source)


def solution_names(source: str) -> set[str]:
    """Names a solution cell defines at top level: the student's answers.

    Every function, class and assignment of the cell counts (``def softmax(xs):`` may be above
    the solution markers); an import counts only inside the solution region (an import students
    receive, above the markers, is a library: :func:`imported_libraries`).
    """
    tree = parse_cell(source)
    if tree is None:
        return set()
    regions = [
        (source.count("\n", 0, m.start()) + 1, source.count("\n", 0, m.end()) + 1)
        for m in _SOLUTION.finditer(source)
    ]
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            if any(start <= node.lineno <= end for start, end in regions):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def imported_libraries(source: str | ast.Module) -> dict[str, str]:
    """Top-level imports of ``source``: bound name -> dotted path (``"numpy.testing.assert_allclose"``).

    ``import a.b`` binds ``a`` to module ``a``; ``import a.b as c`` binds ``c`` to ``a.b``;
    ``from a.b import c as d`` binds ``d`` to ``a.b.c``. Relative and star imports are left out.
    """
    tree = parse_cell(source) if isinstance(source, str) else source
    found: dict[str, str] = {}
    if tree is None:
        return found
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                found[a.asname or a.name.split(".")[0]] = (
                    a.name if a.asname else a.name.split(".")[0]
                )
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                if a.name != "*":
                    found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


def dotted_name(node: ast.AST) -> str:
    """Return the dotted name of an attribute chain (``np.random.seed``; a call base is left out)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _builtins_patches(tree: ast.Module) -> list[str]:  # noqa: C901 -- one branch per way to patch
    found: list[str] = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, ast.Attribute) and dotted_name(target.value) in (
                "builtins",
                "__builtins__",
            ):
                found.append(f"builtins.{target.attr}")
        if isinstance(node, ast.Call):
            name = dotted_name(node.func)
            args = node.args
            if name.split(".")[-1] == "setattr" and args and dotted_name(args[0]) == "builtins":
                attr: object = (
                    args[1].value if len(args) > 1 and isinstance(args[1], ast.Constant) else "?"
                )
                found.append(f"builtins.{attr}")
            for arg in args[:1]:
                if (
                    name.split(".")[-1] == "patch"
                    and isinstance(arg, ast.Constant)
                    and isinstance(arg.value, str)
                    and arg.value.startswith("builtins.")
                ):
                    found.append(arg.value)
            if name.endswith("patch.object") and args and dotted_name(args[0]) == "builtins":
                patched: object = (
                    args[1].value if len(args) > 1 and isinstance(args[1], ast.Constant) else "?"
                )
                found.append(f"builtins.{patched}")
    return found


def _inspected(tree: ast.Module, student: set[str]) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = dotted_name(node.func)
        if not (name.startswith("inspect.") or name in _INSPECT_READERS):
            continue
        for arg in node.args:
            for sub in ast.walk(arg):
                if isinstance(sub, ast.Name) and sub.id in student and sub.id not in found:
                    found.append(sub.id)
    return found


def uncarried_styles(test_source: str, student: set[str]) -> list[str]:
    """Why this test cannot be graded outside the student's kernel (empty: it can).

    Parameters
    ----------
    test_source : str
        The test cell's code (from the gradebook or the source notebook).
    student : set of str
        Names the student's code defines (the solution cells' answers).
    """
    tree = parse_cell(test_source)
    if tree is None:
        return []
    causes = refused_rebinds(tree, student)  # the others are followed in the kernel
    for patch in dict.fromkeys(_builtins_patches(tree)):
        causes.append(
            f"the test patches {patch}, which the student's code in the kernel does not see"
        )
    for name in _inspected(tree, student):
        causes.append(
            f"the test reads `{name}` with inspect, but the student's code stays in their kernel"
        )
    return causes
