"""A readable copy of the installed project for a process running as another user.

The grading pod's stand-in (tests/test_k8s_grading.py) runs as uid 1000. The checkout, its
.venv and the editable install's source folders may sit where that user cannot enter (a clone in
a 0700 folder, as ``mktemp -d`` makes, or a private home), so it gets what the image's venv
would hold, copied into a site-packages folder it can read: every distribution attention-lab's
chosen extras need (from the installed metadata, markers evaluated here), and attention-lab's
own packages from where this process imports them. Files are hard-linked where the two folders
share a file system (instant; a link needs no access to the folders above the original) and
copied otherwise.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

PROJECT = "attention-lab"
#: attention-lab's import packages (the editable install maps them onto the checkout).
PROJECT_PACKAGES = ("attention_lab", "attention_grader")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def needed_distributions(extras: Iterable[str]) -> list[metadata.Distribution]:
    """attention-lab's installed dependencies with ``extras``, transitively (not itself).

    A requirement this venv does not hold is left out, as the venv left it out (the Makefile
    uninstalls SLOW_IMPORTS, which jsonschema only uses when present).
    """
    seen: dict[str, metadata.Distribution] = {}
    todo = [(PROJECT, frozenset(extras))]
    while todo:
        name, wanted = todo.pop()
        dist = metadata.distribution(name)
        for line in dist.requires or []:
            req = Requirement(line)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is not None and not any(req.marker.evaluate(env) for env in envs):
                continue
            key = _canonical(req.name)
            if key == _canonical(PROJECT):  # a self-reference between extras
                todo.append((PROJECT, frozenset(req.extras)))
                continue
            if key not in seen:
                try:
                    seen[key] = metadata.distribution(req.name)
                except metadata.PackageNotFoundError:  # left out on purpose (SLOW_IMPORTS)
                    continue
                todo.append((req.name, frozenset(req.extras)))
            elif req.extras:
                todo.append((req.name, frozenset(req.extras)))
    return sorted(seen.values(), key=lambda d: _canonical(d.metadata["Name"]))


def _place(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        return
    try:
        os.link(source, target)
    except OSError:  # another file system, or links refused: a copy
        shutil.copy2(source, target)


def copy_installed(extras: Iterable[str], site_packages: Path) -> list[str]:
    """Copy attention-lab (its import packages) and the distributions its ``extras`` need into
    ``site_packages`` (``<prefix>/lib/pythonX.Y/site-packages``), keeping each distribution's
    layout: its data files (Jupyter's templates under ``share/``) land in ``<prefix>`` as an
    install puts them. Returns the names copied.
    """
    site_packages = Path(site_packages)
    # Console scripts are left out: their #! line names this venv's interpreter, which the
    # other user may not reach (the pod runs ``python -m``).
    scripts = site_packages.parents[2] / "bin"
    names = []
    for dist in needed_distributions(extras):
        base = Path(dist.locate_file(""))
        for entry in dist.files or []:
            source, target = base / entry, Path(os.path.normpath(site_packages / entry))
            if scripts in target.parents or "__pycache__" in entry.parts:
                continue
            if source.is_file():
                _place(source, target)
        names.append(dist.metadata["Name"])
    for package in PROJECT_PACKAGES:
        folder = Path(importlib.util.find_spec(package).submodule_search_locations[0])
        for source in folder.rglob("*"):
            if source.is_file() and "__pycache__" not in source.parts:
                _place(source, site_packages / package / source.relative_to(folder))
        names.append(package)
    return names
