"""The one call both hub configs make: :func:`configure_hub`, with the classes each reads.

``jupyterhub_config.py`` (one class, who is who from the environment and a roster) and
``jupyterhub_config_multi.py`` (several classes, from a classes file) differ only in how they
find their classes (:func:`one_class`, :func:`several_classes`); everything else, the idle
culler and the rosters included, is set here once, so that the two hubs cannot drift apart.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from attention_hub.classroom import configure_classroom, refuse_public_state_folder
from attention_hub.course import Course, names_from_env
from attention_hub.culler import configure_idle_culler
from attention_hub.origins import subdomain_host
from attention_hub.roster import Roster, read_roster
from attention_hub.spawner_settings import configure_spawner

__all__ = ["Classes", "configure_hub", "one_class", "several_classes"]

DEFAULT_EXCHANGE = "/srv/nbgrader/exchange"
#: configurable-http-proxy as `make hub-deps` installs it (pinned), beside the course checkout
_CHP = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    *("..", "..", "build", "node", "node_modules", ".bin", "configurable-http-proxy"),
)


@dataclass(frozen=True)
class Classes:
    """What a hub config found: its classes, their exchange, the formgrader iframe switch.

    Parameters
    ----------
    courses : tuple of Course
        The classes on this hub, their rosters already added.
    exchange : str
        The shared nbgrader exchange.
    formgrader_iframe : bool
        ``ATTENTION_LAB_FORMGRADER_IFRAME=1`` (one class; several classes open their
        formgrader services in their own tab, so nothing is framed).
    """

    courses: tuple[Course, ...]
    exchange: str
    formgrader_iframe: bool = False


def with_roster(course: Course, roster: Roster) -> Course:
    """Return ``course`` with the roster's instructors and students added to its own lists."""
    return replace(
        course,
        instructors=(*course.instructors, *roster.instructors),
        students=(*course.students, *roster.students),
    )


def one_class(env: Mapping[str, str] = os.environ) -> Classes:
    """Return the one class of ``jupyterhub_config.py``, from the environment and its roster.

    ``ATTENTION_LAB_INSTRUCTORS``, ``ATTENTION_LAB_STUDENTS`` (comma separated),
    ``ATTENTION_LAB_ROSTER`` (a roster CSV, added to both), ``ATTENTION_LAB_VARIANT_KEY`` (the
    course key, ``c.Variants.key_file``, e.g. ``<course>/variant.key``: made as the hub starts
    when missing, so that every server gets its student's seed), ``ATTENTION_LAB_EXCHANGE``,
    ``ATTENTION_LAB_FORMGRADER_IFRAME``.
    """
    course = Course(
        course_id="attention-lab",
        instructors=names_from_env("ATTENTION_LAB_INSTRUCTORS", env),
        students=names_from_env("ATTENTION_LAB_STUDENTS", env),
        variant_key_file=env.get("ATTENTION_LAB_VARIANT_KEY") or None,
    )
    roster = env.get("ATTENTION_LAB_ROSTER")
    return Classes(
        courses=(with_roster(course, read_roster(roster)) if roster else course,),
        exchange=env.get("ATTENTION_LAB_EXCHANGE", DEFAULT_EXCHANGE),
        formgrader_iframe=env.get("ATTENTION_LAB_FORMGRADER_IFRAME") == "1",
    )


def several_classes(path: str) -> Classes:
    """Return the classes of ``jupyterhub_config_multi.py``, from a classes file.

    ``classes.example.json``'s format: ``exchange`` and ``courses``, each a :class:`Course`'s
    fields plus, optionally, ``roster`` (a roster CSV whose people join that class).
    """
    with open(path, encoding="utf-8") as handle:
        settings: dict[str, Any] = json.load(handle)
    courses = []
    for entry in settings["courses"]:
        fields = dict(entry)
        roster = fields.pop("roster", None)
        course = Course(**fields)
        courses.append(with_roster(course, read_roster(roster)) if roster else course)
    return Classes(tuple(courses), settings.get("exchange", DEFAULT_EXCHANGE))


def configure_hub(
    c: Any, classes: Classes, env: Mapping[str, str] = os.environ, *, state_folder: str = "."
) -> None:
    """Set everything of an Attention Lab hub on config ``c`` (both shipped configs call this).

    Parameters
    ----------
    c : traitlets.config.Config
        The ``c = get_config()`` of a hub config.
    classes : Classes
        Its classes (:func:`one_class`, :func:`several_classes`).
    env : mapping of str to str
        The hub's environment: ``ATTENTION_LAB_CONFIG_ROOT`` (``/etc/jupyter``),
        ``ATTENTION_LAB_VENV`` (the hub's own ``sys.prefix``), ``ATTENTION_LAB_SUBDOMAIN_HOST``
        or ``ATTENTION_LAB_ONE_ORIGIN=1`` (:func:`origins.subdomain_host`), the limits
        (:func:`spawner_settings.configure_spawner`) and ``ATTENTION_LAB_CULL_IDLE`` (3600
        seconds; 0: no culler).
    state_folder : str
        Where the hub keeps its database and cookie secret: must be private.

    Raises
    ------
    ValueError
        A setting the hub must not start with, with its fix (no subdomain host, a course
        folder someone else owns, a state folder others can read, ...).
    """
    venv = env.get("ATTENTION_LAB_VENV", sys.prefix)
    courses: Sequence[Course] = classes.courses
    configure_classroom(
        c,
        courses,
        exchange=classes.exchange,
        config_root=env.get("ATTENTION_LAB_CONFIG_ROOT", "/etc/jupyter"),
        venv=venv,
        formgrader_iframe=classes.formgrader_iframe,
        subdomain_host=subdomain_host(env),
    )
    inbound = [os.path.join(classes.exchange, course.course_id, "inbound") for course in courses]
    configure_spawner(c, inbound, env)
    configure_idle_culler(c, timeout=int(env.get("ATTENTION_LAB_CULL_IDLE", "3600")), venv=venv)
    if os.path.exists(_CHP):  # else the configurable-http-proxy on PATH
        c.ConfigurableHTTPProxy.command = [os.path.abspath(_CHP)]
    # the database holds every user's tokens: a private folder only
    c.JupyterHub.db_url = "sqlite:///jupyterhub.sqlite"
    refuse_public_state_folder(state_folder)
