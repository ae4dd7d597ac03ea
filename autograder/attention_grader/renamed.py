"""Old dotted names that still import, for one release, with a warning that names the new one.

A hub's or a course's config written for an earlier release names modules where they were
(``attention_grader.execution.execute.GradingExecute``). :data:`MOVED` maps each old name to
where the module lives now; :class:`RenamedFinder` (installed by ``attention_grader/__init__``)
makes an old name import the module at its new place, the same module object (so a
``mock.patch`` of the old path patches the real one), and warns with :class:`FutureWarning`
(shown by default: a teacher reads it in nbgrader's log). A name is only an alias while nothing
is at its old place. Configs should name :mod:`attention_grader.plugins`, whose names stay.

The release after the one that moved them drops these names (CHANGELOG.md says which).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

__all__ = ["FORMER_PACKAGES", "MOVED", "RenamedFinder", "install"]

#: Packages the layout emptied (issue 43, eleventh landing): importing one still works (warned).
FORMER_PACKAGES = {
    "attention_grader.execution": "attention_grader.plugins",
}

#: Old module -> its module now (``_kernel_side.py`` and ``_kernel_handles.py`` are text sent into a
#: kernel, not modules anyone imports); tests/attention_grader/test_layers.py checks that none is
#: back at its old place.
MOVED = {
    # what crosses to and from the student's kernel as data
    "attention_grader.execution.answer_errors": "attention_grader.wire.answer_errors",
    "attention_grader.execution.answer_sets": "attention_grader.wire.answer_sets",
    "attention_grader.execution.answer_codec": "attention_grader.wire.answer_codec",
    "attention_grader.execution.cell_code": "attention_grader.wire.cell_code",
    "attention_grader.execution.figure_snapshot": "attention_grader.wire.figure_snapshot",
    "attention_grader.execution.kernel_client": "attention_grader.wire.kernel_client",
    "attention_grader.execution.kernel_requests": "attention_grader.wire.kernel_requests",
    "attention_grader.execution.unsupported_answer": "attention_grader.wire.unsupported_answer",
    # the answer channel, the text it sends into the kernel, and its stand-ins
    "attention_grader.execution.answer_channel": "attention_grader.channel.answer_channel",
    "attention_grader.execution.answer_decoding": "attention_grader.channel.answer_decoding",
    "attention_grader.execution.answer_encoding": "attention_grader.channel.answer_encoding",
    "attention_grader.execution.handle_table": "attention_grader.channel.handle_table",
    "attention_grader.execution.kernel_bindings": "attention_grader.channel.kernel_bindings",
    "attention_grader.execution.object_handles": "attention_grader.channel.object_handles",
    "attention_grader.execution.student_function": "attention_grader.channel.student_function",
    # trusted checking: the teacher's tests in the grader's process
    "attention_grader.execution.code_sinks": "attention_grader.checking.code_sinks",
    "attention_grader.execution.kernel_definitions": "attention_grader.checking.kernel_definitions",
    "attention_grader.execution.kernel_tests": "attention_grader.checking.kernel_tests",
    "attention_grader.execution.locked_names": "attention_grader.checking.locked_names",
    "attention_grader.execution.needs_teacher": "attention_grader.checking.needs_teacher",
    "attention_grader.execution.test_styles": "attention_grader.checking.test_styles",
    "attention_grader.execution.trusted": "attention_grader.checking.trusted",
    "attention_grader.execution.trusted_cells": "attention_grader.checking.trusted_cells",
    "attention_grader.execution.trusted_scope": "attention_grader.checking.trusted_scope",
    "attention_grader.execution.variant_grading": "attention_grader.checking.variant_grading",
    # the executor: one notebook through autograde's steps
    "attention_grader.execution.budget": "attention_grader.executor.budget",
    "attention_grader.execution.cell_order": "attention_grader.executor.cell_order",
    "attention_grader.execution.execute": "attention_grader.executor.execute",
    "attention_grader.execution.execution_stops": "attention_grader.executor.execution_stops",
    "attention_grader.execution.flag_limited_output": "attention_grader.executor.flag_limited_output",
    "attention_grader.execution.library_flags": "attention_grader.executor.library_flags",
    "attention_grader.execution.library_use": "attention_grader.executor.library_use",
    "attention_grader.execution.notebook_checker": "attention_grader.executor.notebook_checker",
    "attention_grader.execution.output_caps": "attention_grader.executor.output_caps",
    "attention_grader.execution.tamper": "attention_grader.executor.tamper",
    # many notebooks: the class's workers, shards and gradebook, the release check
    "attention_grader.execution.gradebook_sync": "attention_grader.batch.gradebook_sync",
    "attention_grader.execution.shards": "attention_grader.batch.shards",
    "attention_grader.execution.solution_check": "attention_grader.batch.solution_check",
    "attention_grader.execution.speedups": "attention_grader.batch.speedups",
    "attention_grader.execution.variant_family": "attention_grader.batch.variant_family",
    "attention_grader.execution.worker": "attention_grader.batch.worker",
    # the course and its settings (issue 43, twelfth landing)
    "attention_grader.common.config_door": "attention_grader.config.config_door",
    "attention_grader.common.course": "attention_grader.config.course",
    "attention_grader.common.environment": "attention_grader.config.environment",
    "attention_grader.common.nbgrader_patches": "attention_grader.config.nbgrader_patches",
    "attention_grader.common.settings": "attention_grader.config.settings",
    # the exchange
    "attention_grader.intake.exchange_identity": "attention_grader.exchange.exchange_identity",
    "attention_grader.intake.exchange_mounts": "attention_grader.exchange.exchange_mounts",
    "attention_grader.intake.inbound_list": "attention_grader.exchange.inbound_list",
    "attention_grader.intake.private_submit": "attention_grader.exchange.private_submit",
    "attention_grader.intake.release_feedback": "attention_grader.exchange.release_feedback",
    "attention_grader.intake.safe_exchange": "attention_grader.exchange.safe_exchange",
    "attention_grader.intake.submission_history": "attention_grader.exchange.submission_history",
    # the teacher's steps
    "attention_grader.term.collect": "attention_grader.steps.collect",
    "attention_grader.term.feedback": "attention_grader.steps.feedback",
    "attention_grader.term.grade": "attention_grader.steps.grade",
    "attention_grader.term.grades": "attention_grader.steps.grades",
    "attention_grader.term.lms": "attention_grader.steps.lms",
    "attention_grader.term.progress": "attention_grader.steps.progress",
    "attention_grader.term.release": "attention_grader.steps.release",
    "attention_grader.term.student_dist": "attention_grader.steps.student_dist",
    # what the teacher reads about a class
    "attention_grader.term.class_diagnoses": "attention_grader.reports.class_diagnoses",
    "attention_grader.term.gain": "attention_grader.reports.gain",
    "attention_grader.term.gain_page": "attention_grader.reports.gain_page",
    "attention_grader.term.question_stats": "attention_grader.reports.question_stats",
    "attention_grader.term.report": "attention_grader.reports.report",
    "attention_grader.term.report_data": "attention_grader.reports.report_data",
    "attention_grader.term.report_page": "attention_grader.reports.report_page",
    "attention_grader.term.student_rows": "attention_grader.reports.student_rows",
    "attention_grader.term.variant_rows": "attention_grader.reports.variant_rows",
}  # fmt: skip


def _warn(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is now {new}; the old name goes in the next release "
        "(configs: name attention_grader.plugins, whose names stay)",
        FutureWarning,
        stacklevel=3,
    )


class _AliasLoader(importlib.abc.Loader):
    """Loads an old name as the module at its new place (the same object)."""

    def __init__(self, new: str | None) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None  # a blank module, replaced in exec_module by the real one

    def exec_module(self, module: ModuleType) -> None:
        old = module.__name__
        if self.new is None:  # a former package: empty, its old submodules are aliases
            _warn(old, FORMER_PACKAGES[old])
            return
        _warn(old, self.new)
        # the import system returns what sys.modules holds under the old name after this
        sys.modules[old] = importlib.import_module(self.new)


class RenamedFinder(importlib.abc.MetaPathFinder):
    """Finds an old name of :data:`MOVED` or :data:`FORMER_PACKAGES` once nothing is there."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED and fullname not in FORMER_PACKAGES:
            return None
        if importlib.machinery.PathFinder.find_spec(fullname, path) is not None:
            return None  # still at its old place (the move is not applied here yet)
        new = MOVED.get(fullname)
        return importlib.machinery.ModuleSpec(
            fullname, _AliasLoader(new), is_package=fullname in FORMER_PACKAGES
        )


def install() -> None:
    """Put :class:`RenamedFinder` first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, RenamedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, RenamedFinder())
