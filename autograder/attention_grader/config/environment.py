"""Every environment variable the grader reads, the setting it fills and what it is for.

A container, a hub or a Kubernetes Job sets the course's settings through its environment
(``ATTENTION_LAB_EXCHANGE=/srv/nbgrader/exchange``); the grader reads those variables here and
nowhere else. Each one is a default of one setting, never a second way around the config:

* a setting of the grader's own classes takes the variable as its trait default (``@default``
  reading :func:`variable_value`), so any config file or ``--Class.trait=`` on the command line
  still wins;
* a setting of nbgrader's classes (``Exchange.root``, ``CourseDirectory.db_url``) gets it from
  the course's ``nbgrader_config.py``, which calls :func:`apply_environment` after its own
  lines; every route reads that file the same way (:mod:`attention_grader.config.config_door`).

``python -m attention_grader.config.environment`` prints the table docs/teachers.md shows.
The hub's own variables (``autograder/jupyterhub``) belong to the hub's configuration.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from traitlets.config import Config

__all__ = ["VARIABLES", "Variable", "apply_environment", "variable_value", "variables_table"]


@dataclass(frozen=True)
class Variable:
    """One environment variable: the setting it fills and what it is for.

    Attributes
    ----------
    name : str
        The variable, e.g. ``ATTENTION_LAB_EXCHANGE``.
    section, trait : str
        The setting it is the default of (``c.<section>.<trait>``).
    help : str
        What it is for, in a sentence or two.
    switch : bool
        True when the setting is on/off: ``1`` turns it on, anything else leaves it off.
    course_file : bool
        True when the course's ``nbgrader_config.py`` applies it (a setting of nbgrader's own
        classes, which take no default from here); False when the trait's default reads it.
    """

    name: str
    section: str
    trait: str
    help: str
    switch: bool = False
    course_file: bool = False


VARIABLES: tuple[Variable, ...] = (
    Variable(
        "ATTENTION_LAB_COURSE",
        "CourseDirectory",
        "root",
        "The course folder `python -m attention_grader` works on when --course is not given "
        "(default: the current folder).",
    ),
    Variable(
        "ATTENTION_LAB_EXCHANGE",
        "Exchange",
        "root",
        "The exchange folder: on a JupyterHub the shared path (/srv/nbgrader/exchange); "
        "default <course>/exchange.",
        course_file=True,
    ),
    Variable(
        "ATTENTION_LAB_GRADEBOOK",
        "CourseDirectory",
        "db_url",
        "The gradebook URL (postgresql://...) of a Kubernetes hub, where every instructor and "
        "every grading Job must write one gradebook; default <course>/gradebook.db.",
        course_file=True,
    ),
    Variable(
        "ATTENTION_LAB_PER_STUDENT_MOUNTS",
        "ExchangeLayout",
        "per_student_mounts",
        "1 on Kubernetes (the z2jh values and the collect Job set it): who handed in is the "
        "folder the hub mounted in the student's pod.",
        switch=True,
    ),
    Variable(
        "ATTENTION_LAB_ROSTER",
        "SafeExchangeCollect",
        "roster_file",
        "The class roster collect checks ids against when the config names none.",
    ),
    Variable(
        "ATTENTION_LAB_ALLOW_UNSANDBOXED",
        "Protections",
        "allow_unsandboxed_in_pod",
        "1 grades in a Kubernetes pod without the sandbox's walls (trusted work only).",
        switch=True,
    ),
)

_BY_NAME = {variable.name: variable for variable in VARIABLES}


def variable_value(name: str, environ: Mapping[str, str] | None = None) -> str | bool | None:
    """Return the value variable ``name`` gives its setting, None when it is not set.

    Parameters
    ----------
    name : str
        One of :data:`VARIABLES` (another name is a programming error: KeyError).
    environ : mapping, optional
        Where to read it; defaults to ``os.environ``.
    """
    variable = _BY_NAME[name]
    raw = (os.environ if environ is None else environ).get(name)
    if raw is None or raw == "":
        return None
    return raw == "1" if variable.switch else raw


def apply_environment(c: Config, environ: Mapping[str, str] | None = None) -> None:
    """Write the variables set for nbgrader's own settings into ``c`` (the course file's call).

    Parameters
    ----------
    c : Config
        The config the course's ``nbgrader_config.py`` is building; changed in place.
    environ : mapping, optional
        Where to read the variables; defaults to ``os.environ``.
    """
    for variable in VARIABLES:
        value = variable_value(variable.name, environ) if variable.course_file else None
        if value is not None:
            c[variable.section][variable.trait] = value


def variables_table() -> str:
    """Every variable as a Markdown table: variable, setting, what it is for."""
    rows = ["| Variable | Setting | What it is for |", "|---|---|---|"]
    for v in VARIABLES:
        text = v.help.replace("|", "\\|")
        rows.append(f"| `{v.name}` | `c.{v.section}.{v.trait}` | {text} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(variables_table())
