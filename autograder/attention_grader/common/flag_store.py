"""The one store of a submission's flags: one writer (:func:`record_flags`), one reader (:func:`read_flags`).

Flags (:class:`~attention_grader.common.flags.Flag`, of a kind in the registry,
:mod:`attention_grader.common.flags`) are kept in two places: the notebook's grading metadata
(``metadata.attention_grader.flags``, what the formgrader's copy and the batch summary read)
and, for what is found before a notebook exists or for the whole submission (collect, intake),
``flags.json`` in the submission's quarantine folder, so those flags survive a regrade.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from attention_grader.common.flags import GRADER_METADATA, REGISTRY, Flag

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["FLAGS_FILE", "read_flags", "record_flags"]

#: The submission-level store, in its quarantine folder (``<course>/quarantine/<student>/<a>/``).
FLAGS_FILE = "flags.json"


def _rows(stored: object) -> list[Flag]:
    """Return the flags of stored ``[kind, detail]`` pairs (rows of unknown kinds left out)."""
    out = []
    for row in stored if isinstance(stored, list) else []:
        if isinstance(row, list | tuple) and len(row) == 2 and str(row[0]) in REGISTRY:
            out.append(Flag(str(row[0]), str(row[1])))
    return out


def _read_file(quarantine: Path) -> list[Flag]:
    try:
        return _rows(json.loads((Path(quarantine) / FLAGS_FILE).read_text()))
    except (OSError, ValueError):
        return []


def _write_file(quarantine: Path, flags: list[Flag]) -> None:
    quarantine.mkdir(parents=True, exist_ok=True)
    text = json.dumps([[f.kind, f.detail] for f in flags]).encode()
    record = quarantine / FLAGS_FILE
    if os.path.islink(record):  # never write through a link into the course
        os.unlink(record)
    fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(text)


def record_flags(
    flags: Iterable[Flag],
    *,
    notebook: NotebookNode | None = None,
    quarantine: Path | None = None,
    reset: bool = False,
) -> list[Flag]:
    """Record ``flags`` (each a :class:`Flag`), each kind and detail once: the one writer.

    Parameters
    ----------
    flags : iterable of Flag
    notebook : NotebookNode, optional
        Add them to its grading metadata (what the batch summary and the report read).
    quarantine : Path, optional
        Add them to the submission's ``flags.json`` (``reset``: start afresh, as collect does
        for a new submission).

    Returns
    -------
    list of Flag
        Everything the submission's ``flags.json`` now holds, oldest first, when
        ``quarantine`` is given; else ``flags`` (each once).
    """
    flags = list(dict.fromkeys(Flag(f.kind, f.detail) for f in flags))
    every = flags
    if quarantine is not None:
        quarantine = Path(quarantine)
        old = [] if reset else _read_file(quarantine)
        every = old + [f for f in flags if f not in old]
        if every != old or reset:
            _write_file(quarantine, every)
    if notebook is not None:
        stored = notebook.metadata.setdefault(GRADER_METADATA, {}).setdefault("flags", [])
        for flag in flags:
            entry = [flag.kind, flag.detail]
            if entry not in stored:
                stored.append(entry)
    return every


def read_flags(
    notebook: NotebookNode | None = None, *, quarantine: Path | None = None
) -> list[Flag]:
    """Return the flags :func:`record_flags` recorded: the submission's, then the notebook's.

    Each once; stored rows that are not a registered kind's are left out (only grading writes
    these stores, but an old course may hold kinds that no longer exist).
    """
    found = _read_file(Path(quarantine)) if quarantine is not None else []
    if notebook is not None:
        found += _rows(notebook.metadata.get(GRADER_METADATA, {}).get("flags", []))
    return list(dict.fromkeys(found))
