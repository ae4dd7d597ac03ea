"""Benchmarks for `make bench`.

Every ``benchmarks/bench_*.py`` module exposes ``rows()``, returning a list of :class:`Row`.
Each row is measured side by side with its baseline in the same run, so the ratio is honest
on whatever machine runs it. ``python -m benchmarks [name ...]`` runs all (or the named) modules
and prints one table.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Row:
    """One line of the benchmark table.

    Attributes
    ----------
    area : str
        Which part of the course is measured (``"explorer"``, ``"lessons"``, ``"grading"``...).
    case : str
        What exactly was measured, e.g. ``"slider -> redraw, ISRO 3 tokens"``.
    value : str
        The measured figure, formatted with units (``"11.2 ms median, 14.0 ms p90"``).
    baseline : str
        What it is compared with, formatted likewise ("" when there is none).
    ratio : str
        baseline / value or value / floor, formatted (``"5.1x faster"``); "" when none.
    target : str
        The target from the issue (``"<= 25 ms, >= 4x"``).
    ok : bool or None
        Whether the target is met (None when there is no target).
    """

    area: str
    case: str
    value: str
    baseline: str = ""
    ratio: str = ""
    target: str = ""
    ok: bool | None = None


def timings_ms(fn: Callable[[], object], repeat: int = 20, warmup: int = 2) -> list[float]:
    """Call ``fn`` ``warmup`` times unmeasured, then ``repeat`` times; return wall times in ms."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def median_p90(samples: list[float]) -> tuple[float, float]:
    """Median and 90th percentile of ``samples``."""
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return statistics.median(ordered), p90


def format_ms(median: float, p90: float, digits: int = 1) -> str:
    """``"11.2 ms median, 14.0 ms p90"`` with ``digits`` decimals."""
    return f"{median:.{digits}f} ms median, {p90:.{digits}f} ms p90"
