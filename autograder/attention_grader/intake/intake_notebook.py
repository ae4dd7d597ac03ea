"""The notebook half of the intake: read a submitted notebook safely, strip risky metadata.

A notebook is read within caps (bytes, nesting depth, cells) without ever raising, and the cell
metadata that changes how it executes is stripped.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbformat import NotebookNode

from attention_grader.common.flags import EDITED_METADATA, INVALID_NOTEBOOK, UNSAFE_FILE, Flag
from attention_grader.common.safe_text import printable
from attention_grader.intake.intake_files import IntakeLimits

__all__ = ["KEEP_CELL_METADATA", "json_depth", "read_notebook_safely", "strip_cell_metadata"]


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_OPEN, _CLOSE = frozenset(b"[{"), frozenset(b"]}")
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(data: bytes, stop_at: int | None = None) -> int:
    """How deeply ``[``/``{`` nest in JSON text (strings skipped), without parsing it.

    Linear time and no recursion, so a "nesting bomb" (``[[[[…`` a million deep, which can
    exhaust the stack of a recursive parser or validator) is measured before anything parses it.
    ``stop_at``: return as soon as the depth exceeds it.
    """
    brackets = _JSON_STRING.sub(b"", data).translate(None, _NOT_BRACKET)
    depth = deepest = 0
    for byte in brackets:
        depth += 1 if byte in _OPEN else -1
        if depth > deepest:
            deepest = depth
            if stop_at is not None and deepest > stop_at:
                break
    return deepest


def _invalid(path: Path, why: str) -> tuple[None, list[Flag]]:
    return None, [Flag(INVALID_NOTEBOOK, f"{printable(path.name)}: {why}; not graded")]


def read_notebook_safely(
    path: Path, limits: IntakeLimits | None = None
) -> tuple[NotebookNode | None, list[Flag]]:
    """Read a submitted notebook within the caps; never raise.

    Returns
    -------
    (NotebookNode or None, list of Flag)
        The notebook (nbformat 4), or None and one ``invalid_notebook`` / ``unsafe_file`` flag with a
        one-line reason: a link or special file, too many bytes, nested too deep, not JSON, not a
        notebook, too many cells.
    """
    import nbformat

    limits, path = limits or IntakeLimits(), Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as err:
        return _invalid(path, f"cannot be opened without following links ({err.strerror})")
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
            return None, [
                Flag(UNSAFE_FILE, f"{printable(path.name)}: not a plain file; not graded")
            ]
        if st.st_size > limits.max_notebook_bytes:
            return _invalid(path, f"{st.st_size} bytes (limit {limits.max_notebook_bytes})")
        data = fh.read(limits.max_notebook_bytes + 1)
    if len(data) > limits.max_notebook_bytes:
        return _invalid(path, f"more than {limits.max_notebook_bytes} bytes")
    if json_depth(data, stop_at=limits.max_nesting) > limits.max_nesting:
        return _invalid(path, f"JSON nested more than {limits.max_nesting} levels deep")
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as err:
        reason = " ".join(str(err).split())[:80]
        return _invalid(path, f"not JSON ({printable(reason)})")
    if not isinstance(raw, dict) or not isinstance(raw.get("cells", []), list):
        return _invalid(path, "JSON but not a notebook")
    if len(raw.get("cells", [])) > limits.max_cells:
        return _invalid(path, f"{len(raw['cells'])} cells (limit {limits.max_cells})")
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
    except Exception as err:  # nbformat raises many kinds on a malformed notebook
        reason = " ".join(str(err).split())[:80]
        return _invalid(
            path, f"not a notebook ({printable(type(err).__name__)}: {printable(reason)})"
        )
    return nb, []


#: Cell metadata nbgrader reads; everything else (``tags``, ``jupyter``, ``editable``, ``execution``
#: …) is dropped, since nbclient obeys tags such as ``skip-execution`` and ``raises-exception``.
KEEP_CELL_METADATA = ("nbgrader",)


def strip_cell_metadata(nb: NotebookNode) -> list[Flag]:
    """Keep only nbgrader's metadata on every cell (in place); flag tags on test or locked cells.

    A student can tag a test cell ``skip-execution`` in JupyterLab's tag editor: nbclient then
    never runs it, and nbgrader's checksum ignores tags. Tags on the student's own cells are
    dropped silently (they can only hurt that student); on a test or locked cell each is one
    ``edited_metadata`` flag.
    """
    flags = []
    for index, cell in enumerate(nb.cells):
        meta = cell.get("metadata", {})
        tags = meta.get("tags")
        info = meta.get("nbgrader") if isinstance(meta.get("nbgrader"), dict) else {}
        if tags and (info.get("grade") or info.get("locked")):
            where = printable(info.get("grade_id") or f"cell {index}")
            shown = printable(", ".join(map(str, tags))[:80]) if isinstance(tags, list) else "?"
            flags.append(Flag(EDITED_METADATA, f"{where}: tags [{shown}] removed"))
        for key in [k for k in meta if k not in KEEP_CELL_METADATA]:
            del meta[key]
    return flags
