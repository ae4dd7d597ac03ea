"""A stable split of a class into shards: ``grade A --shard I/N``.

N grading processes (the pods of a Kubernetes Indexed Job, ``docs/kubernetes.md``) each grade a
share.

The split is round-robin over the sorted student ids: student number ``k`` (in sorted order) goes
to shard ``k % N``. Every process that sees the same collected class computes the same split, so
no student is graded twice or missed, and the shards differ in size by at most one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Shard", "parse_shard"]

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (``index`` from 0, as Kubernetes' ``JOB_COMPLETION_INDEX``).

    Attributes
    ----------
    index : int
        Which shard, ``0 <= index < count``.
    count : int
        How many shards the class is split into (the Job's ``completions``).
    """

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1 or not 0 <= self.index < self.count:
            raise ValueError(
                f"shard {self.index}/{self.count} does not exist: write I/N with "
                "0 <= I < N, e.g. --shard 0/4 for the first of four"
            )

    def pick(self, students: Iterable[str]) -> list[str]:
        """Return this shard's students: the sorted ids at positions ``index, index + count, ...``.

        Parameters
        ----------
        students : iterable of str
            The whole class (any order; duplicates count once).

        Returns
        -------
        list of str
            Sorted; ``len`` is ``ceil`` or ``floor`` of ``len(students) / count``.
        """
        return sorted(set(students))[self.index :: self.count]

    def label(self) -> str:
        """Return a folder-friendly name, e.g. ``shard-1-of-4``."""
        return f"shard-{self.index}-of-{self.count}"


def parse_shard(text: str) -> Shard:
    """``"I/N"`` -> :class:`Shard` (the ``--shard`` option); a clear error for anything else."""
    match = _SHARD.match(text or "")
    if not match:
        raise ValueError(
            f"--shard takes I/N (this process's index from 0, then the number of shards), "
            f'e.g. --shard 0/4 or --shard "$JOB_COMPLETION_INDEX/4"; got {text!r}'
        )
    return Shard(int(match[1]), int(match[2]))
