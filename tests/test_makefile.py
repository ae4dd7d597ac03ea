"""The README's two commands: `make lab` serves the lessons, set-up is idempotent, help lists all."""

import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def make(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True, **kw
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_help_lists_the_readme_targets():
    out = make("help").stdout
    for target in (
        "lab",
        "test",
        "setup",
        "lint",
        "bench",
        "clean",
        "system-deps",
        "check",
        "html",
    ):
        assert re.search(rf"make {target}\s", out), f"`make help` does not list {target}"


def test_setup_is_idempotent_once_installed():
    # -q: exit 0 when the target is up to date, i.e. a second `make setup` would install nothing
    assert make("-q", "setup").returncode == 0, "make setup would re-install with unchanged pins"


def test_setup_reinstalls_when_the_pins_change(tmp_path):
    # ask make what it would do if requirements.txt were newer than the install stamp
    dry = make("-n", "setup", "-W", "requirements.txt").stdout
    assert "pip install" in dry and "-r requirements.txt" in dry


@pytest.mark.slow
def test_make_lab_serves_the_lessons_headless():
    port = free_port()
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS=--no-browser --port={port}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    url, lines = None, []
    try:
        deadline = time.monotonic() + 90
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            lines.append(line)
            match = re.search(rf"(http://(?:127\.0\.0\.1|localhost):{port}/lab\?token=\w+)", line)
            url = match and match[1]
        assert url, "make lab printed no URL:\n" + "".join(lines[-20:])
        page = None
        while page is None and time.monotonic() < deadline:  # printed URL may precede listening
            try:
                page = urllib.request.urlopen(url, timeout=30)
            except urllib.error.URLError:
                time.sleep(0.2)
        assert page is not None and page.status == 200 and b"JupyterLab" in page.read()
        token = url.rsplit("=", 1)[1]
        api = f"http://127.0.0.1:{port}/api/contents?token={token}"
        with urllib.request.urlopen(api, timeout=30) as listing:
            names = {item["name"] for item in __import__("json").load(listing)["content"]}
        assert names == {
            p.name for p in (ROOT / "notebooks").iterdir() if not p.name.startswith(".")
        }
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)
