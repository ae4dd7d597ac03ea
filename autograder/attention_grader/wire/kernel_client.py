"""The grader's kernel client: no single kernel message over a size cap ever reaches memory."""

from __future__ import annotations

import asyncio
import time
from queue import Empty
from typing import Any

import zmq
from jupyter_client.asynchronous.client import AsyncKernelClient

__all__ = ["CappedKernelClient"]


class CappedKernelClient(AsyncKernelClient):
    """A kernel client whose sockets refuse any single message over ``max_message_bytes``.

    ZeroMQ drops the connection to a peer that sends a bigger message instead of allocating it,
    so a kernel printing 800 MB at once never reaches the grader's memory.
    """

    max_message_bytes = 16 * 2**20
    #: How long the start-up drain waits for one more IOPub message (jupyter_client: 0.2 s).
    drain_seconds = 0.02

    def _create_connected_socket(
        self, channel: str, identity: bytes | None = None
    ) -> zmq.Socket[Any]:
        url = self._make_url(channel)
        sock = self.context.socket(_SOCKET_TYPES[channel])
        sock.linger = 1000
        sock.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
        if identity:
            sock.identity = identity
        sock.connect(url)
        return sock

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        """Wait until the kernel answers ``kernel_info`` and its IOPub is connected; drain IOPub.

        jupyter_client's own wait, with one change: the start-up messages left on IOPub are
        drained until none comes for ``drain_seconds``, not 0.2 s, a wait every graded
        submission paid idle (what is left is the kernel's start-up status; nbclient ignores any
        message that answers another request, so a late one changes nothing).
        """
        from jupyter_client.manager import KernelManager

        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        if not isinstance(self.parent, KernelManager):  # no manager: wait for heartbeats first
            while not await self._async_is_alive():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Kernel didn't respond to heartbeats in {timeout} seconds")
                await asyncio.sleep(0.2)
        while not await self._kernel_info_answered():
            if not await self._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout} seconds")
        while True:
            try:
                await self.iopub_channel.get_msg(timeout=self.drain_seconds)
            except Empty:
                break

    async def _kernel_info_answered(self) -> bool:
        """Ask for ``kernel_info``; whether it was answered and IOPub is connected (1.2 s at most)."""
        self.kernel_info()
        try:
            msg = await self.shell_channel.get_msg(timeout=1)
        except Empty:
            return False
        if msg["msg_type"] != "kernel_info_reply":
            return False
        try:  # IOPub connected? (else ask again, as jupyter_client does)
            await self.iopub_channel.get_msg(timeout=0.2)
        except Empty:
            return False
        self._handle_kernel_info_reply(msg)
        return True


_SOCKET_TYPES = {
    "hb": zmq.REQ,
    "shell": zmq.DEALER,
    "iopub": zmq.SUB,
    "stdin": zmq.DEALER,
    "control": zmq.DEALER,
}
