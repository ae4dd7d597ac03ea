"""What the last run of each cell set, and whether it raised: what a self-check may judge.

A lesson's self-check reads a variable (``c``) that its exercise cell sets. When that cell
raises (``c = a * H`` cannot broadcast), ``c`` keeps the value of an earlier run, and a check
of it would describe an answer the student no longer has. :data:`CELL_RUNS` listens to
IPython's ``post_run_cell`` event (registered once, when :mod:`attention_lab.checks.selfcheck` is
imported in a kernel) and keeps, per name, how the last cell run that assigns it ended.
Outside IPython it records nothing and every check judges the value it is given.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.interactiveshell import ExecutionResult, InteractiveShell

__all__ = ["CELL_RUNS", "CellRuns", "assigned_names"]


def assigned_names(source: str) -> frozenset[str]:
    """Return the names a cell assigns at any depth (``c = ...``, ``a, c = ...``, ``c += ...``).

    A cell that does not parse assigns what ``name =`` lines say it would: it ran nothing, so
    those names keep their old values.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return frozenset(re.findall(r"^\s*([A-Za-z_]\w*)\s*(?:[-+*/@]?=)(?!=)", source, re.M))
    return frozenset(
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    )


@dataclass
class CellRuns:
    """Per variable name: the error the last cell run assigning it stopped with, or None."""

    errors: dict[str, str | None] = field(default_factory=dict)
    _registered_with: set[int] = field(default_factory=set)

    def record(self, result: ExecutionResult) -> None:
        """IPython ``post_run_cell`` callback: ``result`` is an ``ExecutionResult``."""
        info = getattr(result, "info", None)
        if info is None or info.silent:
            return
        error = result.error_before_exec or result.error_in_exec
        said = None if error is None else _describe(error)
        for name in assigned_names(info.raw_cell or ""):
            self.errors[name] = said

    def failed_last_run(self, name: str) -> str | None:
        """``"ValueError: ..."`` when the last run of a cell that sets ``name`` raised."""
        return self.errors.get(name)

    def listen(self, shell: InteractiveShell | None) -> None:
        """Register :meth:`record` with an IPython shell's events, once per shell."""
        if shell is None or id(shell) in self._registered_with:
            return
        shell.events.register("post_run_cell", self.record)
        self._registered_with.add(id(shell))


def _describe(error: BaseException) -> str:
    first = str(error).strip().splitlines()[0][:120] if str(error).strip() else ""
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def _current_shell() -> InteractiveShell | None:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell: InteractiveShell | None = get_ipython()
    return shell


#: The one record of this kernel's cell runs.
CELL_RUNS = CellRuns()
CELL_RUNS.listen(_current_shell())
