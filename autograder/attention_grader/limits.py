"""Every limit of the course in one list: the catalogue ``--help``, the docs and the tests read.

The values live in the course config (:mod:`attention_grader.config.settings` says how); this
module only names which settings are limits. It sits at the top of the package because the
limits belong to classes of every layer (nbgrader's ``Execute``, the grading executor, the
sandbox). ``python -m attention_grader.limits`` prints the table in docs/teachers.md ("Every
limit"), and a test keeps that table, this list and the course's ``nbgrader_config.py`` in step.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from traitlets import TraitType
from traitlets.config import Config, Configurable

from attention_grader.config.settings import (
    AnswerLimits,
    Answers,
    Batch,
    Intake,
    IntakeLimits,
    PageLimits,
    Pages,
    Protections,
)

__all__ = ["GRADE_ALIASES", "alias_help", "apply_aliases", "limit_names", "limits_table"]


def _limit_classes() -> list[tuple[type[Configurable], tuple[str, ...]]]:
    from nbgrader.preprocessors import Execute, LimitOutput

    from attention_grader.exchange.safe_exchange import SafeExchangeCollect
    from attention_grader.executor.execute import GradingExecute
    from attention_grader.sandbox.sandbox import SandboxedKernelManager

    intake = tuple(f.name for f in fields(IntakeLimits))
    answers = tuple(f.name for f in fields(AnswerLimits))
    pages = tuple(f.name for f in fields(PageLimits))
    return [
        (Execute, ("timeout",)),
        (LimitOutput, ("max_lines", "max_traceback")),
        (
            GradingExecute,
            (
                "notebook_timeout",
                "submission_budget",
                "grader_memory_mb",
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
        (SafeExchangeCollect, ("clock_slack",)),
        (Answers, answers),
        (Pages, pages),
        (Batch, ("worker_grace", "max_crashes")),
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
