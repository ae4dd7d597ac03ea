"""What this machine's kernel lets the hub do, found out once per hub process and said once.

The spawner's protections that need the kernel (private mounts, per-user filesystems, the port
fence) each have a :class:`Probe`: its check runs at the first spawn that needs it (in a
throw-away child or a quick syscall), and when the kernel refuses, the hub log says so once and
servers run without that protection. Standard library only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Probe"]


@dataclass
class Probe:
    """A check of the kernel, run once; ``warning`` (``%s``: why not) is logged once."""

    check: Callable[[], str]  # empty when the kernel allows it, else why not
    warning: str
    found: str | None = field(default=None, init=False)  # None: not checked yet
    said: bool = field(default=False, init=False)

    def problem(self, log: logging.Logger) -> str:
        """Return why the kernel refuses (empty: it allows), checking and saying it once."""
        if self.found is None:
            self.found = self.check()
        if self.found:
            self.say(self.found, log)
        return self.found

    def say(self, why: str, log: logging.Logger) -> None:
        """Log the warning with ``why``, once per hub process."""
        if not self.said:
            self.said = True
            log.warning(self.warning, why)
