"""The intake in nbgrader's autograde: the submission folder made safe, then each notebook.

:func:`attention_grader.pipeline.configure` puts both into a course's ``nbgrader_config.py``, so
``nbgrader autograde``, the formgrader and ``python -m attention_grader`` all use them:

* :func:`intake_hook` (``c.Autograde.pre_convert_hook``): runs :func:`~attention_grader.intake.intake.prepare_submission`
  on ``submitted/<student>/<assignment>`` before nbgrader copies or reads anything there, with
  the run's config (:func:`hooks_see_run_config`).
* :class:`IntakeGuard` (first of ``c.Autograde.sanitize_preprocessors``): strips cell metadata
  (``skip-execution`` …) and refuses a notebook over the caps (:class:`UnsafeSubmission`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbformat import NotebookNode
    from traitlets.config import Config

    from attention_grader.intake.intake import IntakeResult

from nbgrader.preprocessors import NbGraderPreprocessor

from attention_grader.common.flag_store import record_flags
from attention_grader.common.safe_text import printable
from attention_grader.config.config_door import load_config
from attention_grader.config.nbgrader_patches import apply
from attention_grader.config.settings import intake_limits
from attention_grader.intake.intake import (
    default_quarantine,
    expected_notebooks,
    prepare_submission,
    released_files,
    strip_cell_metadata,
)

__all__ = ["IntakeGuard", "UnsafeSubmission", "hooks_see_run_config", "intake_hook", "run_config"]

#: The config of the nbgrader converter whose pre-convert hook is running (none outside one).
_RUN_CONFIG: ContextVar[Config | None] = ContextVar("attention_grader_run_config", default=None)


class UnsafeSubmission(RuntimeError):
    """A notebook the intake refuses to grade; the message is the one-line reason."""


def intake_hook(
    assignment: str | None = None,
    student: str | None = None,
    notebooks: list[str] | None = None,
    **_: Any,
) -> IntakeResult | None:
    """``Autograde.pre_convert_hook``: make the submission folder safe before nbgrader reads it.

    nbgrader calls it after choosing a submission and before copying its files or reading its
    notebooks, with ``notebooks`` (the list nbgrader will grade, changed here in place so that
    refused notebooks are skipped). nbgrader logs and ignores any exception from a hook.
    """
    if not notebooks:
        return None
    folder = Path(notebooks[0]).parent
    root = folder.parent.parent.parent
    limits = intake_limits(run_config(root))
    released = released_files(root / "source" / folder.name, limits.max_released_hash_bytes)
    result = prepare_submission(
        folder, expected_notebooks(root, folder.name), limits, None, released
    )
    notebooks[:] = [nb for nb in notebooks if os.path.lexists(nb)]
    return result


def run_config(root: Path) -> Config:
    """Return the config of the nbgrader run whose hook is running (else the course's).

    nbgrader calls ``pre_convert_hook`` with no config (``BaseConverter.run_pre_convert_hook``
    passes the assignment, the student and the notebooks only); :func:`hooks_see_run_config`
    makes the converter hand over its own while the hook runs: the one its preprocessors,
    :class:`IntakeGuard` first, are built from, whichever route made it (``nbgrader
    autograde``, the formgrader, ``make grade``'s workers), with the user's files and the
    command line in it. Called any other way, the hook reads the course's config through the
    one door (:func:`~attention_grader.config.config_door.load_config`).
    """
    config = _RUN_CONFIG.get()
    return config if config is not None else load_config(root)


def hooks_see_run_config() -> None:
    """Make nbgrader's converters hand their config to the pre-convert hook (idempotent).

    Patch ``hook_run_config`` (:mod:`attention_grader.config.nbgrader_patches`);
    :func:`attention_grader.pipeline.configure` applies it, so every run whose config installs
    :func:`intake_hook` has it.
    """
    apply("hook_run_config", {"run_pre_convert_hook": _with_run_config})


def _with_run_config(original: Callable[[Any], None]) -> Callable[[Any], None]:
    def run_pre_convert_hook(self: Any) -> None:
        token = _RUN_CONFIG.set(self.config)
        try:
            original(self)
        finally:
            _RUN_CONFIG.reset(token)

    return run_pre_convert_hook


class IntakeGuard(NbGraderPreprocessor):
    """First sanitise step: drop execution-changing cell metadata; refuse notebooks over the caps.

    Flags go to the notebook's grading metadata (:func:`attention_grader.common.flag_store.record_flags`,
    read by the batch summary) and to the log, together with those recorded for the submission
    by collect and :func:`intake_hook`.
    """

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        limits = intake_limits(self.config)
        folder = (resources or {}).get("metadata", {}).get("path")
        name = (resources or {}).get("unique_key", "notebook")
        if folder:
            path = Path(folder) / f"{name}.ipynb"
            st = os.lstat(path) if os.path.lexists(path) else None
            if st is not None and (not stat.S_ISREG(st.st_mode) or st.st_nlink > 1):
                raise UnsafeSubmission(f"{printable(name)}.ipynb is a link or special file; not graded")  # fmt: skip
            if st is not None and st.st_size > limits.max_notebook_bytes:
                raise UnsafeSubmission(f"{printable(name)}.ipynb is over {limits.max_notebook_bytes} bytes; not graded")  # fmt: skip
        if len(nb.cells) > limits.max_cells:
            raise UnsafeSubmission(f"{printable(name)}.ipynb has {len(nb.cells)} cells (limit {limits.max_cells}); not graded")  # fmt: skip
        flags = strip_cell_metadata(nb)
        for flag in flags:
            self.log.warning("%s", flag)
        if folder:
            # What collect and intake_hook refused is recorded with the submission: report it
            # once per submission (with its first notebook), merged with this notebook's flags.
            quarantine = default_quarantine(Path(folder))
            every = record_flags(flags, quarantine=quarantine)
            first = expected_notebooks(quarantine.parent.parent.parent, Path(folder).name)[:1]
            flags = every if first == [name] else flags
        record_flags(flags, notebook=nb)
        return nb, resources
