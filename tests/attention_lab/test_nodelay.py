"""attention_lab.nodelay: every kernel websocket is opened with TCP_NODELAY (issue 17).

Without it, about half of the explorer's slider steps waited ~40 ms in the server (Nagle's
algorithm against the browser's delayed ACK; measured with `make bench-browser`).
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from jupyter_core.paths import jupyter_config_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from tornado.iostream import IOStream

from attention_lab import nodelay

REPO = Path(__file__).resolve().parents[2]


class _Recorder:
    """Stands in for jupyter_server's connection class: records connect() and its socket."""

    def __init__(self, handler):
        self.websocket_handler = handler
        self.connected_with_nodelay = None

    def connect(self):
        self.connected_with_nodelay = self.websocket_handler.nodelay
        return "the base class's future"


class _Handler:
    nodelay = False

    def set_nodelay(self, value: bool) -> None:
        self.nodelay = value


def test_the_connection_turns_nagle_off_before_the_base_class_connects():
    connection = nodelay.no_delay_connection_class(_Recorder)(_Handler())
    result = connection.connect()
    assert connection.connected_with_nodelay is True
    assert result == "the base class's future"  # jupyter_server awaits it


def test_wrapping_twice_wraps_once_and_keeps_the_base_class():
    once = nodelay.no_delay_connection_class(ZMQChannelsWebsocketConnection)
    assert issubclass(once, ZMQChannelsWebsocketConnection)
    assert nodelay.no_delay_connection_class(once) is once


def test_the_extension_replaces_the_servers_connection_class():
    settings = {"kernel_websocket_connection_class": ZMQChannelsWebsocketConnection}
    app = SimpleNamespace(web_app=SimpleNamespace(settings=settings), log=SimpleNamespace(
        info=lambda *a: None))  # fmt: skip
    nodelay._load_jupyter_server_extension(app)
    cls = settings["kernel_websocket_connection_class"]
    assert cls is not ZMQChannelsWebsocketConnection
    assert issubclass(cls, ZMQChannelsWebsocketConnection)


def test_set_nodelay_really_sets_tcp_nodelay_on_the_stream():
    # What the handler's set_nodelay ends in: tornado's IOStream.set_nodelay on the socket.
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    try:
        stream = IOStream(accepted)
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
        stream.set_nodelay(True)
        assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        client.close()
        accepted.close()
        server.close()


def test_the_course_server_loads_the_extension():
    enabled = ExtensionConfigManager(
        read_config_path=jupyter_config_path()
    ).get_jpserver_extensions()
    assert enabled.get("attention_lab.nodelay") is True, "run `make setup`"


def test_the_nodelay_extension_imports_no_numpy():
    code = (
        "import sys, attention_lab.nodelay, attention_lab\n"
        "print(sorted(m for m in ('numpy', 'matplotlib', 'ipywidgets') if m in sys.modules))\n"
        "print(attention_lab.softmax.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.split()
    assert out == ["[]", "attention_lab.core"], out
