"""The release check of a variant family: the solution and the diagnosis hold on every variant.

A notebook whose read-only cells draw each student's numbers (:mod:`attention_lab.variants`) is
checked on :data:`SAMPLES` sample students before release, in the grader's process (the
teacher's own code: solutions, read-only cells and tests, hidden lines included, in order):

* the solution must pass every test on every sample (else: "loses points on variant i");
* no two misconceptions may give the same wrong answer on a sample (the feedback could not
  tell them apart), and no scores or weights the solution computes may tie (a tie makes the
  hard-attention answer ambiguous; all weights equal is the extreme case): the hand checks
  record what they compared (:func:`attention_lab.checks._base.audited`);
* no misconception's wrong answer may pass for the right one on a sample (the check would
  give that mistake the points): refused naming the cell, the misconception and a sample.

Each refusal carries its kind (:mod:`attention_grader.batch.refusals`).

The samples' seeds come from a fixed sample key, never the course key: the check says nothing
about any real student's numbers.
"""

from __future__ import annotations

from nbformat import NotebookNode

from attention_grader.batch.refusals import Refusal
from attention_grader.checking.variant_grading import draws_variant
from attention_grader.checking.variant_runs import Checked, code_cells, run_as
from attention_lab.checks._base import diagnosis_problems
from attention_lab.variants import StudentSeed

__all__ = [
    "SAMPLES",
    "Checked",
    "SampleRun",
    "code_cells",
    "family_refusals",
    "run_as",
    "sample_runs",
    "sample_seed",
]

#: Sample students per notebook (about 200 as issue 41 asks; each costs a few milliseconds).
SAMPLES = 200
_SAMPLE_KEY = b"attention-lab/release-check-samples"


def sample_seed(i: int) -> StudentSeed:
    """Return the ``i``-th sample student's seed (the sample key's, never a real student's)."""
    return StudentSeed.from_key(_SAMPLE_KEY, f"sample-{i}")


#: One sample student's run: her seed, the failure (or None), the records, the namespace.
SampleRun = tuple[StudentSeed, str | None, list[Checked], dict[str, object]]


def sample_runs(nb: NotebookNode, samples: int = SAMPLES) -> list[SampleRun]:
    """Run the notebook as each of ``samples`` sample students; [] without variants."""
    cells = code_cells(nb)
    locked = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("locked")]
    if not any(c.cell_type == "code" and draws_variant(c.source) for c in locked):
        return []
    return [(seed, *run_as(cells, seed)) for seed in map(sample_seed, range(samples))]


def family_refusals(
    nb: NotebookNode, samples: int = SAMPLES, runs: list[SampleRun] | None = None
) -> list[Refusal]:
    """Return a :class:`Refusal` for each way the notebook's variants fail; [] without variants.

    At most one per distinct cause (with the first sample that shows it). ``runs``:
    :func:`sample_runs`'s, when the caller has them already.
    """
    runs = sample_runs(nb, samples) if runs is None else runs
    causes: dict[tuple[str, str], str] = {}  # (kind, why) -> the first sample showing it
    accepted: dict[tuple[str, str, str], list[str]] = {}  # (cell, answer, id) -> samples
    for seed, failure, records, _ in runs:
        where = f"variant {seed.student}"
        if failure:
            causes.setdefault(("variant_points", f"the solution loses points: {failure}"), where)
        for cell, record in records:
            for problem in diagnosis_problems(record):
                if problem.kind == "accepted" and problem.misconception is not None:
                    students = accepted.setdefault((cell, record.name, problem.misconception), [])
                    if seed.student not in students:
                        students.append(seed.student)
                else:
                    causes.setdefault((problem.kind, problem.text), where)
    found = [Refusal(where, why, kind) for (kind, why), where in causes.items()]
    found += [
        Refusal(
            cell,
            f"{name}: the wrong answer of [{slug}] passes for the right one on "
            f"{len(students)} of {len(runs)} sample variants, e.g. variant {students[0]}",
            "accepted",
        )
        for (cell, name, slug), students in accepted.items()
    ]
    return found
