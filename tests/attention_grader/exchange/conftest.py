"""The exchange tests' accounts (tests/support/exchange_accounts.py has what they do with them)."""

from __future__ import annotations

import subprocess
import uuid

import pytest


@pytest.fixture(scope="module")
def accounts():
    """Three local accounts without homes; removed afterwards."""
    tag = uuid.uuid4().hex[:6]
    names = {who: f"{who}{tag}" for who in ("alice", "bob", "mallory")}
    made = []
    try:
        for name in names.values():
            subprocess.run(["useradd", "-M", "-s", "/usr/sbin/nologin", name], check=True)
            made.append(name)
        yield names
    finally:
        for name in made:
            subprocess.run(["userdel", name], check=False)
