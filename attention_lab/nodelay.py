"""A Jupyter server extension: kernel messages reach the browser without a delayed-ACK stall.

Why: without it, a slider step's new picture can wait in the server for the browser's delayed
acknowledgement (tens of milliseconds; docs/design.md's benchmarks have the measurement),
however fast the kernel drew it. That is Nagle's algorithm on the
server's kernel websocket meeting the browser's delayed ACK: the server writes a step's
messages (the slider's echo, the readout, the picture) as several small TCP segments, Nagle
holds back each one until the previous is acknowledged, and the browser acknowledges only
after its delayed-ACK timer. Tornado leaves Nagle on unless the handler calls
``set_nodelay(True)`` (its documentation warns of exactly these delays) and jupyter_server
does not call it.

This extension wraps the server's kernel websocket connection class so that every kernel
websocket is opened with ``TCP_NODELAY``. Load it with ``jpserver_extensions``
``{"attention_lab.nodelay": true}`` (``make setup`` installs
``jupyter-settings/jupyter_server_config.d/attention_lab.json``). It changes nothing but the
socket option: the messages and their order are the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jupyter_server.serverapp import ServerApp
    from jupyter_server.services.kernels.connection.base import BaseKernelWebsocketConnection

__all__ = ["no_delay_connection_class"]

_SETTING = "kernel_websocket_connection_class"


def no_delay_connection_class(
    base: type[BaseKernelWebsocketConnection],
) -> type[BaseKernelWebsocketConnection]:
    """Return a subclass of the kernel websocket connection class ``base`` that turns Nagle off.

    Parameters
    ----------
    base : type
        jupyter_server's ``BaseKernelWebsocketConnection`` subclass in use (by default
        ``ZMQChannelsWebsocketConnection``).
    """
    if getattr(base, "_attention_lab_nodelay", False):
        return base

    class NoDelayConnection(base):  # type: ignore[misc,valid-type]  # the server's class, known at run time
        _attention_lab_nodelay = True

        def connect(self) -> object:
            # The websocket is open here (tornado calls open() after the handshake), so
            # its TCP stream exists: small messages now leave at once.
            self.websocket_handler.set_nodelay(True)
            return super().connect()

    NoDelayConnection.__name__ = NoDelayConnection.__qualname__ = f"NoDelay{base.__name__}"
    return NoDelayConnection


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "attention_lab.nodelay"}]


def _load_jupyter_server_extension(serverapp: ServerApp) -> None:
    settings = serverapp.web_app.settings
    base = settings.get(_SETTING)
    if base is None:  # a server without kernels
        return
    settings[_SETTING] = no_delay_connection_class(base)
    serverapp.log.info("attention_lab.nodelay: kernel websockets send without Nagle's delay")
