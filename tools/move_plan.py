"""Lay the packages out by their plans, or check nothing is back at an old place (issue 30).

One tool for every layout, each a plan of data in ``tools/layout_plans.py``: ``grader`` (the
grader's modules in subpackages by concern, its tests in tests/attention_grader/), ``lab``
(attention_lab's explorer and checks, its tests in tests/attention_lab/), ``hub`` (the hub's
scripts beside its configs made the package ``attention_hub``: their bare-name imports are
rewritten only in the files the plan names as their importers, their paths everywhere) and
``tests`` (the tests' shared helpers in the package tests/support/, imported by dotted
name). Re-runnable and
idempotent: it moves (``git mv``) only what is still at an old place and rewrites only what
still names one, so a second run changes nothing. Run it again after merging a branch that
added or edited files at an old place::

    python tools/move_plan.py                 # every plan: move, then rewrite
    python tools/move_plan.py --check         # exit 1, naming each file, if anything is left
    python tools/move_plan.py --check lab     # one plan (make lint checks both)

What it rewrites in every text file git knows (``CHANGELOG.md``, which is history, and the plans
aside): dotted names (imports, ``mock.patch`` strings, config class paths, server extension
names, ``python -m ...``; a bare old name that is a new subpackage's name stays, it names the
subpackage now), ``from <package> import a, b`` (one line per place the names live now, ``as
<old name>`` where a module was renamed), the package's relative imports when the plan says so
(made absolute), paths of modules, data folders and tests (a test's bare file name in prose too),
imports of a helper from a moved test module, and, in a test it moves, ``Path(__file__).parents``
by the levels the file went down. Notebooks are rewritten cell by cell in nbformat's layout.
New packages get their ``__init__.py`` and a place in pyproject.toml's ``packages``; a package
the plan retires loses both once nothing else is in it (a module there the plan does not name
stops the run, and ``--check`` names it). ruff then sorts the imports of the files it changed.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from layout_plans import PLANS, Plan  # a sibling script, not an installed module

ROOT = Path(__file__).resolve().parents[1]
#: never rewritten: history (the changelog names the old places on purpose) and the plans
KEEP = {
    "CHANGELOG.md",
    "autograder/attention_grader/renamed.py",  # the old names, kept as aliases on purpose
    "tools/move_plan.py",
    "tools/layout_plans.py",
    "tests/tools/test_move_plan.py",
}
SKIP_DIRS = (".git/", ".venv/", "build/", "node_modules/")


def git(*args: str) -> str:
    """Run git in the repository and return its output."""
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


def module_path(plan: Plan, dotted: str) -> str:
    """Return the file of a dotted module of the plan's package (or of an old bare script)."""
    if "." not in dotted and plan.old_folder:
        return f"{plan.old_folder}/{dotted}.py"
    return f"{plan.folder}/{dotted.split('.', 1)[1].replace('.', '/')}.py"


def package_init(plan: Plan, dotted: str) -> str:
    """Return the ``__init__.py`` of a new package of the plan (the plan's own one too)."""
    if dotted == plan.package:
        return f"{plan.folder}/__init__.py"
    return module_path(plan, dotted)[: -len(".py")] + "/__init__.py"


def _leaf(dotted: str) -> tuple[str, str]:
    """``a.b.c`` -> (``a.b``, ``c``)."""
    parent, _, name = dotted.rpartition(".")
    return parent, name


# ---------------------------------------------------------------- moving files


def planned_moves(plan: Plan) -> list[tuple[str, str]]:
    """Every (old, new) path pair of the plan: modules, data folders and tests."""
    pairs = [(module_path(plan, o), module_path(plan, n)) for o, n in plan.modules.items()]
    pairs += [(f"{plan.folder}/{o}", f"{plan.folder}/{n}") for o, n in plan.data.items()]
    return pairs + list(plan.tests.items())


def init_files(plan: Plan) -> dict[str, str]:
    """Each new package's and test folder's ``__init__.py`` with the text it starts with."""
    files = {package_init(plan, p): t for p, t in plan.packages.items()}
    return files | {f"{folder}/__init__.py": "" for folder in plan.test_inits}


_FILE_PARENTS = re.compile(r"(Path\(__file__\)(?:\.resolve\(\))?)\.parents\[(\d+)\]")
_FILE_PARENT = re.compile(r"(Path\(__file__\)(?:\.resolve\(\))?)\.parent(?![\w.\[])")


def deepen_file_paths(text: str, deeper: int) -> str:
    """``Path(__file__).parents[1]`` in a test moved ``deeper`` levels down still means the repo."""
    if deeper <= 0:
        return text
    text = _FILE_PARENTS.sub(lambda m: f"{m[1]}.parents[{int(m[2]) + deeper}]", text)
    return _FILE_PARENT.sub(lambda m: f"{m[1]}.parents[{deeper}]", text)


def move_files(plan: Plan, check: bool) -> list[str]:
    """``git mv`` what is still at an old place (only list it when ``check``)."""
    todo = []
    for path, text in init_files(plan).items():
        if not (ROOT / path).exists():
            todo.append(f"create {path}")
            if not check:
                (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
                (ROOT / path).write_text(text)
                git("add", path)
    for old, new in planned_moves(plan):
        if not (ROOT / old).exists():
            continue
        if (ROOT / new).exists():
            sys.exit(f"move_plan: both {old} and {new} exist; merge them by hand, then re-run")
        todo.append(f"move {old} -> {new}")
        if check:
            continue
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
        if new.startswith("tests/") and new.endswith(".py"):
            path = ROOT / new
            path.write_text(deepen_file_paths(path.read_text(), new.count("/") - old.count("/")))
    return todo + retire_packages(plan, check)


def retire_packages(plan: Plan, check: bool) -> list[str]:
    """``git rm`` the ``__init__.py`` of each retired package the plan emptied."""
    todo = []
    for package in plan.retired:
        init = module_path(plan, package)[: -len(".py")] + "/__init__.py"
        folder = (ROOT / init).parent
        if not folder.exists():
            continue
        moving = {old for old, _ in planned_moves(plan)}
        left = sorted(path for p in folder.rglob("*.py")
                      if p.name != "__init__.py" and "__pycache__" not in p.parts
                      and (path := p.relative_to(ROOT).as_posix()) not in moving)  # fmt: skip
        if left:
            todo += [f"place {path} (its package {package} is retired): add it to the plan"
                     for path in left]  # fmt: skip
            if not check:
                sys.exit(f"move_plan: {', '.join(left)} left in retired {package}: "
                         "add each to the plan, then re-run")  # fmt: skip
            continue
        if (ROOT / init).exists() and not any(p.exists() for p in map(ROOT.joinpath, moving)
                                              if p.is_relative_to(folder)):  # fmt: skip
            todo.append(f"retire {package}")
            if not check:
                git("rm", "-q", "-f", init)  # its docstring only: the modules moved
                if folder.exists() and not any(folder.rglob("*.py")):
                    shutil.rmtree(folder)  # what is left is byte code
    return todo


# ---------------------------------------------------------------- rewriting references


def _alternation(names: list[str]) -> str:
    return "|".join(sorted(map(re.escape, names), key=len, reverse=True))


class Rewriter:
    """Every rule that rewrites a reference to an old place of one plan, compiled once."""

    def __init__(self, plan: Plan):
        self.plan = plan
        pkg = re.escape(plan.package)
        # old bare script names (plan.old_folder) are rewritten in imports and paths only
        self.bare = {o: n for o, n in plan.modules.items() if "." not in o and plan.old_folder}
        dotted = [o for o in plan.modules if o not in self.bare]
        self.dotted = re.compile(rf"(?<![\w.])({_alternation(dotted)})(?![\w])(\.\w+)?") if dotted else None  # fmt: skip
        # the modules of each new package (a bare old name that is now a package names it)
        self.package_modules: dict[str, set[str]] = {p: set() for p in plan.packages}
        for new in plan.modules.values():
            parent, name = _leaf(new)
            self.package_modules.setdefault(parent, set()).add(name)
        self.short = {
            _leaf(o)[1]: n for o, n in plan.modules.items() if _leaf(o)[0] == plan.package
        }
        # ``from <parent> import a, b``: the moved modules of each old parent package
        self.children: dict[str, dict[str, str]] = {}
        for old, new in plan.modules.items():
            if old in dotted:
                self.children.setdefault(_leaf(old)[0], {})[_leaf(old)[1]] = new
        parents = _alternation(list(self.children)) if self.children else pkg
        names = r"\w+(?:[ \t]+as[ \t]+\w+)?"
        self.from_package = re.compile(
            rf"(?<![\w.])from ({parents}) import (\([^)]*\)|{names}(?:,[ \t]*{names})*)"
        )
        self.relative = re.compile(r"^([ \t]*)from \.(\w*)((?:\.\w+)*) import ", re.M)
        self.relative_ref = re.compile(rf"(?<=`)(~?)\.({_alternation(list(self.short))})(?=[.`])")
        # paths: the package's folder with or without what contains it (autograder/)
        outer, _, inner = plan.folder.rpartition("/")
        prefix = (
            rf"(?:{re.escape(outer)}/)?{re.escape(inner)}/" if outer else rf"{re.escape(inner)}/"
        )
        self.paths = {module_path(plan, o).split(f"{inner}/", 1)[1]: module_path(plan, n)
                      .split(f"{inner}/", 1)[1] for o, n in plan.modules.items() if o in dotted}  # fmt: skip
        self.path = re.compile(rf"(?<![\w/])({prefix})({_alternation(list(self.paths))})(?![\w])") if self.paths else None  # fmt: skip
        if self.bare:
            names = _alternation(list(self.bare))
            self.bare_import = re.compile(
                rf"^([ \t]*)(?:from[ \t]+({names})[ \t]+import[ \t]|import[ \t]+({names})(?![\w.]))",
                re.M,
            )
            old_outer, _, old_inner = plan.old_folder.rpartition("/")
            self.bare_path = re.compile(
                rf"(?<![\w/])(?:{re.escape(old_outer)}/)?{re.escape(old_inner)}/({names})\.py(?![\w])"
            )
        self.data = re.compile(rf"(?<![\w/])({prefix})({_alternation(list(plan.data))})\b") if plan.data else None  # fmt: skip
        # a test's path, or its bare file name in prose, becomes its new path
        self.test_by_name = {Path(o).name: n for o, n in plan.tests.items()}
        dirs = _alternation(sorted({Path(o).parent.as_posix() + "/" for o in plan.tests}))
        # (a helper's bare name may be another module's: it is rewritten only after its folder)
        folder = f"(?:{dirs})" if plan.helpers else f"(?:{dirs})?"
        self.test_path = re.compile(
            rf"(?<![\w/.-]){folder}({_alternation(list(self.test_by_name))})(?![\w])"
        ) if plan.tests else None  # fmt: skip
        # an attack is also named by its module name (test ids, expectations)
        self.attacks = {Path(o).stem: Path(n).stem for o, n in plan.tests.items()
                        if o.startswith("tests/attacks/") and Path(o).stem != Path(n).stem}  # fmt: skip
        self.attack = re.compile(rf"(?<![\w/])({_alternation(list(self.attacks))})(?![\w])") if self.attacks else None  # fmt: skip
        # a test importing a helper from another test module by its name
        self.stems = {Path(o).stem: Path(n).stem for o, n in plan.tests.items()
                      if o.count("/") == 1 and Path(o).stem != Path(n).stem}  # fmt: skip
        self.test_import = re.compile(
            rf"^([ \t]*(?:from|import)[ \t]+)({_alternation(list(self.stems))})(?![\w.])", re.M
        ) if self.stems else None  # fmt: skip
        # helper modules imported by their bare names (their folder was on sys.path) become
        # modules of a package: `from x import` and `import x` name the new dotted module
        self.helpers = {Path(o).stem: n.removesuffix(".py").replace("/", ".")
                        for o, n in plan.tests.items()} if plan.helpers else {}  # fmt: skip
        helpers = _alternation(list(self.helpers))
        self.helper_from = re.compile(rf"^([ \t]*from[ \t]+)({helpers})(?=[ \t]+import\b)", re.M)
        self.helper_import = re.compile(rf"^([ \t]*)import[ \t]+({helpers})[ \t]*$", re.M)
        triggers = [
            plan.package,
            inner,
            *self.test_by_name,
            *self.attacks,
            *self.stems,
            *self.helpers,
        ]
        triggers += [*self.bare, plan.old_folder.rpartition("/")[2]] if self.bare else []
        self.trigger = re.compile(_alternation(triggers))

    # -- the rules

    def _dotted(self, match: re.Match) -> str:
        old, rest = match[1], match[2] or ""
        if old in self.package_modules:  # the bare old name is a new package's name
            modules = self.package_modules[old]
            if rest[1:] in modules:
                return match[0]  # already the new name (attention_grader.intake.intake)
            imported = _IMPORTED.match(match.string, match.end()) if not rest else None
            if not rest and not imported:
                return match[0]  # the bare name is the package now
            names = {n.split(" as ")[0].strip() for n in imported[1].split(",")} if imported else ()
            if names and all(n in modules or not n for n in names):
                return match[0]  # from attention_grader.intake import intake, late
        return self.plan.modules[old] + rest

    def _from_package(self, match: re.Match) -> str:
        """``from <package> import a, b`` by where each name lives now, one line per place.

        ``<package>`` is the plan's package or any package a moved module was in
        (``from attention_grader.term import grade`` once ``grade`` went to ``steps``).
        """
        parent, moved = match[1], self.children.get(match[1], {})
        parts = [n.strip() for n in match[2].strip("()").replace("\n", " ").split(",")]
        parts = [" ".join(n.split()) for n in parts if n.strip()]
        if not {n.split(" as ")[0] for n in parts} & set(moved):
            return match[0]
        by_place: dict[str, list[str]] = {}
        for name in parts:
            base, _, alias = name.partition(" as ")
            if base not in moved:
                by_place.setdefault(parent, []).append(name)
                continue
            place, new = _leaf(moved[base])
            bound = alias or base
            by_place.setdefault(place, []).append(new if new == bound else f"{new} as {bound}")
        line_start = match.string.rfind("\n", 0, match.start()) + 1
        indent = match.string[line_start : match.start()]
        joiner = f"\n{indent}" if not indent.strip() else "; "
        return joiner.join(
            f"from {place} import {', '.join(sorted(names))}"
            for place, names in sorted(by_place.items())
        )

    def _relative(self, path: str) -> Callable[[re.Match], str]:
        """Make a relative import absolute, as the module it meant (old or new place)."""
        here = Path(path).parent.relative_to(self.plan.folder).parts  # () at the top
        package = self.plan.package

        def fix(match: re.Match) -> str:
            indent, first, rest = match[1], match[2], match[3]
            if not first:  # from . import x
                target = ".".join((package, *here))
            elif first in self.short:
                target = self.short[first]
            elif here and (ROOT / self.plan.folder / here[0] / f"{first}.py").exists():
                target = f"{package}.{here[0]}.{first}"
            else:
                target = f"{package}.{first}"
            return f"{indent}from {target}{rest} import "

        return fix

    def code(self, path: str, text: str) -> str:
        """Return ``text`` (a file, or a notebook cell's source) with old places rewritten."""
        plan = self.plan
        in_package = path.startswith(plan.folder + "/") and path.endswith(".py")
        if not (in_package and plan.absolute_imports) and not self.trigger.search(text):
            return text
        if in_package and plan.absolute_imports:
            text = self.relative.sub(self._relative(path), text)
            # a docstring's :func:`~.report.Report` names the module wherever it lives now
            text = self.relative_ref.sub(lambda m: f"{m[1]}{self.short[m[2]]}", text)
        if self.dotted:
            text = self.dotted.sub(self._dotted, text)
        if self.bare:
            text = self._bare(path, text)
        text = self.from_package.sub(self._from_package, text)
        if self.path:
            text = self.path.sub(lambda m: f"{m[1]}{self.paths[m[2]]}", text)
        if self.helpers:
            text = self.helper_from.sub(lambda m: m[1] + self.helpers[m[2]], text)
            text = self.helper_import.sub(
                lambda m: f"{m[1]}from {_leaf(self.helpers[m[2]])[0]} import {m[2]}", text
            )
        if self.data:
            text = self.data.sub(lambda m: f"{m[1]}{plan.data[m[2]]}", text)
        if self.test_path:
            text = self.test_path.sub(lambda m: self.test_by_name[m[1]], text)
        if self.test_import:
            text = self.test_import.sub(lambda m: m[1] + self.stems[m[2]], text)
        return self.attack.sub(lambda m: self.attacks[m[0]], text) if self.attack else text

    def _bare(self, path: str, text: str) -> str:
        """Rewrite an old script's path anywhere, its bare-name import in the files that meant it."""
        plan = self.plan
        text = self.bare_path.sub(lambda m: module_path(plan, self.bare[m[1]]), text)
        if not (path.endswith(".py") and path.startswith(plan.importers)):
            return text

        def fix(match: re.Match) -> str:
            if match[2]:  # from classroom import X
                return f"{match[1]}from {self.bare[match[2]]} import "
            parent, name = _leaf(self.bare[match[3]])  # import classroom
            return f"{match[1]}from {parent} import {name}"

        return self.bare_import.sub(fix, text)

    def notebook(self, path: str, text: str) -> str:
        """Rewrite each cell's source, keeping nbformat's own JSON layout."""
        try:
            nb = json.loads(text)
        except ValueError:
            return self.code(path, text)
        if json.dumps(nb, indent=1, ensure_ascii=False) + "\n" != text:
            return self.code(path, text)  # not nbformat's layout: the JSON is text
        for cell in nb.get("cells", []):
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            new = self.code(path, source)
            if new != source:
                cell["source"] = new.splitlines(keepends=True)
        return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"

    def pyproject(self, text: str) -> str:
        """Return pyproject's text with every new package in ``packages``, a retired one out.

        The list keeps its lines and comments: a retired package's entry is cut where it stands,
        new ones go on a line after the last entry of the plan's package (or the list's last).
        """
        match = re.search(r"^packages = \[(?P<list>[^\]]*)\]", text, re.M)
        if not match:
            return text
        body = match["list"]
        listed = re.findall(r'"([^"]+)"', re.sub(r"#[^\n]*", "", body))
        missing = [p for p in self.plan.packages if p not in listed]
        # a retired package leaves the list once its folder is gone
        gone = [p for p in self.plan.retired
                if p in listed and not (ROOT / module_path(self.plan, p)[: -len(".py")]).exists()]  # fmt: skip
        if "\n" not in body:  # one line: written anew, in its order, the new ones last
            kept = [p for p in listed if p not in gone] + sorted(missing)
            body = ", ".join(f'"{p}"' for p in kept)
            missing = []
        for package in gone:
            body = re.sub(rf'"{re.escape(package)}",?[ \t]*', "", body, count=1)
        if missing:
            top = self.plan.package.split(".")[0]
            entries = list(re.finditer(r'"([^"]+)",?', body))
            after = [e for e in entries if e[1].split(".")[0] == top] or entries
            line_start = body.rfind("\n", 0, after[-1].start()) + 1 if after else 0
            indent = re.match(r"[ \t]*", body[line_start:])[0] if after else "    "
            added = ", ".join(f'"{p}"' for p in sorted(missing))
            at = after[-1].end() if after else len(body)
            comma = "" if not after or body[:at].endswith(",") else ","
            body = f"{body[:at]}{comma}\n{indent}{added},{body[at:]}"
        if body == match["list"]:
            return text
        return text[: match.start("list")] + body + text[match.end("list") :]

    def rewrite(self, path: str, text: str) -> str:
        """Return a file's ``text`` with every reference to an old place rewritten."""
        if path.endswith(".ipynb"):
            return self.notebook(path, text)
        text = self.code(path, text)
        return self.pyproject(text) if path == "pyproject.toml" else text


_IMPORTED = re.compile(r"[ \t]+import[ \t]+\(?([\w, \t]+)")


def text_files() -> list[str]:
    """List the text files git knows (tracked or new) that may name an old place."""
    listed = git("ls-files", "-co", "--exclude-standard", "-z").split("\0")
    return sorted(p for p in listed if p and p not in KEEP and not p.startswith(SKIP_DIRS)
                  and (ROOT / p).is_file())  # fmt: skip


def rewrite_files(plan: Plan, check: bool) -> list[str]:
    """Rewrite every text file that names an old place (only list them when ``check``)."""
    rewriter, changed = Rewriter(plan), []
    for path in text_files():
        raw = (ROOT / path).read_bytes()
        if b"\0" in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        new = rewriter.rewrite(path, text)
        if new != text:
            changed.append(f"rewrite {path}")
            if not check:
                (ROOT / path).write_text(new, encoding="utf-8")
    return changed


def tidy(paths: list[str]) -> None:
    """Sort the imports a rewrite left out of order, notebooks too; format the Python files."""
    ruff = ROOT / ".venv" / "bin" / "ruff"
    files = sorted({p for p in paths if p.endswith((".py", ".ipynb")) and (ROOT / p).is_file()})
    if not files:
        return
    if not ruff.exists():
        print("move_plan: no .venv/bin/ruff; run `ruff check --fix --select I` and `ruff format`"
              " on the rewritten files", file=sys.stderr)  # fmt: skip
        return
    subprocess.run([str(ruff), "check", "-q", "--fix", "--select", "I", *files], cwd=ROOT)
    python = [f for f in files if f.endswith(".py")]
    if python:
        subprocess.run([str(ruff), "format", "-q", *python], cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    """Move and rewrite by the plans named, or with ``--check`` exit 1 naming what is left."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("plans", nargs="*", metavar="PLAN",
                        help=f"which plans: {', '.join(PLANS)} (default: all)")  # fmt: skip
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if anything is still at an old place")  # fmt: skip
    args = parser.parse_args(argv)
    if unknown := set(args.plans) - set(PLANS):
        parser.error(f"no plan {', '.join(sorted(unknown))}: the plans are {', '.join(PLANS)}")
    todo: list[str] = []
    for name in args.plans or PLANS:
        plan = PLANS[name]
        moved = move_files(plan, args.check)
        rewritten = rewrite_files(plan, args.check)
        if not args.check:
            tidy([line.split()[-1] for line in rewritten])
        todo += [f"{name}: {line}" for line in moved + rewritten]
    for line in todo:
        print(("would " if args.check else "") + line)
    if args.check and todo:
        print("move_plan: run `python tools/move_plan.py` to move them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
