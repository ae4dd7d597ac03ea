"""Flags for handing in a library in an implement-it notebook (they change no score).

In an implement-it notebook the graded kernel has no working library
(:mod:`attention_grader.implement_it`), so the score already is what the student's own code
earns. What is left is telling the teacher, from two sources:

* the submitted source, read statically (:func:`attention_grader.trusted.library_use`): which
  graded function refers to ``attention_lab``, ``scipy``, ... or to code that could reach them
  (``__import__``, ``importlib``, ``exec``, ``open`` ...);
* the stub's own words in an output: a cell or a check whose output holds ``LibraryHidden``'s
  message shows the student's code tried to use the library while it was graded.
"""

from __future__ import annotations

import re

from .execution_stops import cell_label
from .implement_it import STUB_MARKER
from .trusted import library_use

__all__ = ["STUB_SEEN", "library_flags", "stub_seen"]

STUB_SEEN = "the code used attention_lab while it was graded (the library is not there: 0 points)"


#: A library named anywhere in the student's own cells (an import, a path to its files ...).
_NAMED = re.compile(r"\b(attention_lab|scipy|torch|tensorflow|jax)\b")


def library_flags(student_sources: list[str], graded: list[str]) -> list[str]:
    """What the student's own cells show of a forbidden library, statically.

    One detail per graded name whose code refers to one (or to code that could reach one);
    else, if a library is named anywhere in those cells (``exec(open(".../attention_lab/..."))``
    at module level), that.
    """
    details = []
    for name in graded:
        found = library_use(student_sources, name, stop=set(graded) - {name})
        if found:
            details.append(f"{name} refers to {found}")
    named = sorted({m for source in student_sources for m in _NAMED.findall(source)})
    if named and not details:
        details.append(f"the student's cells name {', '.join(named)}")
    return details


def _text(output) -> str:
    parts = [str(output.get("text", "")), str(output.get("evalue", ""))]
    parts += [str(line) for line in output.get("traceback", []) or []]
    parts += [str(v) for v in (output.get("data") or {}).values()]
    return "\n".join(parts)


#: What a check writes when a student's function used a library that is not there.
_DIAGNOSED = "[used_library]"


def stub_seen(nb) -> list[str]:
    """Labels of the cells whose outputs carry the stub's message (or the checks' diagnosis)."""
    return [
        cell_label(cell, index)
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        and any(
            STUB_MARKER in _text(out) or _DIAGNOSED in _text(out) for out in cell.get("outputs", [])
        )
    ]
