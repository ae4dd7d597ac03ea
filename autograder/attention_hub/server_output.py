"""Each server's stdout and stderr: a pipe of its own that the hub reads, never the hub's log.

``LocalProcessSpawner`` lets a server inherit the hub's own stdout and stderr, and every kernel
inherits them from its server: a student appended 64 MB to the hub's log outside her disk cap,
truncated it, and wrote a forged hub line naming the teacher. Here the server writes to a pipe;
a thread of the hub reads it and logs each line as the server's (``server <user>: '...'``,
quoted, so no line can pass for the hub's own), up to a budget per start; past the budget the
output is read and dropped, so that the server never blocks on a full pipe.
"""

from __future__ import annotations

import logging
import threading
from typing import IO

__all__ = ["LINE_CHARS", "follow"]

LINE_CHARS = 2000  # longer lines are cut (a line is one log record)


def follow(stream: IO[bytes], log: logging.Logger, user: str, budget: int) -> threading.Thread:
    """Log ``stream``'s lines as ``user``'s server's, ``budget`` bytes at most; return the thread.

    The thread ends when every process holding the pipe's other end has closed it.
    """

    def run() -> None:
        logged = 0
        with stream:
            for raw in iter(lambda: stream.readline(4 * LINE_CHARS), b""):
                if logged >= budget:
                    continue  # read and dropped: the server never blocks on a full pipe
                logged += len(raw)
                text = raw.decode("utf-8", "replace").rstrip("\n")[:LINE_CHARS]
                log.info("server %s: %r", user, text)
                if logged >= budget:
                    log.warning(
                        "server %s: more than %d bytes of output since its start: the rest "
                        "is dropped until its next start",
                        user, budget,
                    )  # fmt: skip

    thread = threading.Thread(target=run, name=f"output-{user}", daemon=True)
    thread.start()
    return thread
