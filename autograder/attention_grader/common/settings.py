"""The course's settings: every limit the grader enforces is a traitlet set in ``nbgrader_config.py``.

One route for a value, whoever grades (``make grade``, ``nbgrader autograde``, the formgrader):

* the course config sets it (``c.Intake.max_cells = 2000``); nothing else holds a copy;
* ``python -m attention_grader grade``'s limit flags (``--cell-timeout``) write into that config
  (:data:`GRADE_ALIASES`), as nbgrader's own apps turn ``--force`` into ``BaseConverter.force``;
* whoever needs the value reads it from the config it was given: a preprocessor through its own
  traits, code without a configurable through :func:`intake_limits` / :func:`answer_limits`,
  which build the small frozen dataclasses the intake and the answer reader take.

:func:`limit_names` lists every limit; ``python -m attention_grader.common.settings`` prints them as the
table in docs/teachers.md ("Every limit"), and a test keeps that table, this list and the
course's ``nbgrader_config.py`` in step.
"""

from __future__ import annotations

import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from traitlets import Bool, Integer, Set, TraitType, Unicode, default
from traitlets.config import Config, Configurable

from attention_grader.execution.answers import AnswerLimits
from attention_grader.intake.intake_files import IntakeLimits

__all__ = [
    "ALLOW_ENV",
    "Answers",
    "GRADE_ALIASES",
    "Intake",
    "Protections",
    "answer_limits",
    "apply_aliases",
    "course_intake_limits",
    "intake_limits",
    "limit_names",
    "limits_table",
    "setting",
]

#: The container-friendly switch for :attr:`Protections.allow_unsandboxed_in_pod` (read only there).
ALLOW_ENV = "ATTENTION_LAB_ALLOW_UNSANDBOXED"

_MiB = 2**20


def _limit(value: int, text: str) -> Integer[int, int]:
    return Integer(value, help=text).tag(config=True)


class Intake(Configurable):
    """What one submission may hold; collect, ``make grade`` and autograde's intake all read it.

    Over a cap, the file is refused (moved to the quarantine, flagged) and the rest is graded.
    """

    max_notebook_bytes = _limit(
        IntakeLimits.max_notebook_bytes,
        "Largest notebook file read (bytes); a bigger one is refused.",
    )
    max_cells = _limit(IntakeLimits.max_cells, "Most cells in one notebook.")
    max_nesting = _limit(IntakeLimits.max_nesting, "Deepest JSON nesting in a notebook.")
    max_data_file_bytes = _limit(
        IntakeLimits.max_data_file_bytes, "Largest data file (.csv, .npy, ...) kept (bytes)."
    )
    max_bookkeeping_bytes = _limit(
        IntakeLimits.max_bookkeeping_bytes,
        "Largest timestamp.txt / submission_secret.txt read (bytes).",
    )
    max_entries = _limit(IntakeLimits.max_entries, "Most files and folders in one submission.")
    max_submission_bytes = _limit(
        IntakeLimits.max_submission_bytes, "Most bytes collect copies of one submission."
    )
    max_depth = _limit(IntakeLimits.max_depth, "Deepest folder level inside a submission.")
    data_suffixes = Set(
        Unicode(),
        default_value=set(IntakeLimits.data_suffixes),
        help="File endings kept as data beside the notebooks; anything else is refused.",
    ).tag(config=True)

    def limits(self) -> IntakeLimits:
        """Return these settings as the intake's frozen :class:`~attention_grader.intake.intake_files.IntakeLimits`."""
        values = {f.name: getattr(self, f.name) for f in fields(IntakeLimits)}
        values["data_suffixes"] = frozenset(values["data_suffixes"])
        return IntakeLimits(**values)


class Answers(Configurable):
    """Caps on one reply from a student's kernel when the grader reads an answer as data.

    Over a cap, the answer is unreadable (its tests score 0, flag ``unreadable_answer``).
    """

    max_reply_chars = _limit(
        AnswerLimits.max_reply_chars, "Longest JSON reply read from the kernel (characters)."
    )
    max_depth = _limit(AnswerLimits.max_depth, "Deepest nesting of lists, tuples, sets and dicts.")
    max_items = _limit(AnswerLimits.max_items, "Most values (numbers, strings, ...) in one reply.")
    max_set_items = _limit(
        AnswerLimits.max_set_items, "Most items in one set, or entries in one dict."
    )
    max_hashed_items = _limit(
        AnswerLimits.max_hashed_items,
        "Most values hashed into sets and dict keys over one reply (bounds the cost of "
        "rebuilding them even when every hash collides).",
    )

    def limits(self) -> AnswerLimits:
        """Return these settings as the answer reader's frozen :class:`~attention_grader.execution.answers.AnswerLimits`."""
        return AnswerLimits(**{f.name: getattr(self, f.name) for f in fields(AnswerLimits)})


class Protections(Configurable):
    """What grading does when the sandbox's walls are missing."""

    allow_unsandboxed_in_pod = Bool(
        help=f"Grade in a Kubernetes pod although filesystem isolation or the empty network "
        f"are OFF (trusted submissions only). Default: True when ${ALLOW_ENV}=1 (for a "
        "container's environment), else False.",
    ).tag(config=True)

    @default("allow_unsandboxed_in_pod")
    def _from_environment(self) -> bool:
        return os.environ.get(ALLOW_ENV) == "1"


def intake_limits(config: Config | None) -> IntakeLimits:
    """Return the intake's caps as ``config`` sets them (``c.Intake``)."""
    return Intake(config=config or Config()).limits()


def answer_limits(config: Config | None) -> AnswerLimits:
    """Return the answer reader's caps as ``config`` sets them (``c.Answers``)."""
    return Answers(config=config or Config()).limits()


def course_intake_limits(root: Path) -> IntakeLimits:
    """Return the intake caps of the course at ``root``, from its ``nbgrader_config.py``.

    For nbgrader's ``pre_convert_hook``, which nbgrader calls without its config: the course's
    file is where the caps are set, so ``nbgrader autograde`` and ``make grade`` agree.
    """
    from traitlets.config.loader import PyFileConfigLoader

    path = Path(root) / "nbgrader_config.py"
    if not path.is_file():
        return IntakeLimits()
    stamp = path.stat().st_mtime_ns
    cached = _COURSE_LIMITS.get(path)
    if cached is None or cached[0] != stamp:
        config = PyFileConfigLoader(path.name, path=str(path.parent)).load_config()
        cached = _COURSE_LIMITS[path] = (stamp, intake_limits(config))
    return cached[1]


_COURSE_LIMITS: dict[Path, tuple[int, IntakeLimits]] = {}


def _limit_classes() -> list[tuple[type[Configurable], tuple[str, ...]]]:
    from nbgrader.preprocessors import Execute, LimitOutput

    from attention_grader.execution.execute import GradingExecute
    from attention_grader.sandbox.sandbox import SandboxedKernelManager

    intake = tuple(f.name for f in fields(IntakeLimits))
    answers = tuple(f.name for f in fields(AnswerLimits))
    return [
        (Execute, ("timeout",)),
        (LimitOutput, ("max_lines", "max_traceback")),
        (
            GradingExecute,
            (
                "notebook_timeout",
                "submission_budget",
                "max_cell_output_bytes",
                "max_notebook_output_bytes",
                "drain_timeout",
            ),
        ),  # fmt: skip
        (
            SandboxedKernelManager,
            (
                "sandbox",
                "cpu_seconds",
                "memory_mb",
                "file_size_mb",
                "max_processes",
                "tmp_size_mb",
                "copy_limit_mb",
            ),
        ),  # fmt: skip
        (Intake, intake),
        (Answers, answers),
        (Protections, ("allow_unsandboxed_in_pod",)),
    ]


def limit_names() -> list[tuple[str, str]]:
    """Every limit as ``(section, trait)``, e.g. ``("Execute", "timeout")``: the course's list."""
    return [(cls.__name__, name) for cls, names in _limit_classes() for name in names]


#: ``grade``'s limit flags and the config value each one sets (nbgrader's aliases, same idea).
GRADE_ALIASES = {
    "cell_timeout": ("Execute", "timeout"),
    "notebook_timeout": ("GradingExecute", "notebook_timeout"),
}


def apply_aliases(config: Config, given: dict[str, Any]) -> None:
    """Write the flags given on the command line (not None) into ``config``, in place."""
    for flag, (section, name) in GRADE_ALIASES.items():
        if given.get(flag) is not None:
            config[section][name] = given[flag]


def alias_help(flag: str) -> str:
    """Return the help of the config value ``flag`` sets, for ``--help``."""
    section, name = GRADE_ALIASES[flag]
    first = " ".join(_trait(section, name).help.split()).split(". ")[0].rstrip(".")
    return f"{first} (sets c.{section}.{name}; default: the course config's)"


def _trait(section: str, name: str) -> TraitType[Any, Any]:
    for cls, _ in _limit_classes():
        if cls.__name__ == section:
            return cls.class_traits()[name]
    raise KeyError(f"{section}.{name} is not one of the course's limits")


def setting(config: Config, section: str, name: str) -> Any:
    """Return the value of one limit under ``config`` (its default when the config leaves it)."""
    for cls, _ in _limit_classes():
        if cls.__name__ == section:
            return getattr(cls(config=config), name)
    raise KeyError(f"{section}.{name} is not one of the course's limits")


def _shown(value: object) -> str:
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(value)) + "}"
    return repr(value)


def limits_table() -> str:
    """Every limit as a Markdown table: setting, default, what it does (docs/teachers.md)."""
    rows = ["| Setting | Default | What it does |", "|---|---|---|"]
    for cls, names in _limit_classes():
        for name in names:
            trait = cls.class_traits()[name]
            value = False if name == "allow_unsandboxed_in_pod" else trait.default()
            text = " ".join(trait.help.split()).replace("|", "\\|")
            rows.append(f"| `c.{cls.__name__}.{name}` | `{_shown(value)}` | {text} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(limits_table())
