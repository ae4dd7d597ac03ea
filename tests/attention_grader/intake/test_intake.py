"""attention_grader.intake.intake: every kind of unsafe file, the caps, nesting bombs, metadata, escaping.

Each test builds the attack first (what a student can hand in), then checks the defence.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import time
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from attention_grader.common.flag_store import read_flags
from attention_grader.common.flags import Flag
from attention_grader.common.safe_text import printable
from attention_grader.common.summary import BatchSummary, SubmissionResult
from attention_grader.intake.intake import (
    IntakeLimits,
    classify_entry,
    copy_submission,
    json_depth,
    prepare_submission,
    quarantine_path,
    read_notebook_safely,
    read_timestamp,
    sanitize_submission,
    strip_cell_metadata,
)
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OSC = "\x1b]0;pwned\x07"
CSI = "\x1b[2J"


def notebook(cells=None) -> nbformat.NotebookNode:
    meta = {"nbgrader": {"grade": True, "grade_id": "test_q1", "locked": True, "points": 1}}
    return new_notebook(
        cells=cells
        or [
            new_markdown_cell("# A1"),
            new_code_cell("x = 1", metadata={"nbgrader": {"solution": True, "grade_id": "q1"}}),
            new_code_cell("assert x == 1", metadata=meta),
        ]
    )


@pytest.fixture
def course(tmp_path) -> Path:
    """A course folder with a secret solution and gradebook, and an empty submission folder."""
    root = tmp_path / "course"
    (root / "source" / "a1").mkdir(parents=True)
    (root / "source" / "a1" / "a1.ipynb").write_text("SOLUTION " + json.dumps(notebook()))
    (root / "gradebook.db").write_text("GRADEBOOK")
    (root / "submitted" / "eve" / "a1").mkdir(parents=True)
    return root


def sub(course: Path) -> Path:
    return course / "submitted" / "eve" / "a1"


def kinds(flags: list[Flag]) -> dict[str, str]:
    """Map each file name to its flag kind, from the details ("<name>: why; action")."""
    return {f.detail.split(":")[0]: f.kind for f in flags}


# --------------------------------------------------------------------------- files


def test_every_unsafe_kind_is_removed_without_being_followed(course, tmp_path):
    folder = sub(course)
    nbformat.write(notebook(), folder / "a1.ipynb")
    (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
    (folder / "submission_secret.txt").write_text("ab" * 64)
    (folder / "data").mkdir()
    (folder / "data" / "points.csv").write_text("1,2\n")  # an ordinary data file stays
    # the attacks
    os.symlink("../../../source/a1/a1.ipynb", folder / "other.ipynb")
    os.symlink("../../../gradebook.db", folder / "grades.html")
    os.symlink(course / "source", folder / "src")  # a link to a folder
    os.link(course / "gradebook.db", folder / "copy.csv")  # a hard link
    os.mkfifo(folder / "pipe.csv")
    os.mknod(folder / "zero.csv", 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(folder / "sock.csv"))
    (folder / ".autosave.ipynb").write_text("not json")
    (folder / ".ipynb_checkpoints").mkdir()
    (folder / "page.html").write_text("<script>alert(1)</script>")
    (folder / "numpy.py").write_text("raise SystemExit")
    (folder / "extra.ipynb").write_text("{}")
    (folder / f"{OSC}.csv").write_text("1")

    flags = sanitize_submission(folder, ["a1"], quarantine=tmp_path / "q")
    unix.close()

    assert sorted(p.name for p in folder.iterdir()) == [
        "a1.ipynb", "data", "submission_secret.txt", "timestamp.txt",
    ]  # fmt: skip
    assert (folder / "data" / "points.csv").exists()
    found = kinds(flags)
    for name in [
        "other.ipynb",
        "grades.html",
        "src",
        "copy.csv",
        "pipe.csv",
        "zero.csv",
        "sock.csv",
    ]:
        assert found[name] == "unsafe_file", name
    for name in [".autosave.ipynb", ".ipynb_checkpoints", "page.html", "numpy.py", "extra.ipynb"]:
        assert found[name] == "unexpected_file", name
    assert found[printable(f"{OSC}.csv")] == "unexpected_file"
    assert all("\x1b" not in f.detail and "\x07" not in f.detail for f in flags)
    assert len(flags) == 13
    # moved, not followed: the targets are untouched, the links sit in the quarantine as links
    assert (course / "gradebook.db").read_text() == "GRADEBOOK"
    assert os.path.islink(tmp_path / "q" / "grades.html")
    assert (course / "source" / "a1" / "a1.ipynb").exists()


def test_hard_link_to_the_notebook_itself_is_refused(course):
    folder = sub(course)
    os.link(course / "source" / "a1" / "a1.ipynb", folder / "a1.ipynb")
    flags = sanitize_submission(folder, ["a1"])
    assert [f.kind for f in flags] == ["unsafe_file"] and "hard link" in flags[0].detail
    assert not (folder / "a1.ipynb").exists()
    assert (course / "source" / "a1" / "a1.ipynb").exists()


def test_classify_refuses_block_devices_and_accepts_plain_files():
    block = os.stat_result((stat.S_IFBLK | 0o600, 1, 1, 1, 0, 0, 0, 0, 0, 0))
    plain = os.stat_result((stat.S_IFREG | 0o644, 1, 1, 1, 0, 0, 10, 0, 0, 0))
    assert classify_entry(("disk.csv",), block, ["a1"], IntakeLimits()) == (
        "unsafe_file", "a block device",
    )  # fmt: skip
    assert classify_entry(("a1.ipynb",), plain, ["a1"], IntakeLimits()) is None
    folder = os.stat_result((stat.S_IFDIR | 0o755, 1, 1, 1, 0, 0, 0, 0, 0, 0))
    assert classify_entry(("x",), folder, ["a1"], IntakeLimits(max_depth=2)) is None
    assert classify_entry(("x", "y"), folder, ["a1"], IntakeLimits(max_depth=2)) == (
        "unexpected_file", "a folder nested too deep",
    )  # fmt: skip


def test_sizes_depth_and_count_are_capped(course):
    folder = sub(course)
    limits = IntakeLimits(max_data_file_bytes=10, max_notebook_bytes=50, max_entries=30)
    (folder / "a1.ipynb").write_text("x" * 51)
    (folder / "big.csv").write_text("x" * 11)
    deep = folder / "d1" / "d2" / "d3"
    deep.mkdir(parents=True)
    for i in range(60):
        (folder / f"f{i:02}.csv").write_text("1")
    flags = sanitize_submission(folder, ["a1"], limits)
    found = kinds(flags)
    assert found["a1.ipynb"] == found["big.csv"] == "unexpected_file"
    assert found["d1/d2/d3"] == "unexpected_file"  # max_depth 3: the third level is refused
    assert len(list(folder.glob("f*.csv"))) < 30  # over max_entries: the rest are refused
    # at most 20 lines per submission, then one line saying how many more
    assert len(flags) == 21 and flags[-1].detail.startswith("and ")


def test_the_flag_cap_and_the_released_file_cap_are_the_configs(course):
    from attention_grader.config.settings import intake_limits
    from attention_grader.intake.intake import released_files
    from traitlets.config import Config

    config = Config()
    config.Intake.max_flags = 3
    config.Intake.max_released_hash_bytes = 4
    limits = intake_limits(config)
    folder = sub(course)
    for i in range(6):
        (folder / f"f{i}.exe").write_text("1")
    flags = sanitize_submission(folder, ["a1"], limits)
    assert len(flags) == 4 and flags[-1].detail == "and 3 more refused"
    (course / "source" / "a1" / "small.csv").write_text("1234")
    (course / "source" / "a1" / "large.csv").write_text("12345")
    found = released_files(course / "source" / "a1", limits.max_released_hash_bytes)
    assert set(found) == {("small.csv",)}  # over the cap: not the teacher's, the student's


def test_quarantine_never_writes_through_an_earlier_quarantined_link(course, tmp_path):
    q, outside = tmp_path / "q", tmp_path / "outside"
    outside.mkdir()
    folder = sub(course)
    os.symlink(outside, folder / "sub")  # first submission: a link named "sub"
    sanitize_submission(folder, ["a1"], quarantine=q)
    assert os.path.islink(q / "sub")
    (folder / "sub").mkdir()  # resubmission: a real folder "sub" holding a refused file
    (folder / "sub" / ".bashrc").write_text("evil")
    sanitize_submission(folder, ["a1"], quarantine=q)
    assert list(outside.iterdir()) == []
    assert (q / "sub" / ".bashrc").read_text() == "evil" and not os.path.islink(q / "sub")
    assert quarantine_path(q, ("sub", ".bashrc")) == q / "sub" / ".bashrc"


def test_copy_submission_copies_no_link_and_nothing_from_source(course, tmp_path):
    inbound = tmp_path / "inbound"
    inbound.mkdir()
    os.symlink(course / "source" / "a1" / "a1.ipynb", inbound / "a1.ipynb")
    os.symlink(course / "gradebook.db", inbound / "x.html")
    os.mkfifo(inbound / "wait.csv")  # would block a plain copy forever
    (inbound / "ok.csv").write_text("1,2")
    (inbound / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
    dest = tmp_path / "dest"
    t0 = time.perf_counter()
    flags = copy_submission(inbound, dest, ["a1"])
    assert time.perf_counter() - t0 < 5
    assert sorted(p.name for p in dest.iterdir()) == ["ok.csv", "timestamp.txt"]
    assert kinds(flags) == {"a1.ipynb": "unsafe_file", "wait.csv": "unsafe_file", "x.html": "unsafe_file"}  # fmt: skip
    assert all(f.detail.endswith("not collected") for f in flags)
    for path in dest.rglob("*"):
        assert b"SOLUTION" not in path.read_bytes() and b"GRADEBOOK" not in path.read_bytes()


# --------------------------------------------------------------------------- notebooks


def test_not_json_too_big_too_many_cells_are_one_flag_each(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text('{"cells": [')
    nb, flags = read_notebook_safely(bad)
    assert nb is None and [f.kind for f in flags] == ["invalid_notebook"]
    assert "not JSON" in flags[0].detail and "\n" not in flags[0].detail

    big = tmp_path / "big.ipynb"
    nbformat.write(notebook(), big)
    nb, flags = read_notebook_safely(big, IntakeLimits(max_notebook_bytes=100))
    assert nb is None and "limit 100" in flags[0].detail

    many = tmp_path / "many.ipynb"
    nbformat.write(notebook([new_code_cell("1") for _ in range(30)]), many)
    nb, flags = read_notebook_safely(many, IntakeLimits(max_cells=20))
    assert nb is None and "30 cells (limit 20)" in flags[0].detail

    fine, flags = read_notebook_safely(big)
    assert flags == [] and fine.cells[2].metadata.nbgrader.grade_id == "test_q1"


def test_json_that_is_not_a_notebook(tmp_path):
    path = tmp_path / "a1.ipynb"
    path.write_text("[1, 2, 3]")
    nb, flags = read_notebook_safely(path)
    assert nb is None and "not a notebook" in flags[0].detail
    path.write_text('{"cells": [], "nbformat": "four"}')
    nb, flags = read_notebook_safely(path)
    assert nb is None and flags[0].kind == "invalid_notebook"


def test_a_nesting_bomb_is_refused_before_parsing(tmp_path):
    path = tmp_path / "bomb.ipynb"
    depth = 1_000_000  # json.loads would raise RecursionError; a recursive validator may crash
    path.write_text('{"cells": [], "metadata": {"x": ' + "[" * depth + "]" * depth + "}}")
    t0 = time.perf_counter()
    nb, flags = read_notebook_safely(path)
    assert time.perf_counter() - t0 < 5
    assert nb is None and "nested more than 64 levels" in flags[0].detail


def test_json_depth_ignores_brackets_inside_strings():
    assert json_depth(b'{"a": "[[[[[[", "b": [1, {"c": "]]]}"}]}') == 3
    assert json_depth(b'{"s": "\\"[[["}') == 1
    assert json_depth(b"[" * 100, stop_at=10) == 11


def test_a_linked_notebook_is_not_read(course):
    os.symlink(course / "source" / "a1" / "a1.ipynb", sub(course) / "a1.ipynb")
    nb, flags = read_notebook_safely(sub(course) / "a1.ipynb")
    assert nb is None and flags[0].kind == "invalid_notebook" and "links" in flags[0].detail


def test_strip_cell_metadata_flags_tags_on_test_and_locked_cells_only():
    nb = notebook()
    nb.cells[1].metadata.update(tags=["skip-execution"], jupyter={"source_hidden": True})
    nb.cells[2].metadata.update(
        tags=["skip-execution", "raises-exception"], editable=False, execution={"x": 1}
    )
    ids = [c.id for c in nb.cells]
    flags = strip_cell_metadata(nb)
    assert [(f.kind, f.detail) for f in flags] == [
        ("edited_metadata", "test_q1: tags [skip-execution, raises-exception] removed")
    ]
    assert [sorted(c.metadata) for c in nb.cells] == [[], ["nbgrader"], ["nbgrader"]]
    assert [c.id for c in nb.cells] == ids
    assert nb.cells[2].metadata.nbgrader.grade_id == "test_q1"


# --------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize(
    "text",
    ["garbage", "", "2026-13-45 99:99:99 UTC", "2026-11-30 09:00:00 /etc/passwd", OSC, "9" * 300],
)
def test_a_timestamp_that_is_not_a_time_is_read_as_none_with_a_flag(tmp_path, text):
    (tmp_path / "timestamp.txt").write_text(text)
    stamp, flags = read_timestamp(tmp_path)
    assert stamp is None and [f.kind for f in flags] == ["bad_timestamp"]
    assert "\x1b" not in flags[0].detail


def test_a_timestamp_nbgrader_writes_is_read(tmp_path):
    (tmp_path / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
    assert read_timestamp(tmp_path) == (datetime(2026, 11, 30, 9, 0), [])
    (tmp_path / "timestamp.txt").write_text("2026-11-30 14:30:00.000000 Asia/Kolkata")
    assert read_timestamp(tmp_path)[0] == datetime(2026, 11, 30, 9, 0)
    assert read_timestamp(tmp_path / "nowhere") == (None, [])


# --------------------------------------------------------------------------- entry point


def test_prepare_submission_quarantines_and_remembers(course):
    folder = sub(course)
    nb = notebook()
    nb.cells[2].metadata["tags"] = ["skip-execution"]
    nbformat.write(nb, folder / "a1.ipynb")
    os.symlink("../../../gradebook.db", folder / "x.html")
    (folder / "timestamp.txt").write_text("not a time")

    result = prepare_submission(folder, ["a1", "a2"])
    assert sorted(result.notebooks) == ["a1"] and result.missing == ["a2"]
    assert "tags" not in result.notebooks["a1"].cells[2].metadata
    assert result.timestamp is None
    assert sorted(f.kind for f in result.flags) == ["bad_timestamp", "edited_metadata", "unsafe_file"]  # fmt: skip
    quarantine = course / "quarantine" / "eve" / "a1"
    assert os.path.islink(quarantine / "files" / "x.html")
    assert (quarantine / "files" / "timestamp.txt").exists()  # nbgrader never meets it
    assert not (folder / "timestamp.txt").exists()
    # graded again: the flags stay with the submission
    again = prepare_submission(folder, ["a1", "a2"])
    assert set(again.flags) == set(result.flags) == set(read_flags(quarantine=quarantine))


def test_prepare_submission_sets_an_unreadable_notebook_aside(course):
    (sub(course) / "a1.ipynb").write_text("{not json")
    result = prepare_submission(sub(course), ["a1"])
    assert result.missing == ["a1"] and result.notebooks == {}
    assert [f.kind for f in result.flags] == ["invalid_notebook"]
    assert not (sub(course) / "a1.ipynb").exists()


# --------------------------------------------------------------------------- escaping


def test_printable_escapes_osc_csi_c1_and_bidi():
    assert printable(f"{OSC}ana{CSI}") == "\\x1b]0;pwned\\x07ana\\x1b[2J"
    assert printable("evil\u202elmth.py") == "evil\\u202elmth.py"
    assert printable("a\x9bb\x7f") == "a\\x9bb\\x7f"  # 8-bit CSI and DEL
    assert printable("line\nnext\tcol") == "line\\x0anext\\x09col"
    assert printable("line\nnext", keep_newlines=True) == "line\nnext"
    assert printable("Zoë 注意") == "Zoë 注意"


def test_batch_table_and_csv_escape_student_chosen_names(tmp_path):
    summary = BatchSummary(
        "a1",
        [
            SubmissionResult(
                f"{OSC}mallory",
                "missing",
                f"no a1.ipynb (found {CSI}.ipynb)",
                [Flag("unexpected_file", f"{OSC}.csv: hidden")],
            )
        ],
    )
    summary.log = f"===== {OSC}\n[INFO] ok\n"
    table = summary.table()
    assert "\x1b" not in table and "\x07" not in table
    assert "\\x1b]0;pwned\\x07mallory" in table
    js, cs = summary.write(tmp_path)
    assert "\x1b" not in cs.read_text() and "\x1b" not in (tmp_path / "grading.log").read_text()
    assert json.loads(js.read_text())["results"][0]["student"] == f"{OSC}mallory"  # exact in JSON


# --------------------------------------------------------------------------- nbgrader wiring


def test_the_course_config_turns_the_intake_on_for_plain_nbgrader():
    from attention_grader.exchange.inbound_list import SafeExchangeList
    from attention_grader.exchange.release_feedback import SafeExchangeReleaseFeedback
    from attention_grader.exchange.safe_exchange import SafeExchangeCollect
    from attention_grader.executor.tamper import ScanSubmission
    from attention_grader.intake.intake_guard import IntakeGuard, intake_hook
    from traitlets.config.loader import PyFileConfigLoader

    repo = Path(__file__).resolve().parents[3]
    c = PyFileConfigLoader("nbgrader_config.py", path=str(repo)).load_config()
    assert c.ExchangeFactory.collect is SafeExchangeCollect
    assert c.ExchangeFactory.release_feedback is SafeExchangeReleaseFeedback
    assert c.ExchangeFactory.list is SafeExchangeList  # nbgrader list --inbound, as collect reads
    assert c.Autograde.sanitize_preprocessors[:2] == [ScanSubmission, IntakeGuard]
    assert c.Autograde.pre_convert_hook is intake_hook


def test_configure_is_idempotent_and_keeps_a_teachers_hook_explicit():
    from attention_grader.intake.intake_guard import IntakeGuard
    from attention_grader.pipeline import configure
    from traitlets.config import Config

    c = Config()
    configure(c)
    configure(c)
    assert c.Autograde.sanitize_preprocessors.count(IntakeGuard) == 1
    own = Config()
    own.Autograde.pre_convert_hook = print
    with pytest.raises(ValueError, match="intake_hook"):
        configure(own)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("ana+a1+not a time+x", "not <student>+<assignment>+<time>"),
        (f"{OSC}+a1+2026-11-30 09:00:00.000000 UTC+x", "not a student id"),
        ("ana+a1", "not <student>+<assignment>+<time>"),
    ],
)
def test_a_badly_named_exchange_folder_is_refused_not_fatal(tmp_path, name, why):
    from attention_grader.exchange.exchange_identity import read_inbound

    folder = tmp_path / name
    folder.mkdir()
    item = read_inbound(folder, frozenset({os.geteuid()}), None)
    assert why in item.refused and item.time is None
    assert "\x1b" not in item.line() and "not collected" in item.line()


def test_an_exchange_folder_nbgrader_writes_is_accepted(tmp_path):
    from attention_grader.exchange.exchange_identity import read_inbound

    folder = tmp_path / "ana+a1+2026-11-30 09:00:00.000000 UTC+1a2b"
    folder.mkdir()
    item = read_inbound(folder, frozenset({os.geteuid()}), None)  # a folder the teacher made
    assert not item.refused and item.time == datetime(2026, 11, 30, 9, 0)
    assert not item.by_exchange


def test_a_folders_time_reads_as_many_entries_as_the_config_says(tmp_path, monkeypatch):
    from attention_grader.config.settings import intake_limits
    from attention_grader.exchange import exchange_identity
    from traitlets.config import Config

    asked = []
    real = exchange_identity.exchange_time
    monkeypatch.setattr(exchange_identity, "exchange_time", lambda p, n: asked.append(n) or real(p, n))  # fmt: skip
    config = Config()
    config.Intake.max_time_entries = 7
    folder = tmp_path / "ana" / "ana+a1+2026-11-30 09:00:00.000000 UTC+1a2b"
    folder.mkdir(parents=True)
    limit = intake_limits(config).max_time_entries
    item = exchange_identity.read_inbound(folder, frozenset(), None, "ana", True, limit)
    assert item.by_exchange and not item.refused and asked == [7]


def test_files_released_with_the_assignment_handed_back_raise_no_flag(tmp_path):
    """A teacher's ``helpers.py`` or ``data/readings.dat`` handed back unchanged: no flag (nbgrader's
    autograde copies the teacher's own copy back); a changed one is the student's: flagged.
    """
    from attention_grader.intake.intake import prepare_submission, released_files

    source = tmp_path / "source" / "hw"
    (source / "data").mkdir(parents=True)
    (source / "helpers.py").write_text("def helper():\n    return 1\n")
    (source / "data" / "readings.dat").write_bytes(b"1 2 3\n")
    (source / "hw.ipynb").write_text("{}")
    released = released_files(source)
    assert set(released) == {("helpers.py",), ("data", "readings.dat")}

    folder = tmp_path / "submitted" / "ann" / "hw"
    (folder / "data").mkdir(parents=True)
    (folder / "helpers.py").write_text("def helper():\n    return 1\n")
    (folder / "data" / "readings.dat").write_bytes(b"1 2 3\n")
    result = prepare_submission(folder, [], quarantine=tmp_path / "q1", released=released)
    assert [f for f in result.flags if f.kind == "unexpected_file"] == []
    assert not (folder / "helpers.py").exists()  # autograde puts the teacher's copy back

    (folder / "helpers.py").write_text("def helper():\n    return 2\n")
    result = prepare_submission(folder, [], quarantine=tmp_path / "q2", released=released)
    assert [f.kind for f in result.flags] == ["unexpected_file"]
    assert "helpers.py" in result.flags[0].detail
