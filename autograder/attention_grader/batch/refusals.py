"""What a release refusal says: one kind per cause, each with its heading and its way out.

The release check (:mod:`attention_grader.batch.solution_check`) refuses for different causes:
the solution loses points as students will be graded, loses points on a sample student's
numbers, a variant cannot tell two misconceptions apart or ties, a misconception's wrong
answer is right on a variant, a copy of a classmate's right answer would earn the points.
Each :class:`Refusal` carries its kind as data (one of :data:`KINDS`), so the message gives
each cause its own heading and what a teacher does about it, never read back from the text.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "Refusal", "RefusalKind", "refusal_message"]


@dataclass(frozen=True)
class RefusalKind:
    """One cause of a release refusal.

    Attributes
    ----------
    id : str
        The kind's id, carried by each :class:`Refusal`.
    heading : str
        What is wrong, with ``{notebook}`` for the notebook's name.
    way_out : str
        What the teacher does about it ("" when each refusal's cause says it).
    """

    id: str
    heading: str
    way_out: str


#: Every kind, in the order a message lists them.
KINDS: dict[str, RefusalKind] = {
    k.id: k
    for k in (
        RefusalKind(
            "solution",
            "the solution of {notebook} does not get every point when graded the way students "
            "will be (docs/authoring.md, 'Test styles'):",
            "",
        ),
        RefusalKind(
            "variant_points",
            "the solution of {notebook} loses points on a sample student's own numbers "
            "(its variant):",
            "compute the solution from the names the variant cell binds, not from numbers "
            "written in it, or make the generator raise variants.Redraw on numbers the "
            "question cannot be asked with (docs/authoring.md, 'Every student's own numbers')",
        ),
        RefusalKind(
            "alike",
            "in {notebook}, two misconceptions give the same wrong answer on a sample "
            "student's numbers, so the feedback could not say which mistake she made:",
            "make the generator raise variants.Redraw when checks.tells_apart(...) (or "
            "checks.heads_tell_apart(...)) is False for the numbers it drew",
        ),
        RefusalKind(
            "tie",
            "in {notebook}, two right scores or weights tie on a sample student's numbers "
            "(all weights equal is the extreme case), so 'the best key' has no one answer:",
            "make the generator raise variants.Redraw on such numbers (checks.tells_apart(...) "
            "is False for them)",
        ),
        RefusalKind(
            "accepted",
            "in {notebook}, a misconception's wrong answer equals the right one on a sample "
            "student's numbers, so a student who makes that mistake would get the points:",
            "make the generator raise variants.Redraw on such numbers (checks.tells_apart(...) "
            "is False for them), or draw numbers on which the mistake shows",
        ),
        RefusalKind(
            "collision",
            "in {notebook}, a classmate's right answer is right on another student's numbers "
            "too often, so copying it would earn the points:",
            "widen the numbers the generator draws (more values, tenths) so that two students "
            "rarely share a right answer; or, if this question shares answers by nature and "
            "the shared_answer flag on each such cell is enough for you, raise "
            "c.CheckSolution.variant_collision_rate in nbgrader_config.py on purpose",
        ),
    )
}


@dataclass(frozen=True)
class Refusal:
    """One cause the release check refuses: where (a grade_id or a sample), why, its kind."""

    grade_id: str
    cause: str
    kind: str = "solution"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown refusal kind {self.kind!r}: one of {', '.join(KINDS)}")

    def __str__(self) -> str:
        return f"{self.grade_id}: {self.cause}"


def refusal_message(notebook: str, refusals: list[Refusal]) -> str:
    """Return the refusal's text: per kind, its heading, its refusals, then its way out."""
    lines = []
    for kind in KINDS.values():
        found = [r for r in refusals if r.kind == kind.id]
        if not found:
            continue
        lines.append(f"release refused: {kind.heading.format(notebook=notebook)}")
        lines += [f"  {r}" for r in found]
        if kind.way_out:
            lines.append(f"  what to do: {kind.way_out}")
    return "\n".join(lines)
