"""The output caps of one graded notebook: bytes counted while they stream, cells cut.

:class:`~attention_grader.executor.execute.GradingExecute` asks an :class:`OutputMeter` about
every output message the kernel sends: it counts the message's size against the cell's and the
notebook's cap (:class:`OutputCaps`) and says whether to keep it. The first message past a cap
cuts the cell (the executor then interrupts the kernel and writes :data:`CAP_MARKER`); the meter
remembers which cells were cut or lost output, and names them in the notebook's flags.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from jupyter_core.utils import run_sync
from nbformat import NotebookNode

from attention_grader.common.flags import OUTPUT_TRUNCATED, Flag
from attention_grader.executor.execution_stops import cell_label

__all__ = ["CAP_MARKER", "OutputCaps", "OutputMeter", "content_size", "reconnect_output"]

#: Written where the grader stopped storing a cell's output.
CAP_MARKER = "... output stopped by the grader: this cell printed too much ..."


@dataclass(frozen=True)
class OutputCaps:
    """How much output the grader stores.

    Parameters
    ----------
    cell_bytes : int
        Bytes one cell may print before the grader stops storing its output.
    notebook_bytes : int
        Bytes the whole notebook may print (the grader's own requests aside).
    """

    cell_bytes: int
    notebook_bytes: int


@dataclass
class OutputMeter:
    """The bytes one notebook printed so far, against its :class:`OutputCaps`.

    Parameters
    ----------
    caps : OutputCaps
        The caps that apply.

    Attributes
    ----------
    truncated : list of int
        Indices of the cells whose output was cut (a cell may appear more than once).
    lost : list of int
        Indices of the cells whose output was lost with a refused oversized message.
    requesting : bool
        True while the grader's own request runs: only the per-cell cap applies to it (its
        outputs are thrown away after reading, so a notebook that printed a lot still has its
        answers read).
    """

    caps: OutputCaps
    truncated: list[int] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)
    requesting: bool = False
    _notebook_bytes: int = 0
    _cell_bytes: int = 0
    _cut: bool = False

    def fresh_cell(self) -> None:
        """Start counting a new cell (or a new request) from zero."""
        self._cell_bytes, self._cut = 0, False

    def keeps(self, content: dict[str, Any]) -> bool:
        """Count one output message's ``content``; tell whether it is still within the caps."""
        size = content_size(content)
        self._cell_bytes += size
        if not self.requesting:
            self._notebook_bytes += size
        return self._cell_bytes <= self.caps.cell_bytes and (
            self.requesting or self._notebook_bytes <= self.caps.notebook_bytes
        )

    def cut(self, index: int) -> bool:
        """Record that cell ``index`` went over a cap; tell whether this is its first time."""
        if self._cut:
            return False
        self._cut = True
        self.truncated.append(index)
        return True

    def flags(self, nb: NotebookNode, name: str) -> list[Flag]:
        """One ``output_truncated`` flag per cell of ``nb`` (named ``name``) cut or lost."""
        flags = []
        for index in sorted(set(self.truncated)):
            where = cell_label(nb.cells[index], index) if index < len(nb.cells) else "?"
            flags.append(Flag(OUTPUT_TRUNCATED, f"{name}/{where} printed too much output"))
        for index in sorted(set(self.lost)):
            where = cell_label(nb.cells[index], index)
            flags.append(Flag(OUTPUT_TRUNCATED, f"{name}/{where}: output lost (too large)"))
        return flags


def content_size(content: dict[str, Any]) -> int:
    """About how many bytes one output message holds (its text and its data values)."""
    size = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        size += len(value) if isinstance(value, str) else len(json.dumps(value, default=str))
    return size + sum(len(str(line)) for line in content.get("traceback", []) or [])


def reconnect_output(kc: Any) -> None:
    """Reconnect a kernel client's IOPub: ZeroMQ does not reconnect after refusing a message.

    Used when a message over the size cap was refused (the connection is dropped) or the
    kernel's own output machinery was broken: the kernel still answers on its other channels.
    """
    if kc is None or kc._iopub_channel is None:
        return
    kc.iopub_channel.close()
    kc._iopub_channel = None
    kc.iopub_channel.start()
    # A new subscriber misses what is published before its subscription reaches the kernel.
    run_sync(asyncio.sleep)(0.2)
