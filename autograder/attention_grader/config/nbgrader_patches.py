"""Every change the grader makes to nbgrader's own classes: listed here, made here, once.

nbgrader offers no setting for what these do (its formgrader escapes nothing, its Validator
cannot be configured, its API's scores are before the late penalty...), so a few of its methods
are wrapped. Each is a :class:`Patch` in :data:`PATCHES`, written against one nbgrader
(:data:`PINNED`, requirements.txt's pin): :func:`apply` refuses any other version with the list
of what to check, wraps each attribute once (the class's one marker, :data:`MARKER`, names the
patches it holds, so a second call changes nothing), and nothing else in the grader assigns to
an nbgrader class (tests/attention_grader/config/test_nbgrader_patches.py reads every module).
What each wrapper does lives with its concern (the module named in ``by``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MARKER",
    "PATCHES",
    "PINNED",
    "NbgraderVersionError",
    "Patch",
    "applied",
    "apply",
    "check_version",
    "installed_version",
]

#: The nbgrader every patch was read against (requirements.txt pins the same).
PINNED = "0.9.6"
#: The one attribute, in a patched class's own namespace, naming the patches applied to it.
MARKER = "__attention_grader_patches__"


class NbgraderVersionError(RuntimeError):
    """The installed nbgrader is not the one the patches were written against."""


@dataclass(frozen=True)
class Patch:
    """One change to one nbgrader class.

    Attributes
    ----------
    owner : str
        ``module:Class`` of the class changed.
    attributes : tuple of str
        The attributes replaced (each by a wrapper of the original, or a new value).
    by : str
        The module that says what the wrappers do and calls :func:`apply`.
    why : str
        What the course needs that nbgrader has no setting for.
    """

    owner: str
    attributes: tuple[str, ...]
    by: str
    why: str


_FORMGRADER = "nbgrader.server_extensions.formgrader"

#: Every patch, by name.
PATCHES = {
    "escape_formgrader_pages": Patch(
        f"{_FORMGRADER}.base:BaseHandler", ("render",), "attention_grader.pages.formgrader_view",
        "the formgrader's pages print ids unescaped into HTML, links and script strings",
    ),
    "submission_page_csp": Patch(
        f"{_FORMGRADER}.handlers:SubmissionHandler", ("write",), "attention_grader.pages.csp",
        "a submission's page gets a Content-Security-Policy derived from itself",
    ),
    "submission_files_csp": Patch(
        f"{_FORMGRADER}.handlers:SubmissionFilesHandler", ("content_security_policy",),
        "attention_grader.pages.csp", "a submission's files get a sandboxing policy",
    ),
    "final_scores": Patch(
        "nbgrader.apps.api:NbGraderAPI",
        ("get_submission", "get_submissions", "get_notebook_submissions",
         "get_student_notebook_submissions", "get_students", "get_student", "get_assignment",
         "get_notebooks"),
        "attention_grader.term.formgrader_scores",
        "the formgrader's scores are the final ones, after the late penalty",
    ),
    "penalty_beside_submissions": Patch(
        f"{_FORMGRADER}.handlers:ManageSubmissionsHandler", ("write",),
        "attention_grader.term.formgrader_scores", "a submission's late penalty beside its score",
    ),
    "penalty_beside_student_assignments": Patch(
        f"{_FORMGRADER}.handlers:ManageStudentsAssignmentsHandler", ("write",),
        "attention_grader.term.formgrader_scores", "a submission's late penalty beside its score",
    ),
    "hook_run_config": Patch(
        "nbgrader.converters.base:BaseConverter", ("run_pre_convert_hook",),
        "attention_grader.intake.intake_guard",
        "the pre-convert hook (the intake) reads its run's config; nbgrader passes it none",
    ),
    "named_questions": Patch(
        "nbgrader.validator:Validator", ("_get_failed_cells", "_extract_error"),
        "attention_grader.term.validate_labels", "nbgrader validate names each failing question",
    ),
    "release_check": Patch(
        "nbgrader.validator:Validator", ("_preprocess",), "attention_grader.term.validate_check",
        "validating a source notebook runs the release check (its solution gets every point)",
    ),
    "quiet_fetch_feedback": Patch(
        "nbgrader.server_extensions.assignment_list.handlers:AssignmentList",
        ("fetch_feedback",), "attention_grader.term.student_clock",
        "Fetch Feedback says no feedback is released yet instead of failing",
    ),
    "validated_note": Patch(
        "nbgrader.server_extensions.validate_assignment.handlers:ValidateAssignmentHandler",
        ("validate_notebook",), "attention_grader.term.student_clock",
        "the student's page says what the last clean validation checked",
    ),
}  # fmt: skip


def installed_version() -> str:
    """Return the version of the nbgrader this process imports."""
    import nbgrader

    version: str = nbgrader.__version__
    return version


def check_version(name: str) -> None:
    """Raise :class:`NbgraderVersionError` unless nbgrader is :data:`PINNED`."""
    found = installed_version()
    if found == PINNED:
        return
    patch = PATCHES[name]
    raise NbgraderVersionError(
        f"attention_grader changes nbgrader {PINNED}'s {patch.owner.replace(':', '.')}."
        f"{'/'.join(patch.attributes)} ({patch.why}), but nbgrader {found} is installed. "
        f"Install nbgrader=={PINNED} (requirements.txt; `make setup`), or read each patch of "
        "attention_grader/config/nbgrader_patches.py against the new version and update PINNED."
    )


def _owner(patch: Patch) -> type:
    module, _, cls = patch.owner.partition(":")
    owner: type = getattr(importlib.import_module(module), cls)
    return owner


def apply(name: str, replace: Mapping[str, Callable[[Any], Any]]) -> bool:
    """Apply the patch ``name``: each attribute becomes ``replace[attribute](original)``.

    Parameters
    ----------
    name : str
        A key of :data:`PATCHES`; ``replace`` must cover exactly its attributes.
    replace : mapping of str to callable
        For each attribute, a function of the original value (the class's own or inherited)
        returning the new one.

    Returns
    -------
    bool
        Whether anything changed (False when the patch was already applied).

    Raises
    ------
    NbgraderVersionError
        When the installed nbgrader is not :data:`PINNED`.
    """
    patch = PATCHES[name]
    if set(replace) != set(patch.attributes):
        raise ValueError(f"patch {name} replaces {patch.attributes}, not {sorted(replace)}")
    check_version(name)
    owner = _owner(patch)
    before = applied(owner)
    if name in before:
        return False
    for attribute in patch.attributes:
        setattr(owner, attribute, replace[attribute](getattr(owner, attribute)))
    setattr(owner, MARKER, before | {name})
    return True


def applied(owner: type) -> frozenset[str]:
    """Return the names of the patches applied to ``owner`` itself."""
    found: frozenset[str] = vars(owner).get(MARKER, frozenset())
    return found
