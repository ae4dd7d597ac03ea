"""attention_lab's layout (docs/design.md, "Layout"): imports between its parts point one way,
and the lessons reach the library through its entry points only.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "attention_lab"

# Each part of the package, and the parts it may import. "base" is every top-level module not
# named here: the numerics, the examples, the registry, the renderer.
PARTS = {
    "base": {"base"},
    "plots": {"base", "plots"},
    "experiments": {"base", "experiments"},
    "transformer": {"base", "transformer"},
    "checks": {"base", "transformer", "checks"},
    "explorer": {"base", "plots", "experiments", "transformer", "explorer"},
    "demos": {"base", "plots", "experiments", "transformer", "checks", "explorer", "demos"},
}
DEMOS = {
    "demos",
    "layer_figures",
    "diagram",
}  # the lessons' entry point and the figures it alone uses

# Where a lesson imports from: the numerics (with the chapters' examples, lesson 6's
# projections and heads and lesson 7's transformer, their subjects), what it shows and runs, and
# what checks the student's work.
LESSON_SOURCES = (
    "attention_lab",
    "attention_lab.examples",
    "attention_lab.projections",
    "attention_lab.heads",
    "attention_lab.transformer",
    "attention_lab.demos",
)
LESSON_CHECKS = "attention_lab.checks"


def part_of(module: str, package: Path) -> str:
    """``attention_lab.explorer.figure`` -> ``explorer``; a top-level module -> its part."""
    parts = module.split(".")
    if len(parts) == 1:
        return "base"  # the package itself
    if parts[1] in DEMOS:
        return "demos"
    return parts[1] if (package / parts[1]).is_dir() else "base"


def module_name(path: Path, package: Path) -> str:
    rel = path.relative_to(package.parent).with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def imports(path: Path, package: Path) -> set[str]:
    """Every attention_lab module ``path`` imports, at any depth (lazy imports included)."""
    name = module_name(path, package)
    here = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            anchor = here.split(".")[: len(here.split(".")) - node.level + 1] if node.level else []
            base = ".".join([*anchor, *([node.module] if node.module else [])])
            found.add(base)
            # `from attention_lab import checks` imports a part: count it as that part
            found |= {f"{base}.{a.name}" for a in node.names if base == "attention_lab"}
    return {n for n in found if n.split(".")[0] == "attention_lab"}


def violations(package: Path = PACKAGE) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        name = module_name(path, package)
        here = part_of(name, package)
        for imported in sorted(imports(path, package)):
            there = part_of(imported, package)
            if imported != "attention_lab" and there not in PARTS[here]:
                found.append(f"{name} ({here}) imports {imported} ({there})")
    return found


def test_every_subpackage_has_a_place_in_the_rule():
    folders = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert folders <= set(PARTS), (
        f"give {sorted(folders - set(PARTS))} a row in PARTS and design.md"
    )


def test_imports_point_one_way():
    assert violations() == []


def test_the_rule_reports_an_import_against_it(tmp_path):
    """The checker itself: a check importing the explorer (lazily, relative or absolute) and the
    numerics importing a plot are reported; the explorer importing a plot is not.
    """
    fake = tmp_path / "attention_lab"
    for part in ("checks", "explorer", "plots"):
        (fake / part).mkdir(parents=True)
        (fake / part / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "core.py").write_text("from attention_lab import plots\n")
    (fake / "checks" / "bad.py").write_text("def f():\n    from ..explorer import model\n")
    (fake / "explorer" / "fine.py").write_text("from attention_lab.plots import heatmap\n")
    assert violations(fake) == [
        "attention_lab.checks.bad (checks) imports attention_lab.explorer (explorer)",
        "attention_lab.core (base) imports attention_lab.plots (plots)",
    ]


def _lesson_imports(path: Path) -> list[str]:
    nb = json.loads(path.read_text())
    names = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        code = "\n".join(line for line in source.splitlines() if not line.startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.append(node.module)
            elif isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
    return [name for name in names if name.split(".")[0] == "attention_lab"]


@pytest.mark.parametrize(
    "lesson",
    sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "source").glob("*/*.ipynb")),
    ids=lambda p: p.name,
)
def test_lessons_import_the_library_through_its_entry_points(lesson):
    wrong = [
        name
        for name in _lesson_imports(lesson)
        if name not in LESSON_SOURCES
        and name != LESSON_CHECKS
        and not name.startswith(LESSON_CHECKS + ".")
    ]
    assert not wrong, (
        f"{lesson.name} imports {wrong}: import from {', '.join(LESSON_SOURCES)} or {LESSON_CHECKS}"
    )
