"""Predict, then reveal: a lesson asks for a guess before it shows a measured number.

A prediction cell holds ``my_guess = None`` for the student to replace; the cell that shows the
measurement calls :func:`reveal`, which prints the measured number next to the guess and how
far apart they are. Like :func:`attention_lab.checks.selfcheck.self_check` it never raises, so "Run
All" with no guess made still runs to the end (the number is then simply shown).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["Reveal", "reveal"]


@dataclass(frozen=True)
class Reveal:
    """One guess against the measured number.

    Attributes
    ----------
    actual : float
    guess : float or None
        None when no (readable) guess was given.
    message : str
        The line printed for the student.
    """

    actual: float
    guess: float | None
    message: str

    @property
    def error(self) -> float | None:
        """``guess - actual``, or None without a guess."""
        return None if self.guess is None else self.guess - self.actual

    def _ipython_display_(self) -> None:
        """Show nothing: the printed line already says it all (and no empty ``Out[n]:`` prompt)."""


def _as_guess(guess: Any) -> float | None:
    if guess is None or isinstance(guess, bool):
        return None
    try:
        value = float(guess)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _percent_hint(value: float, actual: float, decimals: int) -> str:
    """Say what a guess of 80 for a share from 0 to 1 most likely meant: 80 %, as a share."""
    if 0.0 <= actual <= 1.0 and 1.0 < value <= 100.0:
        return f" Did you mean {value / 100:.{decimals}f}? ({value:g} % written as a share from 0 to 1)"
    return ""


def reveal(guess: Any, actual: float, what: str, decimals: int = 2) -> Reveal:
    """Print the measured ``actual`` beside the student's ``guess``.

    Parameters
    ----------
    guess : number or None
        The student's prediction (None or unreadable: no guess).
    actual : float
        The measured or computed number.
    what : str
        What was predicted, e.g. ``"fixed-memory recall at 60 words"``.
    decimals : int
        Decimals to print.

    Returns
    -------
    Reveal
    """
    actual = float(actual)
    value = _as_guess(guess)
    shown = f"{what}: measured {actual:.{decimals}f}."
    if value is None:
        if guess is None:
            note = " You made no prediction: next time write one down first, then compare."
        else:
            note = f" Your prediction {guess!r} is not a number, so there is nothing to compare."
        message = shown + note
    else:
        off = value - actual
        if abs(off) < 0.5 * 10.0**-decimals:
            verdict = "spot on."
        else:
            verdict = f"off by {abs(off):.{decimals}f} ({'too high' if off > 0 else 'too low'})."
        message = f"{shown} You predicted {value:.{decimals}f}: {verdict}" + _percent_hint(
            value, actual, decimals
        )
    print(message)
    return Reveal(actual, value, message)
