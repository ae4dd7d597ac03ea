"""`make lab`'s server: it opens on lesson 00, and its terminal opens in work/ with the course's
commands.

A student's walk (issue 39): the terminal opened in the course folder, not work/ as
docs/students.md says, and `nbgrader` was "command not found": Jupyter starts a *login* shell
when it is not run from a terminal, and a login shell's /etc/profile resets PATH, dropping the
course's .venv/bin that `make lab` puts first. The server below is started as `make lab` starts
it (JUPYTER_CONFIG_PATH with jupyter-settings/laptop and student-lab, the course folder as its
working folder, work/ as its root); a terminal is opened the way JupyterLab's launcher opens one
at the file browser's top (``cwd: ""``) and typed into.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

REPO = Path(__file__).resolve().parents[1]
SETTINGS = REPO / "jupyter-settings"

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _type(url: str, line: str, until: str, seconds: float = 60) -> str:
    from tornado.websocket import websocket_connect

    ws = await websocket_connect(url)
    seen = ""
    try:
        ws.write_message(json.dumps(["stdin", line + "\r"]))
        deadline = time.monotonic() + seconds
        while until not in seen and time.monotonic() < deadline:
            msg = await asyncio.wait_for(ws.read_message(), timeout=seconds)
            if msg is None:
                break
            kind, *data = json.loads(msg)
            if kind == "stdout":
                seen += "".join(data)
    finally:
        ws.close()
    return seen


def test_the_terminal_opens_in_work_with_the_courses_commands(tmp_path):
    course = tmp_path / "course"
    work = course / "work"
    work.mkdir(parents=True)
    (tmp_path / "home").mkdir()
    port = _free_port()
    venv_bin = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_PATH": f"{SETTINGS / 'laptop'}:{SETTINGS / 'student-lab'}",
        "HOME": str(tmp_path / "home"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "PATH": f"{venv_bin}:/usr/bin:/bin",
        "SHELL": "/bin/sh",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={port}",
         "--ServerApp.port_retries=0", "--IdentityProvider.token=t", "--allow-root",
         f"--ServerApp.root_dir={work}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=course,
    )  # fmt: skip
    url = f"127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                if requests.get(f"http://{url}/api/status?token=t", timeout=10).ok:
                    break
            except requests.ConnectionError:
                pass
            time.sleep(1)
        first = requests.get(f"http://{url}/?token=t", allow_redirects=False, timeout=30)
        made = requests.post(f"http://{url}/api/terminals?token=t", json={"cwd": ""}, timeout=30)
        name = made.json()["name"]
        out = asyncio.run(
            _type(
                f"ws://{url}/terminals/websocket/{name}?token=t",
                # quotes split the markers, so the echoed command line never matches
                'echo A""T:$(pwd -P); echo N""B:$(command -v nbgrader); echo E""ND',
                until="END\r\n",
            )
        )
    finally:
        server.terminate()
        server.wait(timeout=60)
    # JupyterLab opens on lesson 00, not on the Launcher
    assert first.headers["Location"].split("?")[0] == "/lab/tree/00_start_here.ipynb", first.headers
    assert f"AT:{work.resolve()}" in out, out
    assert f"NB:{venv_bin}/nbgrader" in out, out
