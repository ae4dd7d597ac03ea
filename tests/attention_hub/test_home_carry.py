"""A home carried onto a student's own filesystem (autograder/attention_hub/home_carry.py), in
folders of this test (no account, no mount): copied, compared, the original kept out of reach;
a copy that differs leaves the home as it was. tests/hub/test_user_disk.py carries real homes
onto real images.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from attention_hub import home_carry
from attention_hub.home_carry import KEPT_HOMES, carry_home

pytestmark = [
    pytest.mark.slow,  # root's: never in make test-fast
    pytest.mark.skipif(os.geteuid() != 0, reason="the kept homes' folder is root's"),
]


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "homes" / "ana"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "lesson.ipynb").write_text("{}")
    (home / "link").symlink_to("notes/lesson.ipynb")
    os.chmod(home / "notes", 0o750)
    return home


def test_a_home_is_copied_compared_and_kept_out_of_reach(tmp_path):
    home = _home(tmp_path)
    new_home = tmp_path / "disk" / "home"
    new_home.mkdir(parents=True)
    said = carry_home(home, "ana", new_home)
    assert (new_home / "notes" / "lesson.ipynb").read_text() == "{}"
    assert os.readlink(new_home / "link") == "notes/lesson.ipynb"
    assert stat.S_IMODE((new_home / "notes").stat().st_mode) == 0o750
    kept = tmp_path / "homes" / KEPT_HOMES
    assert not home.exists() and (kept / "ana" / "notes" / "lesson.ipynb").exists()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o700 and kept.stat().st_uid == 0
    assert str(kept / "ana") in said
    # a second carry of the same name (a home made again): the first kept one stays
    home = _home(tmp_path)
    again = tmp_path / "disk2"
    again.mkdir()
    carry_home(home, "ana", again)
    assert (kept / "ana").exists() and len(list(kept.iterdir())) == 2


def test_a_copy_that_differs_leaves_the_home_as_it_was(tmp_path, monkeypatch):
    home = _home(tmp_path)
    new_home = tmp_path / "disk" / "home"
    new_home.mkdir(parents=True)
    real_run = home_carry.run

    def lossy_cp(*cmd: str) -> None:  # a copy that silently spoils a file
        real_run(*cmd)
        (new_home / "notes" / "lesson.ipynb").write_text("{ }")

    monkeypatch.setattr(home_carry, "run", lossy_cp)
    with pytest.raises(OSError, match=r"copy differs \(notes/lesson.ipynb: contents differ"):
        carry_home(home, "ana", new_home)
    assert (home / "notes" / "lesson.ipynb").read_text() == "{}"
    assert not (tmp_path / "homes" / KEPT_HOMES).exists()


def test_a_home_that_is_not_a_folder_is_not_carried(tmp_path):
    (tmp_path / "homes").mkdir()
    fake = tmp_path / "homes" / "ana"
    fake.symlink_to(shutil.which("sh") or "/bin/sh")
    with pytest.raises(OSError, match="is not a folder"):
        carry_home(fake, "ana", tmp_path)
    assert fake.is_symlink()
