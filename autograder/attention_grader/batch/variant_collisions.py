"""The release check of copying: how often a classmate's right answer is right on your numbers.

Per-student variants (:mod:`attention_lab.variants`) make a copied answer wrong, unless the two
students' variants share a right answer: softmax ignores a shift of all scores, so two
variants whose scores differ by one constant share their right weights; a projection read off
small whole numbers has few possible values. Such a copy is right on the copier's own numbers
and earns the points (the grader then notes the cell: :mod:`attention_grader.checking.variant_grading`).

Before release, :func:`collision_rates` measures it for each test cell that reads a variant's
numbers: the solution is worked on each of ``samples`` sample students' variants (the release
check's sample key, never the course key), and on ``pairs`` ordered pairs of them the test of
one student is run, as the grader runs it (:func:`~attention_grader.checking.variant_grading.classmate_match`),
on the other's answers. The rate is the share of pairs where it passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from nbformat import NotebookNode

from attention_grader.batch.refusals import Refusal
from attention_grader.batch.variant_family import SampleRun, sample_runs
from attention_grader.checking.locked_names import is_plain_data, locked_bindings
from attention_grader.checking.variant_grading import classmate_match, draws_variant, far_apart
from attention_grader.wire.cell_code import answer_names
from attention_lab.variants import StudentSeed

__all__ = ["Collisions", "collision_rates", "collision_refusals", "varied_tests"]


@dataclass(frozen=True)
class Collisions:
    """How often one test cell accepts a classmate's right answer on another variant.

    Attributes
    ----------
    grade_id : str
        The test cell.
    pairs : int
        Ordered pairs of sample students tried (answers of the first, numbers of the second).
    collided : int
        Of those, the pairs where the test passed.
    example : tuple of (str, str), optional
        The first colliding pair: (whose answer, on whose numbers).
    """

    grade_id: str
    pairs: int
    collided: int
    example: tuple[str, str] | None

    @property
    def rate(self) -> float:
        """The share of pairs that collided (0 when none were tried)."""
        return self.collided / self.pairs if self.pairs else 0.0


def _nbgrader(cell: NotebookNode) -> dict[str, object]:
    meta = cell.metadata.get("nbgrader", {})
    return meta if isinstance(meta, dict) else {}


def varied_tests(nb: NotebookNode) -> tuple[dict[str, str], dict[str, str]]:
    """Return the read-only cells and the test cells reading a variant's numbers (id -> code)."""
    locked: dict[str, str] = {}
    tests: dict[str, str] = {}
    for cell in nb.cells:
        meta = _nbgrader(cell)
        if cell.cell_type != "code" or not meta.get("grade_id"):
            continue
        if meta.get("grade") and not meta.get("solution"):
            tests[str(meta["grade_id"])] = cell.source
        elif meta.get("locked"):
            locked[str(meta["grade_id"])] = cell.source
    drawn = locked_bindings(s for s in locked.values() if draws_variant(s))[1]
    varied = {gid: s for gid, s in tests.items() if drawn & set(answer_names(s))}
    return locked, varied


def _pair(k: int, n: int) -> tuple[int, int]:
    """Return the ``k``-th ordered pair of ``n`` samples: each next one first, then further."""
    a = k % n
    return a, (a + 1 + (k // n) % (n - 1)) % n


def collision_rates(
    nb: NotebookNode, samples: int, pairs: int, runs: list[SampleRun] | None = None
) -> list[Collisions]:
    """Return, per test cell reading a variant's numbers, how often a copy collides.

    Parameters
    ----------
    nb : NotebookNode
        The source notebook, solutions in.
    samples : int
        Sample students whose variants the solution is worked on (at least 2).
    pairs : int
        Ordered pairs of them tried per test cell.
    runs : list, optional
        :func:`~attention_grader.batch.variant_family.sample_runs`'s for ``samples``, when the
        caller has them already.

    Returns
    -------
    list of Collisions
        One per varied test cell, in the notebook's order; [] without variants.
    """
    locked, tests = varied_tests(nb)
    if not tests or samples < 2 or pairs < 1:
        return []
    runs = sample_runs(nb, samples) if runs is None else runs
    samples = len(runs)
    if samples < 2:
        return []
    pairs = min(pairs, samples * (samples - 1))  # each ordered pair once
    seeds = [run[0] for run in runs]
    scopes = [run[3] for run in runs]
    locked_scopes: dict[StudentSeed, dict[str, object] | None] = {}
    bound = locked_bindings(locked.values())[0]
    found = []
    for grade_id, test in tests.items():
        names = [n for n in answer_names(test) if n not in bound]
        tried = collided = 0
        example = None
        for k in range(pairs):
            a, b = _pair(k, samples)
            answers = {n: scopes[a][n] for n in names if n in scopes[a]}
            answers = {n: v for n, v in answers.items() if is_plain_data(v)}
            if not answers:
                continue
            tried += 1
            if not far_apart(answers, scopes[b]) and classmate_match(
                locked, test, answers, [seeds[b]], locked_scopes
            ):
                collided += 1
                example = example or (seeds[a].student, seeds[b].student)
        found.append(Collisions(grade_id, tried, collided, example))
    return found


def collision_refusals(
    nb: NotebookNode,
    samples: int,
    pairs: int,
    threshold: float,
    runs: list[SampleRun] | None = None,
) -> list[Refusal]:
    """Return a ``"collision"`` :class:`Refusal` for each varied test cell above ``threshold``.

    The way out (widen the generator, or raise the rate on purpose) is the kind's
    (:data:`~attention_grader.batch.refusals.KINDS`).
    """
    return [
        Refusal(
            c.grade_id,
            f"a classmate's right answer is right on another student's numbers too in "
            f"{c.collided} of {c.pairs} sampled pairs ({c.rate:.2%}, above "
            f"c.CheckSolution.variant_collision_rate = {threshold:.2%}), e.g. {c.example[0]}'s "
            f"answer on {c.example[1]}'s numbers",
            "collision",
        )
        for c in collision_rates(nb, samples, pairs, runs)
        if c.rate > threshold and c.example is not None
    ]
