"""The house plan's layers (docs/design.md, "House plan"): which part may import which.

A subpackage of the grader imports only itself and the subpackages below it, never the entry
points (``cli``, ``pipeline``); the library never imports the grader. Imports are read from the
source (every ``import``, also those inside functions), so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GRADER = ROOT / "autograder" / "attention_grader"
PACKAGE = GRADER.name

#: Each subpackage, and the ones it may import (besides itself). The order is the picture in
#: docs/design.md: nothing points up, so there is no cycle between subpackages.
ALLOWED = {
    "common": set(),
    "intake": {"common"},
    "sandbox": {"common"},
    "pages": {"common"},
    "execution": {"common", "intake", "sandbox"},
    "term": {"common", "intake", "sandbox", "execution", "pages"},
}
#: The entry points at the top: they may import every subpackage.
TOP = {"__init__", "__main__", "cli", "limits", "pipeline"}


def imported_modules(path: Path, package: str) -> list[tuple[int, str]]:
    """``(line, dotted name)`` of every module ``path`` imports, relative imports resolved.

    ``package`` is the dotted package ``path`` belongs to; ``from a import b`` yields ``a.b``
    (``b`` may be a module), so a name imported from a package counts as its submodule.
    """
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def grader_modules() -> list[Path]:
    stub = GRADER / "sandbox" / "library_stub"  # data mounted into a kernel, not grader code
    return sorted(p for p in GRADER.rglob("*.py") if stub not in p.parents)


def layer_violations(path: Path, grader: Path = GRADER) -> list[str]:
    """Why ``path`` (a module of the grader at ``grader``) breaks the plan, one line per import."""
    rel = path.relative_to(grader).with_suffix("").parts
    own = rel[0] if len(rel) > 1 else None
    package = ".".join((PACKAGE, *rel[:-1]))
    problems = []
    for line, name in imported_modules(path, package):
        parts = name.split(".")
        if parts[0] != PACKAGE or len(parts) < 2:
            continue
        target = parts[1]
        where = f"{path.relative_to(grader.parent)}:{line} imports {name}"
        if own is None:  # an entry point may import anything
            continue
        if target in TOP:
            problems.append(f"{where}: a subpackage never imports the entry points")
        elif target not in ALLOWED:
            if len(parts) > 2 or (grader / f"{target}.py").exists():
                problems.append(f"{where}: {target} is at the top, not in a subpackage")
        elif target != own and target not in ALLOWED[own]:
            problems.append(f"{where}: {own} may import only {sorted(ALLOWED[own]) or 'itself'}")
    return problems


def test_the_layers_form_no_cycle():
    """A subpackage is allowed only what comes before it: the allowed graph has no cycle."""
    order = list(ALLOWED)
    for sub, below in ALLOWED.items():
        assert all(order.index(other) < order.index(sub) for other in below), sub


def test_every_grader_module_lives_in_a_subpackage():
    """Only the entry points stay at the top; a new module goes into the subpackage of its
    concern (and into tools/layout_plans.py's MOVES; tools/move_plan.py moves it there).
    """
    loose = {p.stem for p in GRADER.glob("*.py")} - TOP
    assert not loose, f"put {sorted(loose)} into a subpackage (tools/layout_plans.py MOVES)"
    assert {p.name for p in GRADER.iterdir() if (p / "__init__.py").exists()} == set(ALLOWED)


@pytest.mark.slow
def test_the_grader_imports_only_down_the_layers():
    problems = [line for path in grader_modules() for line in layer_violations(path)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "complaint"),
    [
        ("from attention_grader.term.grade import grade\n", "common may import only itself"),
        ("def f():\n    from ..term import report\n", "common may import only itself"),
        ("import attention_grader.pipeline\n", "never imports the entry points"),
        ("from attention_grader.loose_module import X\n", "loose_module is at the top"),
    ],
)
def test_an_import_up_the_layers_is_named(tmp_path, source, complaint):
    """The check itself: an upward import, even a lazy or relative one, is reported by file,
    line and name (so the test above fails on it).
    """
    module = tmp_path / PACKAGE / "common" / "course.py"
    module.parent.mkdir(parents=True)
    module.write_text(source)
    (problem,) = layer_violations(module, grader=tmp_path / PACKAGE)
    assert problem.startswith(f"{PACKAGE}/common/course.py:") and complaint in problem


def test_the_library_never_imports_the_grader():
    """attention_lab is what every lesson and kernel imports; the grader sits on top of it."""
    library = ROOT / "attention_lab"
    problems = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted(library.rglob("*.py"))
        for line, name in imported_modules(path, "attention_lab")
        if name.split(".")[0] == PACKAGE
    ]
    assert not problems, "\n".join(problems)
