"""Progress of a grading run, naming whom it is waiting for.

On a terminal: a tqdm bar whose text names the students being graded and for how long
("grading dana (31 s)"). When the output is a file or a pipe (CI, ``make grade | tee``): one
plain line per finished submission, and a "still grading" line when a submission has taken
long, so a log shows where a run spent its time.
"""

from __future__ import annotations

import sys
from time import monotonic
from typing import TextIO

from attention_grader.common.safe_text import printable

__all__ = ["Progress"]

#: Seconds between "still grading ..." lines in plain mode.
STILL_EVERY = 20.0


class Progress:
    """Reports a batch of ``total`` submissions.

    Parameters
    ----------
    total : int
    enabled : bool
        False: say nothing (``--no-progress``).
    stream : file, optional
        Where to write (default ``sys.stderr``).
    """

    def __init__(self, total: int, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.total, self.done = total, 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.running: dict[str, float] = {}
        self._last_note = monotonic()
        self.bar = None
        isatty = getattr(self.stream, "isatty", lambda: False)
        if enabled and isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="submission", file=self.stream, dynamic_ncols=True)

    def _waiting_for(self) -> str:
        now = monotonic()
        names = sorted(self.running, key=self.running.__getitem__)
        shown = [f"{printable(s)} ({now - self.running[s]:.0f} s)" for s in names[:3]]
        more = f" +{len(names) - 3}" if len(names) > 3 else ""
        return ", ".join(shown) + more

    def start(self, student: str) -> None:
        """``student``'s submission is being graded now."""
        self.running[student] = monotonic()
        if self.bar is not None:
            self.bar.set_postfix_str(f"grading {self._waiting_for()}", refresh=True)

    def finish(self, student: str, status: str, seconds: float) -> None:
        """``student``'s submission is done (``status`` as in the batch summary)."""
        self.running.pop(student, None)
        self.done += 1
        if self.bar is not None:
            self.bar.update()
            text = f"grading {self._waiting_for()}" if self.running else ""
            self.bar.set_postfix_str(text, refresh=True)
        elif self.enabled:
            line = f"[{self.done}/{self.total}] {printable(student)}: {status} ({seconds:.1f} s)"
            print(line, file=self.stream, flush=True)
            self._last_note = monotonic()

    def tick(self) -> None:
        """Refresh the names and times while waiting, or note a long wait."""
        if not self.running:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(f"grading {self._waiting_for()}", refresh=True)
        elif self.enabled and monotonic() - self._last_note >= STILL_EVERY:
            print(f"  still grading {self._waiting_for()}", file=self.stream, flush=True)
            self._last_note = monotonic()

    def reset_running(self) -> None:
        """Forget who was running (a crashed pool is restarted for the rest)."""
        self.running.clear()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
