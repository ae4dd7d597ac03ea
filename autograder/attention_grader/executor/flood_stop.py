"""Stopping a flood at its source: the kernel interrupted once, and the reply that may cost.

When a cell's output goes over a cap (:mod:`~attention_grader.executor.output_caps`), the
executor interrupts the kernel so an endless loop of prints stops long before the cell's time
limit. A finite flood may have ended before the grader, reading behind it, cuts it: the
interrupt then lands while ipykernel flushes the cell's output and sends its reply, and
ipykernel drops the reply (it catches the ``KeyboardInterrupt`` around its handler). The kernel
still goes idle and serves the next cell, so :class:`FloodStop` lets the executor see that and
go on, instead of waiting out the cell's time limit and flagging a timeout it did not have.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from dataclasses import dataclass, field
from queue import Empty
from time import monotonic
from typing import Any

__all__ = ["LOST_REPLY_GRACE", "FloodStop", "lost_reply"]

#: Seconds to wait for a reply after the kernel went idle: ipykernel sends the reply before
#: it says idle, so a reply still missing after this was dropped.
LOST_REPLY_GRACE = 5.0


def lost_reply(msg_id: str) -> dict[str, Any]:
    """Make the execute reply that stands for one the interrupt made the kernel drop.

    An error, as the interrupted cell's reply would have been, so a test cell run in the
    kernel (the teacher's mark) fails rather than passes on an output that was cut.
    """
    why = "the grader interrupted the cell: it printed too much"
    content = {
        "status": "error",
        "ename": "KeyboardInterrupt",
        "evalue": why,
        "traceback": [f"KeyboardInterrupt: {why}"],  # what feedback shows the student
    }
    return {"content": content, "parent_header": {"msg_id": msg_id}, "metadata": {}}


@dataclass
class FloodStop:
    """The interrupt the grader sent for one cell (at most one), and its reply.

    Parameters
    ----------
    settle_timeout : float
        Seconds to wait for the kernel to confirm the interrupt before the next cell.
    log : logging.Logger or None
        Where a failed interrupt is reported.
    """

    settle_timeout: float
    log: logging.Logger | None = None
    _task: asyncio.Future[None] | None = field(default=None, repr=False)

    @property
    def sent(self) -> bool:
        """True once this cell's kernel was interrupted."""
        return self._task is not None

    def interrupt(self, kc: Any) -> None:
        """Interrupt the kernel behind ``kc`` (a kernel client) once; later calls do nothing."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._interrupt(kc))

    async def _interrupt(self, kc: Any) -> None:
        # Through the client's control channel, whose reply says the kernel has signalled
        # itself: after it, no interrupt can still reach the next cell or the grader's request.
        try:
            request = kc.session.msg("interrupt_request", content={})
            kc.control_channel.send(request)
            deadline = monotonic() + self.settle_timeout
            while (left := deadline - monotonic()) > 0:
                reply = await kc.control_channel.get_msg(timeout=left)
                if reply["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                    return
        except Empty:
            self._warn("the kernel did not confirm the interrupt")
        except Exception as exc:  # noqa: BLE001 -- a dead kernel is handled by nbclient's poller
            self._warn(f"could not interrupt a flooding kernel: {exc}")

    def _warn(self, message: str) -> None:
        if self.log is not None:
            self.log.warning(message)

    async def reply(
        self,
        poll: Awaitable[dict[str, Any]],
        output: asyncio.Future[Any],
        alive: asyncio.Future[Any],
        msg_id: str,
    ) -> dict[str, Any]:
        """Return the cell's reply from nbclient's ``poll``, or a stand-in if it was dropped.

        Parameters
        ----------
        poll : awaitable of dict
            nbclient's wait for the reply (it ends at the cell's time limit).
        output : asyncio.Future
            nbclient's reading of the cell's output; it ends when the kernel goes idle.
        alive : asyncio.Future
            nbclient's watch on the kernel during the cell (stopped with a stand-in reply).
        msg_id : str
            The execute request's id.
        """
        waiting = asyncio.ensure_future(poll)
        try:
            await asyncio.wait({waiting, output}, return_when=asyncio.FIRST_COMPLETED)
            if not waiting.done() and self.sent:  # idle, no reply, after an interrupt
                done, _ = await asyncio.wait({waiting}, timeout=LOST_REPLY_GRACE)
                if not done:
                    self._warn("the interrupted kernel dropped its reply; grading goes on")
                    alive.cancel()
                    await self._settled()
                    return lost_reply(msg_id)
            result = await waiting
            await self._settled()
            return result
        finally:
            waiting.cancel()  # nbclient's task is cancelled when the kernel dies: so is its wait

    async def _settled(self) -> None:
        if self._task is not None:
            await asyncio.wait({self._task})
