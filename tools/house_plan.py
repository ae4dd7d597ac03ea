"""The house plan (issue 30): move the grader's modules and their tests to where they live now.

Re-runnable and idempotent: it moves (``git mv``) only what is still at its old place and
rewrites every reference to an old place in the repository's text files; a second run changes
nothing. Run it again after merging a branch that added or edited files at the old places::

    python tools/house_plan.py            # move and rewrite
    python tools/house_plan.py --check    # exit 1, naming each file, if anything is left to do

A bare ``attention_grader.intake`` or ``attention_grader.sandbox`` names the subpackage (the
module of that name was moved into it): only their attributes and ``from ... import`` of names
that are not its modules are rewritten. What it rewrites: dotted names (``attention_grader.trusted`` -> ``attention_grader.execution.
trusted``: imports, ``mock.patch`` strings, nbgrader config class paths, server extension names,
``python -m ...``), ``from attention_grader import a, b`` lines, the grader's relative imports
(made absolute), paths (``autograder/attention_grader/trusted.py``, ``tests/test_grader_x.py``),
and, in a test file it moves, ``Path(__file__).parents[N]`` by the levels the file went down.
A new grader module goes into :data:`MOVES`, a new grader test into :data:`TEST_MOVES`.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRADER = "autograder/attention_grader"
PACKAGE = "attention_grader"

#: What each subpackage holds, in the order a subpackage may import the ones before it (the
#: exact rule: tests/attention_grader/test_house_plan.py's ALLOWED).
SUBPACKAGES = {
    "common": "What every part reads: the course, the batch summary, safe text, a notebook's outcomes.",
    "intake": "A submission on its way in: the exchange, who handed in and when, files made safe, due dates and late penalties.",
    "sandbox": "Where a student's kernel runs: bubblewrap, the sandbox user, the implement-it stub, the protections report.",
    "execution": "Grading one notebook: the sandboxed kernel, the answer channel, trusted checking, flags, the budget, the workers.",
    "pages": "Every HTML page: sanitising, the CSP, offline maths, the feedback and formgrader pages, the lessons' and docs' static site.",
    "term": "The teacher's steps of a term: release, collect, grade, feedback, grades, report, gain, self-study.",
}

#: old module (top of attention_grader) -> its subpackage
MOVES = {
    # common
    "course": "common", "outcomes": "common", "question_labels": "common",
    "safe_text": "common", "summary": "common", "flags": "common", "settings": "common",
    "diagnosis": "common",
    # intake
    "due": "intake", "exchange_identity": "intake", "intake": "intake",
    "intake_files": "intake", "intake_notebook": "intake", "late": "intake",
    "private_submit": "intake", "safe_exchange": "intake", "submission_history": "intake",
    # sandbox
    "implement_it": "sandbox", "protections": "sandbox", "sandbox": "sandbox",
    "sandbox_host": "sandbox", "sandbox_launch": "sandbox", "control_dir": "sandbox",
    # execution
    "_kernel_side": "execution", "answer_sets": "execution", "answer_types": "execution",
    "answers": "execution", "budget": "execution", "execute": "execution",
    "execution_stops": "execution", "figure_snapshot": "execution",
    "flag_limited_output": "execution", "gradebook_sync": "execution",
    "kernel_client": "execution", "kernel_tests": "execution", "library_flags": "execution",
    "library_use": "execution", "needs_teacher": "execution", "object_handles": "execution",
    "shards": "execution", "solution_check": "execution", "speedups": "execution",
    "tamper": "execution", "test_styles": "execution", "trusted": "execution",
    "trusted_scope": "execution", "worker": "execution", "kernel_bindings": "execution",
    # answers.py split by concern (issue 30, seventh landing), and the parts of trusted.py
    "answer_channel": "execution", "answer_decoding": "execution", "answer_encoding": "execution",
    "answer_errors": "execution", "student_function": "execution", "unsupported_answer": "execution",
    "trusted_cells": "execution", "cell_code": "execution", "handle_table": "execution",
    # pages
    "csp": "pages", "docs_site": "pages", "feedback_page": "pages", "formgrader_view": "pages",
    "html_clean": "pages", "html_safety": "pages", "lesson_pages": "pages",
    "offline_html": "pages",
    # term
    "collect": "term", "feedback": "term", "formgrader_scores": "term", "gain": "term",
    "gain_page": "term", "grade": "term", "grades": "term", "lms": "term",
    "progress": "term", "release": "term", "report": "term", "report_page": "term",
    "selfstudy": "term", "validate_labels": "term", "validate_check": "term",
}  # fmt: skip

#: folders of data that move with their module (package data, not subpackages)
DATA_MOVES = {"library_stub": "sandbox"}

#: the modules that stay at the top: the entry points
TOP = ("__init__", "__main__", "cli", "limits", "pipeline")

#: old test file -> new test file (paths relative to the repository)
TEST_MOVES = {
    "tests/test_grader_course.py": "tests/attention_grader/common/test_course.py",
    "tests/test_flags.py": "tests/attention_grader/common/test_flags.py",
    "tests/test_grader_settings.py": "tests/attention_grader/common/test_settings.py",
    "tests/test_submission_history.py": "tests/attention_grader/intake/test_submission_history.py",
    "tests/test_grader_handles.py": "tests/attention_grader/execution/test_object_handles.py",
    "tests/test_validate_release_check.py": "tests/attention_grader/term/test_validate_check.py",
    "tests/test_grader_outcomes.py": "tests/attention_grader/common/test_outcomes.py",
    "tests/test_grader_summary.py": "tests/attention_grader/common/test_summary.py",
    "tests/test_exchange_identity.py": "tests/attention_grader/intake/test_exchange_identity.py",
    "tests/test_intake.py": "tests/attention_grader/intake/test_intake.py",
    "tests/test_intake_batch.py": "tests/attention_grader/intake/test_intake_batch.py",
    "tests/test_grader_late.py": "tests/attention_grader/intake/test_late.py",
    "tests/test_implement_it.py": "tests/attention_grader/sandbox/test_implement_it.py",
    "tests/test_implement_it_grading.py": "tests/attention_grader/sandbox/test_implement_it_grading.py",
    "tests/test_sandbox.py": "tests/attention_grader/sandbox/test_sandbox.py",
    "tests/test_grader_answers.py": "tests/attention_grader/execution/test_answers.py",
    "tests/test_grader_budget.py": "tests/attention_grader/execution/test_budget.py",
    "tests/test_grader_execute.py": "tests/attention_grader/execution/test_execute.py",
    "tests/test_execution_stops.py": "tests/attention_grader/execution/test_execution_stops.py",
    "tests/test_flag_limited_output.py": "tests/attention_grader/execution/test_flag_limited_output.py",
    "tests/test_grader_shards.py": "tests/attention_grader/execution/test_shards.py",
    "tests/test_grader_speedups.py": "tests/attention_grader/execution/test_speedups.py",
    "tests/test_tamper.py": "tests/attention_grader/execution/test_tamper.py",
    "tests/test_grader_carry.py": "tests/attention_grader/execution/test_test_styles.py",
    "tests/test_grader_trusted.py": "tests/attention_grader/execution/test_trusted.py",
    "tests/test_grader_docs_site.py": "tests/attention_grader/pages/test_docs_site.py",
    "tests/test_grader_feedback_page.py": "tests/attention_grader/pages/test_feedback_page.py",
    "tests/test_grader_formgrader_view.py": "tests/attention_grader/pages/test_formgrader_view.py",
    "tests/test_html_safety.py": "tests/attention_grader/pages/test_html_safety.py",
    "tests/test_grader_lesson_pages.py": "tests/attention_grader/pages/test_lesson_pages.py",
    "tests/test_grader_feedback.py": "tests/attention_grader/term/test_feedback.py",
    "tests/test_grader_gain.py": "tests/attention_grader/term/test_gain.py",
    "tests/test_grader_grade.py": "tests/attention_grader/term/test_grade.py",
    "tests/test_grader_grades.py": "tests/attention_grader/term/test_grades.py",
    "tests/test_grader_progress.py": "tests/attention_grader/term/test_progress.py",
    "tests/test_grader_release.py": "tests/attention_grader/term/test_release.py",
    "tests/test_grader_report.py": "tests/attention_grader/term/test_report.py",
    "tests/test_grader_selfstudy.py": "tests/attention_grader/term/test_selfstudy.py",
    # the grader end to end, across its subpackages
    "tests/test_accuracy.py": "tests/attention_grader/test_accuracy.py",
    "tests/test_grader_class_of_12.py": "tests/attention_grader/test_class_of_12.py",
    "tests/test_grader_cli.py": "tests/attention_grader/test_cli.py",
    "tests/test_ids_escaped.py": "tests/attention_grader/test_ids_escaped.py",
    "tests/test_ordinary_questions.py": "tests/attention_grader/test_ordinary_questions.py",
    "tests/test_grader_postgres.py": "tests/attention_grader/test_postgres.py",
    "tests/test_grader_workflow.py": "tests/attention_grader/test_workflow.py",
    # the attack named after what it tests, not after the in-kernel guard that is gone
    "tests/attacks/skip_guard_cells.py": "tests/attacks/skip_grader_requests.py",
}

#: never rewritten: history (the changelog names the old places on purpose) and this plan itself
KEEP = {"CHANGELOG.md", "tools/house_plan.py", "tests/tools/test_house_plan.py"}
SKIP_DIRS = (".git/", ".venv/", "build/", "node_modules/")


def new_module(old: str) -> str:
    """``trusted`` -> ``execution.trusted``; a name not in the plan stays as it is."""
    return f"{MOVES[old]}.{old}" if old in MOVES else old


def module_path(dotted: str) -> str:
    """Return the file of a dotted grader module (``execution.trusted`` -> its ``.py``)."""
    return f"{GRADER}/{dotted.replace('.', '/')}.py"


# ---------------------------------------------------------------- moving files


def git(*args: str) -> str:
    """Run git in the repository and return its output."""
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


def planned_moves() -> list[tuple[str, str]]:
    """Every (old, new) path pair of the plan, modules, data and tests."""
    pairs = [(module_path(old), module_path(new_module(old))) for old in MOVES]
    pairs += [(f"{GRADER}/{d}", f"{GRADER}/{sub}/{d}") for d, sub in DATA_MOVES.items()]
    return pairs + list(TEST_MOVES.items())


def pending_moves() -> list[tuple[str, str]]:
    """List ``(old, new)`` paths of modules and tests still at their old place."""
    return [(old, new) for old, new in planned_moves() if (ROOT / old).exists()]


def init_files() -> dict[str, str]:
    """Each subpackage's ``__init__.py`` (its docstring says what it holds)."""
    files = {f"{GRADER}/{sub}/__init__.py": f'"""{text}"""\n' for sub, text in SUBPACKAGES.items()}
    return files


def move_files(check: bool) -> list[str]:
    """``git mv`` what is still at an old place (only list it when ``check``)."""
    todo = []
    for path, text in init_files().items():
        if not (ROOT / path).exists():
            todo.append(f"create {path}")
            if not check:
                (ROOT / path).parent.mkdir(parents=True, exist_ok=True)
                (ROOT / path).write_text(text)
                git("add", path)
    for old, new in pending_moves():
        if (ROOT / new).exists():
            sys.exit(f"house_plan: both {old} and {new} exist; merge them by hand, then re-run")
        todo.append(f"move {old} -> {new}")
        if check:
            continue
        (ROOT / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
        if new.startswith("tests/") and new.endswith(".py"):
            deeper = new.count("/") - old.count("/")
            path = ROOT / new
            path.write_text(deepen_file_paths(path.read_text(), deeper))
    return todo


_FILE_PARENTS = re.compile(r"(Path\(__file__\)(?:\.resolve\(\))?)\.parents\[(\d+)\]")
_FILE_PARENT = re.compile(r"(Path\(__file__\)(?:\.resolve\(\))?)\.parent(?![\w.\[])")


def deepen_file_paths(text: str, deeper: int) -> str:
    """``Path(__file__).parents[1]`` in a test moved ``deeper`` levels down still means the repo."""
    if deeper <= 0:
        return text
    text = _FILE_PARENTS.sub(lambda m: f"{m[1]}.parents[{int(m[2]) + deeper}]", text)
    return _FILE_PARENT.sub(lambda m: f"{m[1]}.parents[{deeper}]", text)


# ---------------------------------------------------------------- rewriting references

_NAME = "|".join(sorted(map(re.escape, MOVES), key=len, reverse=True))
# attention_grader.<old>, unless it is already attention_grader.<sub>.<module of sub>
_DOTTED = re.compile(rf"(?<![\w.]){PACKAGE}\.({_NAME})(?![\w])(\.\w+)?")
_FROM_PACKAGE = re.compile(
    rf"(?<![\w.])from {PACKAGE} import (\w+(?: as \w+)?(?:,[ \t]*\w+(?: as \w+)?)*)"
)
_RELATIVE = re.compile(r"^([ \t]*)from \.(\w*)((?:\.\w+)*) import ", re.M)
_OLD_PATH = re.compile(rf"(?<![\w/])((?:autograder/)?{PACKAGE}/)({_NAME})\.py\b")
_DATA_PATH = re.compile(
    rf"(?<![\w/])((?:autograder/)?{PACKAGE}/)({'|'.join(map(re.escape, DATA_MOVES))})\b"
)
_SUB_MODULES = {sub: {m for m, s in MOVES.items() if s == sub} for sub in SUBPACKAGES}


_IMPORTED = re.compile(r"[ \t]+import[ \t]+\(?([\w, \t]+)")


def _dotted(match: re.Match) -> str:
    old, rest = match[1], match[2] or ""
    if old in SUBPACKAGES:  # already the new name? (attention_grader.intake.intake)
        if rest[1:] in _SUB_MODULES[old]:
            return match[0]
        imported = _IMPORTED.match(match.string, match.end()) if not rest else None
        if not rest and not imported:
            return match[0]  # the bare name is the subpackage now
        names = {n.split(" as ")[0].strip() for n in imported[1].split(",")} if imported else ()
        if names and all(n in _SUB_MODULES[old] or not n for n in names):
            return match[0]  # from attention_grader.intake import intake, late
    return f"{PACKAGE}.{new_module(old)}{rest}"


def _from_package(match: re.Match) -> str:
    """``from attention_grader import a, b`` by subpackage: one line each (``; `` in a string)."""
    parts = [n.strip() for n in match[1].split(",") if n.strip()]
    if not {n.split(" as ")[0] for n in parts} & set(MOVES):
        return match[0]
    by_sub: dict[str, list[str]] = {}
    for name in parts:
        by_sub.setdefault(MOVES.get(name.split(" as ")[0], ""), []).append(name)
    line_start = match.string.rfind("\n", 0, match.start()) + 1
    indent = match.string[line_start : match.start()]
    joiner = f"\n{indent}" if not indent.strip() else "; "
    return joiner.join(
        f"from {PACKAGE}{'.' + sub if sub else ''} import {', '.join(sorted(names))}"
        for sub, names in sorted(by_sub.items())
    )


def _relative(path: str):
    """Make a relative import in the grader absolute, as the module it meant (old or new place)."""
    here = Path(path).parent.relative_to(GRADER).parts  # () at the top, ("execution",) below

    def fix(match: re.Match) -> str:
        indent, first, rest = match[1], match[2], match[3]
        if not first:  # from . import x
            target = ".".join((PACKAGE, *here))
        elif first in MOVES:
            target = f"{PACKAGE}.{new_module(first)}"
        elif here and (ROOT / GRADER / here[0] / f"{first}.py").exists():
            target = f"{PACKAGE}.{here[0]}.{first}"
        else:
            target = f"{PACKAGE}.{first}"
        return f"{indent}from {target}{rest} import "

    return fix


# a test's path, or its bare file name in prose (``test_grader_cli.py``), becomes its new path
_TEST_BY_NAME = {Path(old).name: new for old, new in TEST_MOVES.items()}
_TEST_PATH = re.compile(
    r"(?<![\w/.-])(?:tests/(?:attacks/)?)?("
    + "|".join(sorted(map(re.escape, _TEST_BY_NAME), key=len, reverse=True))
    + r")(?![\w])"
)
# an attack is also named by its module name (test ids, expectations)
_ATTACKS = {
    Path(o).stem: Path(n).stem for o, n in TEST_MOVES.items() if o.startswith("tests/attacks/")
}
_ATTACK = re.compile(r"(?<![\w/])(" + "|".join(_ATTACKS) + r")(?![\w])")
# a test importing a helper from another test module by its name
_TEST_STEMS = {Path(o).stem: Path(n).stem for o, n in TEST_MOVES.items() if o.count("/") == 1}
_TEST_IMPORT = re.compile(
    r"^([ \t]*(?:from|import)[ \t]+)(" + "|".join(_TEST_STEMS) + r")(?![\w.])", re.M
)
_TRIGGER = re.compile("|".join([PACKAGE, *map(re.escape, _TEST_BY_NAME), *_ATTACKS, *_TEST_STEMS]))
_RELATIVE_REF = re.compile(rf"(?<=`)(~?)\.({_NAME})(?=[.`])")


def rewrite(path: str, text: str) -> str:
    """Return ``text`` with every reference to an old place rewritten."""
    grader_code = path.startswith(GRADER + "/") and path.endswith(".py")
    if not grader_code and not _TRIGGER.search(text):
        return text
    if path.startswith(GRADER + "/") and path.endswith(".py"):
        text = _RELATIVE.sub(_relative(path), text)
        # a docstring's :func:`~.report.Report` names the module wherever it lives now
        text = _RELATIVE_REF.sub(lambda m: f"{m[1]}{PACKAGE}.{new_module(m[2])}", text)
    text = _DOTTED.sub(_dotted, text)
    text = _FROM_PACKAGE.sub(_from_package, text)
    text = _OLD_PATH.sub(lambda m: f"{m[1]}{MOVES[m[2]]}/{m[2]}.py", text)
    text = _DATA_PATH.sub(lambda m: f"{m[1]}{DATA_MOVES[m[2]]}/{m[2]}", text)
    text = _TEST_PATH.sub(lambda m: _TEST_BY_NAME[m[1]], text)
    text = _TEST_IMPORT.sub(lambda m: m[1] + _TEST_STEMS[m[2]], text)
    return _ATTACK.sub(lambda m: _ATTACKS[m[0]], text) if _ATTACKS else text
    return text


def text_files() -> list[str]:
    """List the text files git tracks that may name an old place."""
    listed = git("ls-files", "-co", "--exclude-standard", "-z").split("\0")
    return sorted(p for p in listed if p and p not in KEEP and not p.startswith(SKIP_DIRS)
                  and (ROOT / p).is_file())  # fmt: skip


def rewrite_files(check: bool) -> list[str]:
    """Rewrite every text file that names an old place (only list them when ``check``)."""
    changed = []
    for path in text_files():
        raw = (ROOT / path).read_bytes()
        if b"\0" in raw:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(path, text)
        if new != text:
            changed.append(f"rewrite {path}")
            if not check:
                (ROOT / path).write_text(new, encoding="utf-8")
    return changed


def tidy_imports(paths: list[str]) -> None:
    """Absolute imports sort differently: ruff puts each changed file's imports back in order."""
    ruff = ROOT / ".venv" / "bin" / "ruff"
    if not paths:
        return
    if not ruff.exists():
        print("house_plan: no .venv/bin/ruff; run `ruff check --fix --select I` and `ruff format`"
              " on the rewritten files", file=sys.stderr)  # fmt: skip
        return
    subprocess.run([str(ruff), "check", "-q", "--fix", "--select", "I", *paths], cwd=ROOT)
    subprocess.run([str(ruff), "format", "-q", *paths], cwd=ROOT, check=True)


def main(argv: list[str] | None = None) -> int:
    """Move and rewrite, or with ``--check`` exit 1 naming what is left to do."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 if anything is still at an old place")  # fmt: skip
    args = parser.parse_args(argv)
    todo = move_files(args.check)
    rewritten = rewrite_files(args.check)
    todo += rewritten
    if not args.check:
        tidy_imports([line.split()[-1] for line in rewritten if line.endswith(".py")])
    for line in todo:
        print(("would " if args.check else "") + line)
    if args.check and todo:
        print("house_plan: run `python tools/house_plan.py` to move them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
