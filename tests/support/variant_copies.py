"""A copier's Q3 in ``focus_in_the_noise``: whose numbers she hands in, and what they earn.

The hub's variant class (tests/hub/test_hub_variants.py) draws fresh logins and a fresh course
key on every run, so its students' numbers are random. A classmate's right answer to one step
can then also be the copier's own right answer: softmax ignores a shift of all scores, so
whenever the classmate's scores are the copier's plus one constant, their weights are equal
(``[4, 2, 6] / sqrt(2)`` and ``[2, 0, 4] / sqrt(2)``), and the hidden test rightly gives the
copier that step's points, since it is right on her own numbers. The test therefore picks a
classmate whose answer is wrong on every step of the copier's numbers, and expects a step's
points only where the course's own check accepts the copied answer on her numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from attention_lab import checks

__all__ = ["colliding_pair", "copy_source", "numbers_answer", "steps_right"]

Numbers = tuple[list, list, list]


def numbers_answer(Q, K, V, scale: bool = True) -> str:
    """Q3 answered as printed numbers worked out from ``Q, K, V`` (what a copier hands in)."""
    s = np.asarray(K) @ np.asarray(Q)[1] / (np.sqrt(2) if scale else 1)
    w = np.exp(s) / np.exp(s).sum()
    return (
        f"launched_scores = {np.round(s, 4).tolist()}\n"
        f"launched_weights = {np.round(w, 4).tolist()}\n"
        f"launched_output = {np.round(w @ np.asarray(V), 4).tolist()}\n"
    )


def _scores(answer, Q, K, V) -> None:
    checks.check_scores(answer, Q[1], K, scale=True, values=V, queries=Q)


def _weights(answer, Q, K, V) -> None:
    checks.check_weights(answer, Q[1], K, scale=True, values=V, queries=Q)


def _output(answer, Q, K, V) -> None:
    checks.check_output(answer, Q[1], K, V, scale=True, queries=Q)


#: Q3's graded steps (the test cells' grade ids) and the hidden check of each, as in the source.
STEPS: dict[str, tuple[str, Callable[..., None]]] = {
    "launched_scores": ("launched_scores", _scores),
    "launched_weights_sum_to_one": ("launched_weights", _weights),
    "launched_output": ("launched_output", _output),
}


def steps_right(answer: str, numbers: Numbers) -> tuple[str, ...]:
    """Return the Q3 test cells whose hidden check accepts ``answer`` on ``numbers``.

    Parameters
    ----------
    answer : str
        Q3's answer cell, as :func:`numbers_answer` writes it.
    numbers : (Q, K, V)
        Shapes (3, 2), (3, 2), (3, 2): the student's own numbers.
    """
    scope: dict = {}
    exec(answer, scope)  # noqa: S102 -- our own numbers_answer text
    Q, K, V = (np.asarray(m) for m in numbers)
    right = []
    for cell, (name, check) in STEPS.items():
        try:
            check(scope[name], Q, K, V)
        except AssertionError:
            continue
        right.append(cell)
    return tuple(right)


def copy_source(
    drawn: Mapping[str, Numbers], copier: str, classmates: Sequence[str], practice: Numbers
) -> tuple[str, bool]:
    """Return whose numbers the copier takes, and whether that answer fits that classmate alone.

    The first classmate whose worked-out answer is wrong on every step of the copier's own
    numbers and of the practice numbers (one key's variant can give the practice answers, and
    the flag then rightly names the practice variant too): ``(name, True)``. Failing that, the
    first whose answer is wrong on all of the copier's steps, else the first classmate, with
    ``False``; the caller expects a step's points wherever :func:`steps_right` says so.
    """
    answers = {c: numbers_answer(*drawn[c]) for c in classmates}
    for c in classmates:
        if not steps_right(answers[c], drawn[copier]) and not steps_right(answers[c], practice):
            return c, True
    for c in classmates:
        if not steps_right(answers[c], drawn[copier]):
            return c, False
    return classmates[0], False


def colliding_pair(drawn: Mapping[str, Numbers]) -> tuple[str, str, tuple[str, ...]]:
    """Return ``(source, copier, steps)``: a right answer of ``source`` right on ``copier``'s too.

    The first such ordered pair among ``drawn`` (student -> her numbers), with the Q3 test
    cells that accept the copy; raises LookupError when no pair shares a right step.
    """
    weights = {}
    for student, (Q, K, _) in drawn.items():
        s = np.asarray(K) @ np.asarray(Q)[1] / np.sqrt(2)
        weights[student] = np.exp(s) / np.exp(s).sum()
    for source in drawn:
        answer = numbers_answer(*drawn[source])
        for copier in drawn:
            near = np.allclose(weights[source], weights[copier], atol=0.02)
            if copier != source and near:
                steps = steps_right(answer, drawn[copier])
                if steps:
                    return source, copier, steps
    raise LookupError("no two of these students share a right step: draw more of them")
