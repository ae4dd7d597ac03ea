"""attention_lab.lesson_copies: `make lab` works on copies; a course update never costs work."""

from __future__ import annotations

import json
import subprocess
from datetime import date
from pathlib import Path

from attention_lab.lesson_copies import MANIFEST, sync

ROOT = Path(__file__).resolve().parents[2]
DAY = date(2026, 12, 1)


def _course(tmp_path: Path) -> tuple[Path, Path]:
    upstream = tmp_path / "notebooks"
    upstream.mkdir()
    (upstream / "01_a.ipynb").write_text('{"v": 1}')
    (upstream / "02_b.ipynb").write_text('{"v": 1}')
    return upstream, tmp_path / "work"


def test_first_run_copies_every_lesson_and_a_second_changes_nothing(tmp_path):
    upstream, work = _course(tmp_path)
    first = sync(upstream, work, DAY)
    assert [(c.lesson, c.action) for c in first] == [
        ("01_a.ipynb", "copied"),
        ("02_b.ipynb", "copied"),
    ]
    assert (work / "01_a.ipynb").read_text() == '{"v": 1}'
    assert sync(upstream, work, DAY) == []


def test_an_update_replaces_an_untouched_copy_and_is_offered_beside_a_worked_one(tmp_path):
    upstream, work = _course(tmp_path)
    sync(upstream, work, DAY)
    (work / "02_b.ipynb").write_text('{"v": 1, "my answer": 42}')  # the student worked here
    for lesson in ("01_a.ipynb", "02_b.ipynb"):
        (upstream / lesson).write_text('{"v": 2}')  # git pull brought a new version
    changes = {c.lesson: c for c in sync(upstream, work, DAY)}
    assert changes["01_a.ipynb"].action == "updated"
    assert (work / "01_a.ipynb").read_text() == '{"v": 2}'
    offered = changes["02_b.ipynb"]
    assert offered.action == "offered"
    assert (work / "02_b.ipynb").read_text() == '{"v": 1, "my answer": 42}'  # kept
    assert offered.beside == "02_b (course update 2026-12-01).ipynb"
    assert (work / offered.beside).read_text() == '{"v": 2}'
    assert "Your copy is kept" in str(offered)
    assert sync(upstream, work, DAY) == []  # offered once, not at every `make lab`
    (upstream / "02_b.ipynb").write_text('{"v": 3}')
    (again,) = sync(upstream, work, DAY)
    assert again.beside == "02_b (course update 2026-12-01) 2.ipynb"  # never over an earlier one
    assert json.loads((work / MANIFEST).read_text())["02_b.ipynb"]


def test_the_work_folder_is_ignored_by_git_and_make_lab_opens_it():
    ignored = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "--no-index", "work/01_the_bottleneck.ipynb",
         "work/assignments/intro_attention/intro_attention.ipynb"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert len(ignored.stdout.split()) == 2
    dry = subprocess.run(["make", "-n", "lab"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "attention_lab.lesson_copies notebooks work" in dry
    assert "--notebook-dir=work" in dry
