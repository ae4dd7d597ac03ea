"""The grader's changes to nbgrader's classes: one module makes them, once, against one nbgrader.

Each patch is applied through the function of the module that says what it does (the server
extensions and nbgrader_config.py call those), twice: the class holds the wrapper once and its
one marker names the patch. Another nbgrader is refused with what to check, and no other module
of the grader writes to an nbgrader class.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from attention_grader.config import nbgrader_patches
from attention_grader.config.nbgrader_patches import (
    MARKER,
    PATCHES,
    PINNED,
    NbgraderVersionError,
    applied,
    apply,
)
from attention_grader.intake.intake_guard import hooks_see_run_config
from attention_grader.pages.csp import protect_formgrader
from attention_grader.pages.formgrader_view import escape_formgrader_pages
from attention_grader.term import formgrader_scores, student_clock
from attention_grader.term.validate_check import check_on_validate
from attention_grader.term.validate_labels import name_questions

ROOT = Path(__file__).resolve().parents[3]
GRADER = ROOT / "autograder" / "attention_grader"

#: each module's function that applies its patches (what its server extension calls)
APPLY = {
    "escape_formgrader_pages": escape_formgrader_pages,
    "submission_page_csp": protect_formgrader,
    "submission_files_csp": protect_formgrader,
    "final_scores": formgrader_scores.show_final_scores,
    "penalty_beside_submissions": formgrader_scores.show_penalty_beside_scores,
    "penalty_beside_student_assignments": formgrader_scores.show_penalty_beside_scores,
    "hook_run_config": hooks_see_run_config,
    "named_questions": name_questions,
    "release_check": check_on_validate,
    "quiet_fetch_feedback": student_clock.wrap_assignment_list,
    "validated_note": student_clock.wrap_validate,
}


def owner(name):
    return nbgrader_patches._owner(PATCHES[name])


def test_the_pinned_nbgrader_is_requirements_txts():
    pins = (ROOT / "requirements.txt").read_text()
    assert re.search(rf"^nbgrader=={re.escape(PINNED)}$", pins, re.M)


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_each_patch_is_applied_once_by_its_module(name):
    assert set(APPLY) == set(PATCHES)
    APPLY[name]()
    cls = owner(name)
    first = {a: vars(cls)[a] for a in PATCHES[name].attributes}  # the class's own now
    APPLY[name]()
    assert {a: vars(cls)[a] for a in PATCHES[name].attributes} == first
    assert name in applied(cls) and MARKER in vars(cls)
    assert PATCHES[name].by == APPLY[name].__module__


def test_another_nbgrader_is_refused_with_what_to_check(monkeypatch):
    cls = owner("named_questions")
    before = dict(vars(cls))
    monkeypatch.setattr(nbgrader_patches, "installed_version", lambda: "0.10.0")
    with pytest.raises(NbgraderVersionError) as refused:
        name_questions()
    said = str(refused.value)
    assert "nbgrader 0.10.0 is installed" in said and f"nbgrader=={PINNED}" in said
    assert "nbgrader.validator.Validator._get_failed_cells/_extract_error" in said
    assert dict(vars(cls)) == before  # nothing changed


def test_a_patch_must_replace_exactly_its_attributes():
    with pytest.raises(ValueError, match="replaces"):
        apply("release_check", {"_preprocess": lambda o: o, "validate": lambda o: o})


def test_the_final_scores_patch_lists_every_call_it_fixes():
    assert set(PATCHES["final_scores"].attributes) == set(formgrader_scores._FIXES)


def _writes_to_nbgrader(path: Path) -> list[str]:
    """``Class.attr = ...`` or ``setattr(Class, ...)`` on a name imported from nbgrader."""
    tree = ast.parse(path.read_text())
    names = {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("nbgrader")
        for alias in node.names
    }
    for node in ast.walk(tree):  # page = handlers.SubmissionHandler; for page in (handlers.A,)
        value = getattr(node, "value", None) if isinstance(node, ast.Assign) else None
        value = node.iter if isinstance(node, ast.For) else value
        parts = value.elts if isinstance(value, ast.Tuple) else [value]
        if value is not None and any(_root(v) in names for v in parts):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    found = []
    for node in ast.walk(tree):
        for target in node.targets if isinstance(node, ast.Assign) else []:
            if isinstance(target, ast.Attribute) and _root(target.value) in names:
                found.append(f"{path.name}:{node.lineno}")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
            if node.args and _root(node.args[0]) in names:
                found.append(f"{path.name}:{node.lineno}")
    return sorted(found)


def _root(node: ast.expr | None) -> str | None:
    """``a`` of ``a.b.c``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def test_no_other_module_writes_to_an_nbgrader_class():
    found = [
        hit
        for path in sorted(GRADER.rglob("*.py"))
        if path.name != "nbgrader_patches.py"
        for hit in _writes_to_nbgrader(path)
    ]
    assert not found, found


def test_the_scan_sees_a_patch(tmp_path):
    """The check itself: both ways of writing to a class imported from nbgrader are found."""
    module = tmp_path / "sneaky.py"
    module.write_text(
        "from nbgrader.validator import Validator\nfrom nbgrader.server_extensions import x\n"
        "Validator._preprocess = None\nsetattr(Validator, 'y', 1)\nx.Handler.write = None\n"
        "for page in (x.A, x.B):\n    page.write = None\nother = object()\nother.write = None\n"
    )
    assert _writes_to_nbgrader(module) == [f"sneaky.py:{n}" for n in (3, 4, 5, 7)]
