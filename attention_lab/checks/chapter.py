"""Chapter checks: a computed number shown beside the value the chapter prints.

:func:`check` / :class:`ChapterCheck` show ``"computed 0.248 | chapter 0.248 ✓ agrees"``, and
:func:`checks` / :class:`ChapterTable` a table of them with a one-line summary, so every lesson
checks the book as it goes. The lessons reach them as ``demos.check`` and ``demos.checks``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from attention_lab._format import format_value

__all__ = ["ChapterCheck", "ChapterTable", "check", "checks"]


@dataclass(frozen=True)
class ChapterCheck:
    """One number (or vector) computed by the package, beside the value the chapter prints.

    Attributes
    ----------
    label : str
        What the number is, e.g. ``"weight of ISRO"``.
    computed : float or ndarray
    chapter : float or ndarray
        The value as printed in the chapter (already rounded).
    decimals : int
        Decimals the chapter prints; ``computed`` is shown rounded to the same.
    tolerance : float
        Largest difference still counted as agreeing. Defaults to half a unit in the last
        printed decimal (the computed number rounds to the chapter's). Pass a larger one, and
        say why, where the chapter adds up already-rounded numbers (its total 32.911).
    """

    label: str
    computed: object
    chapter: object
    decimals: int = 3
    tolerance: float | None = None

    @property
    def agrees(self) -> bool:
        """True when every entry is within ``tolerance`` of the chapter's value."""
        tol = 0.5 * 10.0**-self.decimals if self.tolerance is None else self.tolerance
        got = np.asarray(self.computed, dtype=float)
        want = np.asarray(self.chapter, dtype=float)
        # The small slack absorbs binary floating point (0.083 * 5 = 0.41500000000000004).
        return got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol + 1e-9))

    @property
    def verdict(self) -> str:
        """The verdict, "✓ agrees" or "✗ DIFFERS"; notes a half-way value rounded the other way."""
        if not self.agrees:
            return "✗ DIFFERS"
        got = np.round(np.asarray(self.computed, dtype=float), self.decimals)
        if np.array_equal(got, np.round(np.asarray(self.chapter, dtype=float), self.decimals)):
            return "✓ agrees"
        # e.g. 0.083 x 5 = 0.415: a student sees 0.42 beside the book's 0.41 and deserves to know why
        return "✓ agrees (a value exactly half-way, which the chapter rounded the other way)"

    def __str__(self) -> str:
        """Return one line: the label, both values as the chapter rounds them, and the verdict."""
        return (
            f"{self.label}: computed {format_value(self.computed, self.decimals)} | "
            f"chapter {format_value(self.chapter, self.decimals)} {self.verdict}"
        )

    def __repr__(self) -> str:
        """Return the one-line form, as :meth:`__str__`."""
        return str(self)


def check(
    label: str,
    computed: ArrayLike,
    chapter: ArrayLike,
    decimals: int = 3,
    tolerance: float | None = None,
) -> ChapterCheck:
    """Compare a computed number with the chapter's printed value.

    Parameters
    ----------
    label : str
    computed : float or array_like
    chapter : float or array_like
        Same shape as ``computed``.
    decimals : int
        How many decimals the chapter prints.
    tolerance : float, optional
        Defaults to half a unit in the last decimal (``computed`` rounds to ``chapter``).

    Returns
    -------
    ChapterCheck
        Shows as ``"label: computed 0.248 | chapter 0.248 ✓ agrees"``.
    """
    if not isinstance(label, str) or not label:
        raise TypeError("label must be a non-empty string naming the number, e.g. 'weight of ISRO'")
    got = np.asarray(computed, dtype=float)
    want = np.asarray(chapter, dtype=float)
    if got.shape != want.shape:
        raise ValueError(
            f"{label}: computed has shape {got.shape} but the chapter value has shape "
            f"{want.shape}; compare like with like"
        )
    return ChapterCheck(label, computed, chapter, decimals, tolerance)


class ChapterTable(list[ChapterCheck]):
    """A list of :class:`ChapterCheck` that displays as a table (text and HTML)."""

    @property
    def all_agree(self) -> bool:
        """True when every row agrees with the chapter."""
        return all(c.agrees for c in self)

    def _summary(self) -> str:
        bad = sum(not c.agrees for c in self)
        if bad:
            return f"{bad} of {len(self)} numbers differ from the chapter"
        return f"all {len(self)} numbers agree with the chapter"

    def __repr__(self) -> str:
        """Return every check on its own line, then the summary."""
        return "\n".join([*(str(c) for c in self), self._summary()])

    def _repr_html_(self) -> str:
        rows = "".join(
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>".format(
                html.escape(c.label),
                format_value(c.computed, c.decimals),
                format_value(c.chapter, c.decimals),
                html.escape(c.verdict) if c.agrees else "✗ <strong>differs</strong>",
            )
            for c in self
        )
        return (
            "<table><caption>Computed by attention_lab vs printed in the chapter</caption>"
            "<thead><tr><th>quantity</th><th>computed</th><th>chapter</th><th>verdict</th></tr>"
            f"</thead><tbody>{rows}</tbody></table><p>{html.escape(self._summary())}</p>"
        )


def checks(*rows: ChapterCheck | tuple[Any, ...]) -> ChapterTable:  # a tuple: check()'s arguments
    """Build a :class:`ChapterTable` from ``(label, computed, chapter[, decimals[, tolerance]])``.

    Returns
    -------
    ChapterTable
        Displays every row and a one-line summary ("all 6 numbers agree with the chapter").
    """
    table = ChapterTable()
    for row in rows:
        if isinstance(row, ChapterCheck):
            table.append(row)
        elif isinstance(row, tuple) and len(row) in (3, 4, 5):
            table.append(check(*row))
        else:
            raise TypeError(
                "each row must be a ChapterCheck or a tuple (label, computed, chapter[, decimals[, "
                "tolerance]])"
            )
    return table
