"""The misconception registry: one entry per mistake the course's feedback can name.

An entry holds everything about one misconception: its id (what feedback shows in square
brackets and the class report counts), a short title for the teacher, the message a student gets
when a computed answer shows it, the teaching idea shown when a multiple-choice option or a
true/false answer reveals it, and the wrong computation(s) that produce it, written as stage
replacements of the attention computation (:class:`attention_lab._steps.WrongComputation`), or,
for a mistake about projections, heads or positions (lesson 6), of one projected head
(:class:`attention_lab._layer_steps.WrongLayer`, in ``layer_wrong``).

The checks in :mod:`attention_lab.checks` build their candidate wrong answers from these entries
and raise :class:`attention_lab.checks.Misconception` with an entry's id; the grader records that
id as data in the graded cell (:mod:`attention_grader.common.diagnosis`), where the teacher's report
reads it. A new misconception is one new entry (and a test): in
:mod:`attention_lab._computed_entries` when a computation shows it, in
:mod:`attention_lab._idea_entries` when only a wrong option or answer does. The entry itself
is :class:`attention_lab._entry.Entry`; the wrong stages the entries share live in
:mod:`attention_lab._wrong_stages`.
"""

from __future__ import annotations

from attention_lab._block_entries import BLOCK_ENTRIES
from attention_lab._computed_entries import COMPUTED_ENTRIES
from attention_lab._entry import Entry
from attention_lab._idea_entries import IDEA_ENTRIES
from attention_lab._layer_steps import WrongLayer
from attention_lab._steps import Case, WrongComputation

__all__ = [
    "REGISTRY",
    "Entry",
    "Case",
    "WrongComputation",
    "entries_for",
    "layer_entries_for",
    "diagnosis_text",
    "format_diagnosis",
    "get",
    "titles",
]


# Order matters: when one wrong answer matches several computations equally well, the first
# entry wins, so specific mistakes come before general ones (attention_lab/_computed_entries.py
# says why its own order is what it is); the ideas and the block's entries come after.
_ENTRIES = [*COMPUTED_ENTRIES, *IDEA_ENTRIES, *BLOCK_ENTRIES]

#: id -> Entry, in matching order.
REGISTRY: dict[str, Entry] = {entry.id: entry for entry in _ENTRIES}


def get(id: str) -> Entry:
    """Return the entry of ``id``; KeyError names the registry when it is unknown."""
    try:
        return REGISTRY[id]
    except KeyError:
        raise KeyError(
            f"unknown misconception id {id!r}; add an Entry to the registry of "
            "attention_lab/misconceptions.py: in _computed_entries.py when a computation shows "
            "it, in _idea_entries.py for an idea no computation shows"
        ) from None


def titles() -> dict[str, str]:
    """Return each id's short title (id -> title), for the teacher's report."""
    return {entry.id: entry.title for entry in _ENTRIES}


def entries_for(kind: str) -> list[tuple[str, WrongComputation]]:
    """(id, wrong computation) for every entry that applies to an answer of ``kind``, in order."""
    return [(entry.id, w) for entry in _ENTRIES for w in entry.computations(kind)]


def layer_entries_for(kind: str) -> list[tuple[str, WrongLayer]]:
    """(id, wrong layer computation) for every entry that changes a layer answer of ``kind``.

    ``kind`` is one of ``"queries"``, ``"weights"``, ``"output"`` (one projected head).
    """
    return [(entry.id, w) for entry in _ENTRIES for w in entry.layer_wrong if w.reaches(kind)]


def diagnosis_text(id: str, name: str, message: str = "", detail: str = "") -> str:
    """Return what a student reads about a misconception: ``"name: message detail"``.

    ``message`` defaults to the entry's three levels (:meth:`Entry.feedback`).
    """
    text = message or get(id).feedback()
    return f"{name}: {text} {detail}".rstrip()


def format_diagnosis(id: str, name: str, message: str = "", detail: str = "") -> str:
    """Return the feedback line naming a misconception: ``"[id] name: message detail"``.

    The id in brackets is for the student's eyes. The grader carries the id as data (the
    check's exception has it, :class:`attention_lab.checks.Misconception`), never reads it back
    from this text.
    """
    return f"[{id}] {diagnosis_text(id, name, message, detail)}"
