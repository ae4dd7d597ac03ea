"""The numbers a test checked a student's answers against, carried from grading to the pages.

With per-student variants (:mod:`attention_lab.variants`) each student answers on her own
numbers, so a teacher reading an answer needs those numbers beside it. When a hidden test runs
in the grader on a student's variant, the executor writes into that test cell's grading
metadata (:func:`record_variant`)::

    cell.metadata["attention_grader"]["variant"] = {
        "student": "alice",
        "numbers": {"K": "[[1, 0], [2, 2], [0, 1]]", "q_launched": "[2, 1]", ...},
        "answers": {"launched_scores": "[0.7071, 2.1213, 0.7071]"},
        "also_right_for": ["bob"],
    }

``numbers`` are what the variant cells drew for her (the names the test reads), ``answers``
what her kernel gave the test, each as short text; ``also_right_for`` the classmates (or
``practice``) on whose numbers her answers are right too, when the test passed (a right answer
two variants share: copied, or a coincidence; the flag ``shared_answer``). The formgrader
(:mod:`attention_grader.pages.formgrader_view`) and the class report
(:mod:`attention_grader.reports.variant_rows`) read it back (:func:`read_variant`) and escape it
when they show it: the answers and the student id are hers. Intake drops any
``attention_grader`` metadata a submission brings (:mod:`attention_grader.executor.tamper`),
so only grading writes this.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbformat import NotebookNode

from attention_grader.common.flags import GRADER_METADATA

__all__ = ["VARIANT", "VariantRead", "read_variant", "record_variant", "shown"]

#: The key under a cell's ``attention_grader`` metadata.
VARIANT = "variant"
#: At most this many characters of one value (an answer may be a long list or a string).
MAX_CHARS = 300
#: At most this many names of each kind per test.
MAX_NAMES = 12


@dataclass(frozen=True)
class VariantRead:
    """What one test read: the student's numbers and her answers, as short text.

    Attributes
    ----------
    student : str
        Whose variant (the id the exchange trusts).
    numbers : tuple of (name, text)
        The values the variant cells drew for her that the test reads, sorted by name.
    answers : tuple of (name, text)
        Her answers as the grader read them, sorted by name.
    also_right_for : tuple of str
        Whose numbers her (right) answers are right on too: classmates' ids, ``practice``.
    """

    student: str
    numbers: tuple[tuple[str, str], ...]
    answers: tuple[tuple[str, str], ...]
    also_right_for: tuple[str, ...] = ()


def shown(value: object) -> str:
    """Return ``value`` as short text: arrays as nested lists (4 decimals), the rest as repr."""
    import numpy as np

    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        value = (np.round(value, 4) if value.dtype.kind == "f" else value).tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def _pairs(values: Mapping[str, object]) -> dict[str, str]:
    return {str(k)[:100]: shown(v) for k, v in sorted(values.items())[:MAX_NAMES]}


def record_variant(
    cell: NotebookNode,
    student: str,
    numbers: Mapping[str, object],
    answers: Mapping[str, object],
    also_right_for: Sequence[str] = (),
) -> None:
    """Write what a test read on ``student``'s variant into ``cell``'s grading metadata."""
    meta = cell.metadata.setdefault(GRADER_METADATA, {})
    meta[VARIANT] = {
        "student": student,
        "numbers": _pairs(numbers),
        "answers": _pairs(answers),
        "also_right_for": [str(s)[:200] for s in also_right_for[:MAX_NAMES]],
    }


def _text_pairs(found: object) -> tuple[tuple[str, str], ...]:
    if not isinstance(found, dict):
        return ()
    return tuple((k, v) for k, v in found.items() if isinstance(k, str) and isinstance(v, str))


def read_variant(cell: NotebookNode) -> VariantRead | None:
    """Return what :func:`record_variant` wrote into ``cell``, or None."""
    meta = cell.get("metadata", {}).get(GRADER_METADATA, {})
    found = meta.get(VARIANT) if isinstance(meta, dict) else None
    if not isinstance(found, dict) or not isinstance(found.get("student"), str):
        return None
    numbers = _text_pairs(found.get("numbers"))
    if not numbers:
        return None
    also = found.get("also_right_for")
    also = tuple(s for s in also if isinstance(s, str)) if isinstance(also, list) else ()
    return VariantRead(found["student"], numbers, _text_pairs(found.get("answers")), also)
