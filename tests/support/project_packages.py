"""What pyproject.toml declares for each audience and what those names pull in here (installed
metadata): read by tests/test_environment.py and tests/attention_grader/pages/test_docs_site.py.
"""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def audience(*extras: str, students: bool = True) -> set[str]:
    """The names pyproject declares for the students (its dependencies) and ``extras``."""
    project = pyproject()
    reqs = list(project["dependencies"]) if students else []
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    return {canonical(Requirement(r).name) for r in reqs}


def closure(names: set[str]) -> set[str]:
    """Every distribution ``names`` pull in here, by their installed metadata (no extras)."""
    seen, todo = set(), list(names)
    while todo:
        name = canonical(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            reqs = requires(name) or []
        except PackageNotFoundError:
            continue  # a platform's package (pywinpty...) or a removed slow import
        for req in map(Requirement, reqs):
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen
