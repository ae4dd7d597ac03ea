"""attention_grader.common.flags: one registry of flag kinds (its store: test_flag_store.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import attention_grader
import pytest
from attention_grader.common import flags
from attention_grader.common.flags import Flag
from attention_grader.common.summary import BatchSummary, SubmissionResult
from attention_grader.executor import tamper
from nbformat.v4 import new_notebook

PACKAGE = Path(attention_grader.__file__).parent
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "library_stub" not in p.parts)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


# --------------------------------------------------------------------------- the registry


def test_every_kind_is_complete_and_says_what_the_teacher_does():
    assert len(flags.REGISTRY) >= 30
    for kind in flags.REGISTRY.values():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", kind.id)
        assert kind.severity in flags.SEVERITIES
        assert kind.text and not kind.text.endswith(".") and kind.text[0].islower(), kind.id
        # an instruction: a whole sentence, not the meaning again
        assert kind.action.endswith(".") and kind.action[0].isupper(), kind.id
        assert kind.action.lower() != kind.text.lower()
    assert flags.get("needs_teacher").holds_feedback and flags.get("needs_teacher").blocks_points


def test_an_unknown_kind_is_refused_with_the_registry_named():
    with pytest.raises(ValueError, match=r"'not_a_kind'.*flags\.py"):
        Flag("not_a_kind", "x")
    with pytest.raises(ValueError, match="flags.py"):
        flags.get("cell-timeout")


def test_a_flag_made_from_an_entry_is_its_id():
    assert Flag(flags.LATE, "2 h") == Flag("late", "2 h")
    assert str(Flag(flags.LATE, "2 h")) == "late: 2 h"
    assert Flag(flags.LATE, "2 h").meaning is flags.LATE


def test_tamper_kinds_are_the_registry_tampering_entries():
    assert tamper.TAMPER_KINDS == {k.id: k.text for k in flags.REGISTRY.values() if k.tampering}
    scanned = {rule[0] for rule in tamper._STATIC_RULES}
    assert scanned <= set(tamper.TAMPER_KINDS)
    # not tampering: they say how the work ran
    for kind in ("late", "cell_timeout", "needs_teacher", "grading_budget", "unsafe_html"):
        assert kind not in tamper.TAMPER_KINDS


def _kind_arguments(tree: ast.Module):
    """The kind argument of every Flag(...) and FlagList.add(...) call, and of each static rule."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) == "Flag" and node.args:
            yield node.args[0]
        elif isinstance(node, ast.Call) and _called(node) == "add" and len(node.args) >= 3:
            yield node.args[0]  # FlagList.add(kind, rel, why)


@pytest.mark.slow
def test_no_module_spells_a_kind_as_a_string():
    """Every emitted kind goes through the registry: a kind is a FlagKind constant, never text."""
    literal = []
    for path in MODULES:
        if path.name == "flags.py":
            continue
        for arg in _kind_arguments(_tree(path)):
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                literal.append(f"{path.name}:{arg.lineno}: {arg.value!r}")
    assert not literal, literal


@pytest.mark.slow
def test_every_registry_constant_a_module_imports_exists():
    """``from .flags import X``: X is a registered kind (or the store's names)."""
    for path in MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom) and node.module == "flags" and node.level == 1:
                for alias in node.names:
                    assert hasattr(flags, alias.name), f"{path.name}: {alias.name}"


def test_every_kind_the_static_scan_and_stops_emit_is_registered():
    from attention_grader.executor.execution_stops import execution_flags

    for kind, _pattern, _what in tamper._STATIC_RULES:
        assert kind in flags.REGISTRY
    for stopped in ("KernelDied", "KernelUnresponsive", "NotebookTimeout", "GradingBudget"):
        nb = new_notebook(metadata={"attention_grader": {"execution": {"stopped": stopped}}})
        for kind, _ in execution_flags(nb):
            assert kind in flags.REGISTRY


# --------------------------------------------------------------------------- shown with its text


def test_the_batch_summary_explains_each_kind_with_the_registry_text():
    summary = BatchSummary(
        "a1",
        [
            SubmissionResult("ana", "graded", flags=[Flag(flags.LATE, "2 h late")]),
            SubmissionResult("ben", "graded", flags=[Flag(flags.LATE, "1 h late")]),
            SubmissionResult("cy", "graded", flags=[Flag(flags.NEEDS_TEACHER, "nb/q1: spy")]),
        ],
    )
    table = summary.table()
    assert table.count(flags.LATE.text) == 1
    assert flags.NEEDS_TEACHER.text in table and flags.NEEDS_TEACHER.action in table
    assert flags.CELL_TIMEOUT.text not in table


def test_the_teachers_guide_names_every_kind():
    guide = (Path(__file__).resolve().parents[3] / "docs" / "teachers.md").read_text()
    missing = [kind for kind in flags.REGISTRY if f"`{kind}`" not in guide]
    assert not missing, missing
