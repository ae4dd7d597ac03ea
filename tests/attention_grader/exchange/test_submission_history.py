"""The submission history's content hash and its append-only file (no accounts needed; the
exchange's identity checks are in tests/attention_grader/exchange/test_exchange_identity.py).
"""

from __future__ import annotations

import os
import time
from datetime import datetime

from attention_grader.exchange.exchange_identity import Inbound
from attention_grader.exchange.submission_history import (
    content_digest,
    history_file,
    read_history,
    record_seen,
)


def _folder(path, notebook: str, stamp: str):
    path.mkdir(parents=True)
    (path / "a1.ipynb").write_text(notebook)
    (path / "timestamp.txt").write_text(stamp)
    (path / "submission_secret.txt").write_text(stamp[::-1])
    return path


def test_the_same_work_handed_in_twice_has_the_same_hash(tmp_path):
    one = _folder(tmp_path / "one", "work", "2026-12-01 10:00:00 UTC")
    again = _folder(tmp_path / "again", "work", "2099-01-01 00:00:00 UTC")
    other = _folder(tmp_path / "other", "other work", "2026-12-01 10:00:00 UTC")
    assert content_digest(one) == content_digest(again)  # nbgrader's bookkeeping left out
    assert content_digest(one) != content_digest(other)
    secret = tmp_path / "secret.txt"
    secret.write_text("the solution")
    os.symlink(secret, other / "data.txt")
    linked = content_digest(other)
    secret.write_text("changed")
    assert content_digest(other) == linked  # a link is hashed by name, never followed


def test_the_hash_caps_are_the_configs(tmp_path):
    from attention_grader.config.settings import intake_limits
    from traitlets.config import Config

    folder = _folder(tmp_path / "one", "work" * 100, "2026-12-01 10:00:00 UTC")
    assert not content_digest(folder).endswith("+partial")
    config = Config()
    config.Intake.max_history_hash_bytes = 10
    assert content_digest(folder, intake_limits(config)).endswith("+partial")
    config = Config()
    config.Intake.max_history_hash_entries = 1
    (folder / "b.csv").write_text("1")
    assert content_digest(folder, intake_limits(config)).endswith("+partial")


def test_a_folder_seen_again_as_it_is_adds_no_row(tmp_path):
    folder = _folder(tmp_path / "inbound" / "f", "work", "x")
    when = datetime(2026, 12, 1, 10)
    item = Inbound(folder, "ana+a1+x", "ana", when, "ana", when, by_exchange=True)
    assert record_seen(tmp_path, "a1", [item]) == 1
    assert record_seen(tmp_path, "a1", [item]) == 0
    while time.time() <= os.lstat(folder / "a1.ipynb").st_ctime + 0.01:  # a later ctime
        time.sleep(0.01)
    (folder / "a1.ipynb").write_text("resubmitted in place")  # its ctime and content change
    assert record_seen(tmp_path, "a1", [item]) == 1
    rows = read_history(tmp_path, "a1")
    assert [r.event for r in rows] == ["received", "received"]
    assert rows[0].sha256 != rows[1].sha256 and rows[0].received <= rows[1].received
    assert history_file(tmp_path, "a1").read_text().count("\n") == 3  # a header, two rows
