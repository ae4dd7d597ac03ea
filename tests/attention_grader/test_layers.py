"""The house plan's layers (docs/design.md, "House plan"): which part may import which.

A subpackage of the grader imports only itself and the subpackages below it, never the entry
points (``cli``, ``pipeline``); the library never imports the grader. Imports are read from the
source (every ``import``, also those inside functions), so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from attention_grader.renamed import FORMER_PACKAGES, MOVED

ROOT = Path(__file__).resolve().parents[2]
GRADER = ROOT / "autograder" / "attention_grader"
PACKAGE = GRADER.name

#: Each subpackage, and the ones it may import (besides itself). The order is the picture in
#: docs/design.md: nothing points up, so there is no cycle between subpackages.
ALLOWED = {
    # the course and its settings (config), then what every part reads (common)
    "config": set(),
    "common": {"config"},
    # a submission on its way in: made safe (intake), then the exchange that carries it
    "intake": {"config", "common"},
    "exchange": {"config", "common", "intake"},
    "sandbox": {"config", "common"},
    "pages": {"config", "common"},
    # grading one notebook, by runtime boundary (issue 43): what crosses to the student's kernel,
    # the channel and its stand-ins, trusted checking in the grader, the executor, the batch
    "wire": {"config", "common"},
    "channel": {"config", "common", "wire"},
    "checking": {"config", "common", "wire", "channel"},
    "executor": {"config", "common", "sandbox", "wire", "channel", "checking"},
    "batch": {
        "config", "common", "intake", "exchange", "sandbox", "wire", "channel", "checking",
        "executor",
    },
    # the teacher's steps, what she reads about a class, and what runs in the term's servers
    "steps": {
        "config", "common", "intake", "exchange", "sandbox", "pages", "wire", "channel",
        "checking", "executor", "batch",
    },
    "reports": {"config", "common", "intake", "exchange", "pages"},
    "term": {
        "config", "common", "intake", "exchange", "sandbox", "pages", "wire", "channel",
        "checking", "executor", "batch", "steps", "reports",
    },
}  # fmt: skip
#: The entry points at the top: they may import every subpackage. ``plugins`` is the stable
#: facade configs name, ``renamed`` the old dotted names kept as aliases for one release.
TOP = {"__init__", "__main__", "cli", "limits", "pipeline", "plugins", "renamed"}


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


def now_named(name: str) -> str:
    """``name`` (a module, or a name in one) where :data:`MOVED` puts it, else ``name``.

    A module still at an old place (a move plan not applied yet) is judged where it goes.
    """
    parts = name.split(".")
    for cut in (3, 4):
        if ".".join(parts[:cut]) in MOVED:
            return ".".join([MOVED[".".join(parts[:cut])], *parts[cut:]])
    return name


def layer_violations(path: Path, grader: Path = GRADER) -> list[str]:
    """Why ``path`` (a module of the grader at ``grader``) breaks the plan, one line per import."""
    rel = path.relative_to(grader).with_suffix("").parts
    package = ".".join((PACKAGE, *rel[:-1]))
    rel = tuple(now_named(".".join((PACKAGE, *rel))).split(".")[1:])
    own = rel[0] if len(rel) > 1 else None
    problems = []
    for line, imported in imported_modules(path, package):
        name = now_named(imported)
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
    concern. A package the layout emptied (``attention_grader.execution``) holds only modules
    with a new place, and no module is back at a place it left (its old name is an alias).
    """
    loose = {p.stem for p in GRADER.glob("*.py")} - TOP
    assert not loose, f"put {sorted(loose)} into the subpackage of its concern"
    packages = {p.name for p in GRADER.iterdir() if (p / "__init__.py").exists()}
    former = {name.split(".")[1] for name in FORMER_PACKAGES}
    assert packages - former <= set(ALLOWED), sorted(packages - former - set(ALLOWED))
    assert set(ALLOWED) - packages <= {MOVED[m].split(".")[1] for m in MOVED}
    for folder in sorted(former & packages):
        homeless = [p.stem for p in (GRADER / folder).glob("*.py")
                    if p.stem not in {"__init__", "_kernel_side", "_kernel_handles"}  # text, never imported
                    and f"{PACKAGE}.{folder}.{p.stem}" not in MOVED]  # fmt: skip
        assert not homeless, f"give {homeless} a subpackage"
    back = [old for old in MOVED if (GRADER.parent / (old.replace(".", "/") + ".py")).exists()]
    assert not back, f"{back} are back at a place the layout left: use the new names in MOVED"


def module_graph(grader: Path = GRADER) -> dict[str, set[str]]:
    """Each grader module -> the grader modules it imports (any import, lazy or for typing)."""
    names = {}
    for path in grader_modules():
        rel = path.relative_to(grader).with_suffix("").parts
        names[".".join((PACKAGE, *rel))] = path
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = {n for _, n in imported_modules(path, package)}
        found |= {n.rpartition(".")[0] for n in found}  # from a.b import name: the module a.b
        graph[name] = (found & set(names)) - {name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(part) > 1:
                circles.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return circles


def test_no_module_imports_itself_round_a_circle():
    """Not only between subpackages: no two modules of the grader import each other through
    others (an import for typing or inside a function counts too; the shared piece goes down
    a layer: ``csp_policy`` under ``csp``, ``report_data`` under ``report`` and its page,
    ``sandbox_launch.KernelSettings`` instead of the manager it launches for).
    """
    circles = import_circles(module_graph())
    assert not circles, "\n".join(" -> ".join(c) for c in circles)


def test_a_circle_is_found():
    """The check itself: a three-module circle is reported, a chain is not."""
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.slow
def test_the_grader_imports_only_down_the_layers():
    problems = [line for path in grader_modules() for line in layer_violations(path)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "complaint"),
    [
        ("from attention_grader.steps.grade import grade\n", "common may import only ['config']"),
        ("def f():\n    from ..term import report\n", "common may import only ['config']"),
        ("import attention_grader.pipeline\n", "never imports the entry points"),
        ("from attention_grader.loose_module import X\n", "loose_module is at the top"),
    ],
)
def test_an_import_up_the_layers_is_named(tmp_path, source, complaint):
    """The check itself: an upward import, even a lazy or relative one, is reported by file,
    line and name (so the test above fails on it).
    """
    module = tmp_path / PACKAGE / "common" / "flags.py"
    module.parent.mkdir(parents=True)
    module.write_text(source)
    (problem,) = layer_violations(module, grader=tmp_path / PACKAGE)
    assert problem.startswith(f"{PACKAGE}/common/flags.py:") and complaint in problem


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
