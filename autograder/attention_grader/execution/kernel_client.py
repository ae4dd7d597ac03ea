"""The grader's kernel client: no single kernel message over a size cap ever reaches memory."""

from __future__ import annotations

from typing import Any

import zmq
from jupyter_client.asynchronous import AsyncKernelClient

__all__ = ["CappedKernelClient"]


class CappedKernelClient(AsyncKernelClient):
    """A kernel client whose sockets refuse any single message over ``max_message_bytes``.

    ZeroMQ drops the connection to a peer that sends a bigger message instead of allocating it,
    so a kernel printing 800 MB at once never reaches the grader's memory.
    """

    max_message_bytes = 16 * 2**20

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


_SOCKET_TYPES = {
    "hb": zmq.REQ,
    "shell": zmq.DEALER,
    "iopub": zmq.SUB,
    "stdin": zmq.DEALER,
    "control": zmq.DEALER,
}
