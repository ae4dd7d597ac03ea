"""One misconception of the registry (:mod:`attention_lab.misconceptions`) and its three levels."""

from __future__ import annotations

from dataclasses import dataclass

from attention_lab._layer_steps import WrongLayer
from attention_lab._steps import WrongComputation


@dataclass(frozen=True)
class Entry:
    """One misconception, with its feedback in three levels.

    A student who shows it reads, in this order: the misconception named in plain words
    (``message``, or ``idea`` for a choice), a hint that points at the idea (``hint``), and
    where the course teaches it (``lesson``). None of them gives the fix as code or the right
    option's text (``tests/test_feedback_texts.py`` scans every one).

    Attributes
    ----------
    id : str
        lower_snake_case; shown in brackets in feedback, e.g. ``[forgot_scaling]``.
    title : str
        A few words for the teacher's report.
    message : str
        Level 1 for a computed answer: what the wrong answer shows, in plain words (never a
        number, never the fix).
    idea : str
        Level 1 for a multiple-choice option or true/false answer that reveals it: the mistaken
        idea, named without pointing at the right option.
    wrong : tuple of WrongComputation
        The computations that produce it (empty for a misconception about an idea).
    kinds : frozenset of str or None
        The answer kinds it is looked for in (see ``WrongComputation.reaches``); None = every
        kind its computations reach.
    hint : str
        Level 2: a question or pointer that leads to the idea (not to the fix).
    lesson : str
        Level 3: where the course teaches it, e.g. ``"lesson 04"``.
    layer_wrong : tuple of WrongLayer
        The computations of one projected head that produce it (lesson 6's projections, heads
        and positions; see :func:`layer_entries_for`).
    """

    id: str
    title: str
    message: str
    idea: str = ""
    wrong: tuple[WrongComputation, ...] = ()
    kinds: frozenset[str] | None = None
    hint: str = ""
    lesson: str = ""
    layer_wrong: tuple[WrongLayer, ...] = ()

    def computations(self, kind: str) -> tuple[WrongComputation, ...]:
        """Return the wrong computations that apply to an answer of ``kind``."""
        if self.kinds is not None and kind not in self.kinds:
            return ()
        return tuple(w for w in self.wrong if w.reaches(kind))

    def feedback(self, first: str = "") -> str:
        """Return the three levels as one text: ``first`` (default: the message), hint, lesson."""
        text = first or self.message
        if self.hint:
            text += f" Hint: {self.hint}"
        if self.lesson:
            text += f" (See {self.lesson}.)"
        return text

    @property
    def lesson_number(self) -> int:
        """The lesson ``lesson`` points to, as a number (``"lesson 03"`` -> 3; 0 for none)."""
        return int(self.lesson.removeprefix("lesson ")) if self.lesson else 0

    @property
    def teaching(self) -> str:
        """What a wrong choice shows: the idea (else the message), then hint and lesson."""
        return self.feedback(self.idea or self.message)
