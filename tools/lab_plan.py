"""Lay attention_lab out by concern, and its tests like it (issue 30): re-runnable, idempotent.

Run from the repository root (after merging another branch, run it again: it moves only what is
still at an old place and rewrites only what still names one)::

    python tools/lab_plan.py          # move, then rewrite every reference
    python tools/lab_plan.py --check  # list what is still to do; exit 1 if anything is

What it does:

1. ``git mv`` every module of :data:`MODULES` and every test of :data:`TESTS` that is still at its
   old path (new packages get an ``__init__.py``; ``tests/attention_lab/`` itself stays a plain
   folder: an ``__init__.py`` there would make pytest import it as ``attention_lab``).
2. In every file git tracks (``CHANGELOG.md`` aside: it is history), rewrite what names an old
   place: ``attention_lab.<old>`` (code, strings, docs, notebooks' JSON), ``attention_lab/<old>.py``
   and ``tests/test_<old>.py`` paths, and ``from attention_lab import <old module>`` (split into
   its own ``from attention_lab.<package> import <new> as <old>`` line, so the names the code uses
   stay bound). A moved test's ``Path(__file__).parents[1]`` (the repository root) gets its new
   depth. No name is re-exported at its old place.
3. Name every new package in pyproject.toml's ``[tool.setuptools] packages``.
4. Sort the imports in the files it changed and format the Python ones (``.venv/bin/ruff``,
   when there is one).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# old dotted name -> new dotted name (attention_lab modules)
MODULES = {
    # the live widgets and their parts: attention_lab.explorer
    "attention_lab.widgets": "attention_lab.explorer.query_explorer",
    "attention_lab.explorer_model": "attention_lab.explorer.model",
    "attention_lab.explorer_figure": "attention_lab.explorer.figure",
    "attention_lab.explorer_controls": "attention_lab.explorer.controls",
    "attention_lab.explorer_readout": "attention_lab.explorer.readout",
    "attention_lab.prediction_panel": "attention_lab.explorer.prediction_panel",
    "attention_lab.vector_panels": "attention_lab.explorer.vector_panels",
    "attention_lab.widget_parts": "attention_lab.explorer.widget_parts",
    "attention_lab.slider_figures": "attention_lab.explorer.slider_figures",
    "attention_lab.slider_widgets": "attention_lab.explorer.slider_widgets",
    "attention_lab.projection_widget": "attention_lab.explorer.projection_widget",
    # everything that checks a student's work: attention_lab.checks
    "attention_lab.chapter_checks": "attention_lab.checks.chapter",
    "attention_lab.exercise_checks": "attention_lab.checks.exercises",
    "attention_lab.selfcheck": "attention_lab.checks.selfcheck",
    "attention_lab.cell_runs": "attention_lab.checks.cell_runs",
    "attention_lab.predictions": "attention_lab.checks.predictions",
}

NEW_PACKAGES = {
    "attention_lab.explorer": (
        '"""The lessons\' live widgets: the query explorer, composed of its parts, and the\n'
        "one-slider widgets built from the same parts (every one renders through\n"
        ':mod:`attention_lab.live_figure`)."""\n'
    ),
}

# old test file -> new test file (tests mirror the package: tests/attention_lab/<sub>/test_<m>.py)
TESTS = {
    "tests/test_core.py": "tests/attention_lab/test_core.py",
    "tests/test_examples.py": "tests/attention_lab/test_examples.py",
    "tests/test_derivatives.py": "tests/attention_lab/test_derivatives.py",
    "tests/test_heads.py": "tests/attention_lab/test_heads.py",
    "tests/test_projections.py": "tests/attention_lab/test_projections.py",
    "tests/test_misconceptions.py": "tests/attention_lab/test_misconceptions.py",
    "tests/test_lesson_copies.py": "tests/attention_lab/test_lesson_copies.py",
    "tests/test_nodelay.py": "tests/attention_lab/test_nodelay.py",
    "tests/test_chapter_code.py": "tests/attention_lab/test_chapter_code.py",
    "tests/test_demos.py": "tests/attention_lab/test_demos.py",
    "tests/test_layer_figures.py": "tests/attention_lab/test_layer_figures.py",
    "tests/test_plots.py": "tests/attention_lab/plots/test_plots.py",
    "tests/test_experiments.py": "tests/attention_lab/experiments/test_experiments.py",
    "tests/test_learning.py": "tests/attention_lab/experiments/test_learning.py",
    "tests/test_positions_experiment.py": "tests/attention_lab/experiments/test_positions.py",
    "tests/test_checks.py": "tests/attention_lab/checks/test_checks.py",
    "tests/test_layer_checks.py": "tests/attention_lab/checks/test_layers.py",
    "tests/test_chapter_checks.py": "tests/attention_lab/checks/test_chapter.py",
    "tests/test_exercise_checks.py": "tests/attention_lab/checks/test_exercises.py",
    "tests/test_selfcheck.py": "tests/attention_lab/checks/test_selfcheck.py",
    "tests/test_predictions.py": "tests/attention_lab/checks/test_predictions.py",
    "tests/test_widgets.py": "tests/attention_lab/explorer/test_query_explorer.py",
    "tests/test_explorer_readability.py": "tests/attention_lab/explorer/test_readability.py",
    "tests/test_projection_widget.py": "tests/attention_lab/explorer/test_projection_widget.py",
}
TESTS_ROOT = "tests/attention_lab"
SKIP = {"CHANGELOG.md", "tools/lab_plan.py"}


def module_path(dotted: str) -> str:
    """Return the file of a dotted attention_lab module."""
    return dotted.replace(".", "/") + ".py"


def git(*args: str) -> str:
    """Run git in the repository and return its output."""
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


# -- 1. moves ---------------------------------------------------------------------------------


def pending_moves() -> list[tuple[str, str]]:
    """List ``(old, new)`` paths of modules and tests still at their old place."""
    pairs = [(module_path(o), module_path(n)) for o, n in MODULES.items()] + list(TESTS.items())
    return [(old, new) for old, new in pairs if (ROOT / old).exists()]


def package_inits() -> dict[str, str]:
    """Every ``__init__.py`` the new layout needs, with the text a new one starts with."""
    inits = {
        module_path(pkg)[: -len(".py")] + "/__init__.py": doc for pkg, doc in NEW_PACKAGES.items()
    }
    for new in TESTS.values():
        folder = Path(new).parent
        if folder != Path(TESTS_ROOT):  # tests/attention_lab itself must not be a package
            inits[f"{folder}/__init__.py"] = ""
    return inits


def move(dry: bool) -> list[str]:
    """``git mv`` what is still at an old place (only list it when ``dry``)."""
    todo = []
    for path, text in package_inits().items():
        if not (ROOT / path).exists():
            todo.append(f"create {path}")
            if not dry:
                (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
                (ROOT / path).write_text(text)
                git("add", path)
    for old, new in pending_moves():
        todo.append(f"git mv {old} {new}")
        if not dry:
            if (ROOT / new).exists():
                raise SystemExit(f"both {old} and {new} exist: merge them by hand, then re-run")
            (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
            git("mv", old, new)
    return todo


# -- 2. references ----------------------------------------------------------------------------

_DOTTED = re.compile(
    r"(?<![\w.])("
    + "|".join(re.escape(o) for o in sorted(MODULES, key=len, reverse=True))
    + r")(?!\w)"
)
_PATHS = {module_path(o): module_path(n) for o, n in MODULES.items()} | dict(TESTS)
_PATH = re.compile(
    r"(?<![\w/.])(" + "|".join(re.escape(p) for p in sorted(_PATHS, key=len, reverse=True)) + r")"
)
_SHORT = {o.rsplit(".", 1)[1]: n for o, n in MODULES.items()}  # widgets -> attention_lab.explorer.…
_FROM_IMPORT = re.compile(
    r"^(?P<indent>[ \t]*)from attention_lab import (?P<names>\([^)]*\)|[^\n#\\]+?)[ \t]*(?P<end>#[^\n]*)?$",
    re.M,
)


def _split_from_import(match: re.Match) -> str:
    """``from attention_lab import a, widgets`` -> keep ``a``; import the moved one from its place."""
    names = [n.strip() for n in match["names"].strip("()").replace("\n", " ").split(",")]
    names = [n for n in names if n]
    kept, moved = [], []
    for name in names:
        base, _, alias = (part.strip() for part in name.partition(" as "))
        if base in _SHORT:
            package, new = _SHORT[base].rsplit(".", 1)
            bound = alias or base
            moved.append(f"from {package} import {new}" + ("" if new == bound else f" as {bound}"))
        else:
            kept.append(name)
    if not moved:
        return match.group(0)
    indent, end = match["indent"], f"  {match['end']}" if match["end"] else ""
    lines = ([f"from attention_lab import {', '.join(kept)}"] if kept else []) + moved
    return "\n".join(indent + line for line in lines) + end


def rewrite_code(text: str) -> str:
    """Return Python ``text`` with old module names and imports rewritten."""
    text = _FROM_IMPORT.sub(_split_from_import, text)
    text = _DOTTED.sub(lambda m: MODULES[m.group(1)], text)
    return _PATH.sub(lambda m: _PATHS[m.group(1)], text)


def rewrite_notebook(text: str) -> str:
    """Rewrite each cell's source as code, keeping nbformat's own JSON layout."""
    nb = json.loads(text)
    if json.dumps(nb, indent=1, ensure_ascii=False) + "\n" != text:
        return rewrite_code(text)  # not nbformat's layout: treat the JSON as text
    for cell in nb.get("cells", []):
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        new = rewrite_code(source)
        if new != source:
            cell["source"] = new.splitlines(keepends=True)
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def fix_depth(path: str, text: str) -> str:
    """Fix a moved test's repository root: ``parents[1]`` becomes ``parents[<its depth>]``."""
    depth = len(Path(path).parts) - 1
    return re.sub(r"(Path\(__file__\)\.resolve\(\)\.parents)\[1\]", rf"\g<1>[{depth}]", text)


def rewrite(dry: bool) -> list[str]:
    """Rewrite every tracked file that names an old place (only list them when ``dry``)."""
    changed = []
    for path in git("ls-files").splitlines():
        file = ROOT / path
        if path in SKIP or not file.is_file():
            continue
        try:
            text = file.read_text()
        except UnicodeDecodeError:
            continue
        new = rewrite_notebook(text) if path.endswith(".ipynb") else rewrite_code(text)
        if path in TESTS.values():
            new = fix_depth(path, new)
        if path == "pyproject.toml":
            new = add_packages(new)
        if new != text:
            changed.append(f"rewrite {path}")
            if not dry:
                file.write_text(new)
    return changed


def add_packages(text: str) -> str:
    """Return pyproject's text with every new package in ``packages``."""
    match = re.search(r"^packages = \[(?P<list>[^\]]*)\]", text, re.M)
    if not match:
        return text
    listed = re.findall(r'"([^"]+)"', match["list"])
    missing = [p for p in NEW_PACKAGES if p not in listed]
    if not missing:
        return text
    ordered = sorted(
        set(listed) | set(missing), key=lambda p: (not p.startswith("attention_lab"), p)
    )
    new_list = ", ".join(f'"{p}"' for p in ordered)
    return text[: match.start("list")] + new_list + text[match.end("list") :]


def tidy(changed: list[str]) -> None:
    """Sort the imports a split left out of order in the changed files; format the Python ones.

    Notebooks too: ruff keeps their JSON layout.
    """
    ruff = ROOT / ".venv" / "bin" / "ruff"
    files = [line.rsplit(" ", 1)[1] for line in changed if line.endswith((".py", ".ipynb"))]
    files = sorted({f for f in files if (ROOT / f).is_file()})
    if not ruff.exists() or not files:
        return
    subprocess.run([str(ruff), "check", "-q", "--select", "I", "--fix", *files], cwd=ROOT)
    python = [f for f in files if f.endswith(".py")]
    if python:
        subprocess.run([str(ruff), "format", "-q", *python], cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    """Move and rewrite, or with ``--check`` exit 1 naming what is left to do."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="list what is left to do; change nothing"
    )
    args = parser.parse_args(argv)
    todo = move(args.check)
    if args.check:
        # the rewrite is checked as it would stand after the moves
        todo += rewrite(True)
    else:
        todo += rewrite(False)
        tidy(todo)
    print("\n".join(todo) if todo else "attention_lab: nothing left to move or rewrite")
    return 1 if (args.check and todo) else 0


if __name__ == "__main__":
    sys.exit(main())
