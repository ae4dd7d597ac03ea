"""What a student's Jupyter server loads on the hub (autograder/attention_hub/system_install.py's
role configs): only what a student uses, cheaply.

`make hub-load N=30` regressed from a 7.4 s to an 83.5 s spawn (p50) when every student's server
started loading the formgrader's extensions (attention_grader.pages.csp, .formgrader_scores: nbconvert,
the grader) and, through attention_lab.nodelay, numpy (tests/attention_lab/test_nodelay.py). On a loaded 2-core machine each import
costs seconds per server, and a class spawns at once.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import install  # autograder/jupyterhub/install.py (pytest's pythonpath)
import pytest
import requests

TEACHER_ONLY = ("attention_grader.pages.csp", "attention_grader.term.formgrader_scores")


def test_students_servers_leave_out_the_formgraders_extensions(tmp_path):
    student = install.write_role_configs(str(tmp_path))
    conf = json.loads(
        (student / "jupyter_server_config.d" / "attention-lab-student.json").read_text()
    )
    off = conf["ServerApp"]["jpserver_extensions"]
    for name in (*TEACHER_ONLY, "nbgrader.server_extensions.formgrader"):
        assert off.get(name) is False, name
    # Validate (a student's button) keeps naming the questions.
    assert "attention_grader.term.validate_labels" not in off
    page = json.loads((student / "labconfig" / "page_config.json").read_text())
    assert set(page["disabledExtensions"]) == {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:course-list",
    }
    # The instructors' own servers (several classes) keep the course's formgrader extensions.
    services = tmp_path / "attention-lab" / "instructor-services" / "jupyter_server_config.d"
    kept = json.loads(next(services.iterdir()).read_text())["ServerApp"]["jpserver_extensions"]
    assert not set(TEACHER_ONLY) & set(kept)


def _lsp_status(tmp_path: Path, config_path: str) -> int:
    """Start a Jupyter server with ``config_path`` first (as the hub does); GET /lsp/status."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "JUPYTER_CONFIG_PATH": config_path, "HOME": str(tmp_path),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", f"--port={port}",
         "--ServerApp.port_retries=0", "--IdentityProvider.token=t", "--allow-root"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while server.poll() is None and time.monotonic() < deadline:
            try:
                if requests.get(f"{url}/api/status?token=t", timeout=10).status_code == 200:
                    return requests.get(f"{url}/lsp/status?token=t", timeout=60).status_code
            except requests.ConnectionError:
                time.sleep(0.2)  # not listening yet
        raise AssertionError(f"the server did not start (exit code {server.poll()})")
    finally:
        server.terminate()
        server.wait(timeout=60)


@pytest.mark.slow
def test_a_students_server_does_not_look_for_language_servers(tmp_path):
    """jupyter_lsp finds none here, and looking is more than half of a server's start."""
    student = install.write_role_configs(str(tmp_path / "etc"))
    assert _lsp_status(tmp_path, str(tmp_path / "elsewhere")) == 200  # what the package turns on
    assert _lsp_status(tmp_path, str(student)) == 404
