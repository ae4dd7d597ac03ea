"""Grading against classmates' numbers: what one submission costs, by class size.

A right answer on a varied question is tried on every classmate's numbers (``shared_answer``;
a wrong one likewise for ``other_variant``). Measured on the course's varied notebooks with a
class of 30, 100 and 300 students, for a submission whose every varied test passed (the
costliest case: every test tried): one by one (each classmate's read-only cells rebuilt per
submission, every test run on every classmate) against a grading worker's table
(:mod:`attention_grader.checking.classmate_table`: each classmate worked once per worker, a test
run only where her right answers are near). The table's build, once per worker and notebook,
is its own row. Wall times, single-threaded, in the benchmark's process (no kernel: this is the
grader's side alone).

``ATTENTION_BENCH_CLASSES`` (e.g. ``"30,100"``) picks the class sizes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
from attention_grader.batch.variant_collisions import varied_tests
from attention_grader.checking.classmate_table import build_table
from attention_grader.checking.locked_names import is_plain_data, locked_bindings
from attention_grader.checking.variant_grading import classmate_match
from attention_grader.checking.variant_runs import code_cells, run_as
from attention_grader.wire.cell_code import answer_names

from attention_lab.variants import PRACTICE, StudentSeed
from benchmarks import Row

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ("focus_in_the_noise", "heads_and_positions")
KEY = b"attention-lab/bench-classmates-key"
SUBMISSIONS = 3  # students graded per class size and way (the median is reported)


def _sizes() -> list[int]:
    text = os.environ.get("ATTENTION_BENCH_CLASSES", "30,100,300")
    return [int(n) for n in text.split(",") if n.strip()]


def _grade(locked, tests, bound, answers_of, me, others, table) -> float:
    """Seconds to try one submission's answers on every classmate (each varied test)."""
    start = time.perf_counter()
    scopes = {} if table is None else dict(table.scopes)
    right = None if table is None else table.right
    for test in tests.values():
        names = [n for n in answer_names(test) if n not in bound]
        answers = {n: answers_of[n] for n in names if n in answers_of}
        answers = {n: v for n, v in answers.items() if is_plain_data(v)}
        classmate_match(locked, test, answers, others, scopes, right)
    return time.perf_counter() - start


def _rows_for(name: str, size: int) -> list[Row]:
    nb = nbformat.read(ROOT / "source" / name / f"{name}.ipynb", as_version=4)
    locked, tests = varied_tests(nb)
    bound = locked_bindings(locked.values())[0]
    seeds = [PRACTICE, *(StudentSeed.from_key(KEY, f"student-{i:03d}") for i in range(size))]
    names = {n for t in tests.values() for n in answer_names(t)}
    start = time.perf_counter()
    table = build_table(locked, nb, seeds, names, [])
    built = time.perf_counter() - start
    naive, cached = [], []
    for me in seeds[1 : 1 + SUBMISSIONS]:
        answers = run_as(code_cells(nb), me)[2]  # her right answers: every varied test passes
        others = [s for s in seeds if s != me]
        naive.append(_grade(locked, tests, bound, answers, me, others, None))
        cached.append(_grade(locked, tests, bound, answers, me, others, table))
    one, two = sorted(naive)[len(naive) // 2], sorted(cached)[len(cached) // 2]
    case = f"{name}, class of {size}, {len(tests)} varied tests"
    return [
        Row(
            "grading",
            f"classmates tried, one submission: {case}",
            f"{two * 1e3:.1f} ms (worker's table)",
            f"{one * 1e3:.0f} ms (one by one)",
            f"{one / two:.0f}x faster" if two else "",
        ),
        Row(
            "grading",
            f"classmates' table, once per worker: {case}",
            f"{built:.2f} s ({built / size * 1e3:.1f} ms a classmate)",
        ),
    ]


def rows() -> list[Row]:
    """Measure each varied notebook at each class size."""
    return [row for size in _sizes() for name in NOTEBOOKS for row in _rows_for(name, size)]
