"""tests/support/run_cache.py: a thing built once per test run, whichever process or thread asks first."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tests.support import run_cache
from tests.support.run_cache import RUN_FOLDER_ENV, once_per_run


@pytest.fixture
def run(tmp_path, monkeypatch):
    """A run folder of this test's own (the real run's cache is left alone)."""
    monkeypatch.setenv(RUN_FOLDER_ENV, str(tmp_path))
    monkeypatch.setattr(run_cache, "_read", {})
    return tmp_path


def _counting_build(builds: list[str]):
    def build(folder: Path) -> None:
        builds.append(folder.name)
        (folder / "value.txt").write_text(f"built {len(builds)}")

    return build


def _read(folder: Path) -> str:
    return (folder / "value.txt").read_text()


def test_many_askers_at_once_build_once_and_read_the_same(run):
    builds: list[str] = []
    got: list[str] = []

    def ask():
        run_cache._read.clear()  # as a process of its own would start
        got.append(once_per_run("thing", _counting_build(builds), _read))

    askers = [threading.Thread(target=ask) for _ in range(4)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join()
    assert builds == ["thing"]
    assert got == ["built 1"] * 4
    assert (run / "thing" / "done").exists()


def test_a_failed_build_keeps_nothing_and_the_next_asker_builds_again(run):
    def failing(folder: Path) -> None:
        (folder / "half.txt").write_text("half")
        raise RuntimeError("kernel died")

    with pytest.raises(RuntimeError, match="kernel died"):
        once_per_run("thing", failing, _read)
    builds: list[str] = []
    assert once_per_run("thing", _counting_build(builds), _read) == "built 1"
    assert not (run / "thing" / "half.txt").exists()  # the failed build's leftovers went first


def test_without_a_run_folder_a_process_makes_its_own(monkeypatch):
    monkeypatch.delenv(RUN_FOLDER_ENV, raising=False)
    folder = run_cache.run_folder()
    try:
        assert folder.is_dir() and str(folder) == os.environ[RUN_FOLDER_ENV]
    finally:
        run_cache.remove_run_folder(folder)
    assert not folder.exists() and RUN_FOLDER_ENV not in os.environ
