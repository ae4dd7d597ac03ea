"""The folder the hub mounts for a student (KubeSpawner's safe slug) and who a folder belongs to."""

from __future__ import annotations

import pytest
from attention_grader.exchange.exchange_mounts import ExchangeLayout, folder_slug, folder_student
from traitlets.config import Config


# The expected values are KubeSpawner's own (its tests/test_slugs.py, test_safe_slug): the hub
# names the mounted folder with kubespawner.slugs.safe_slug, collect must find the same name.
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("jupyter-alex", "jupyter-alex"),
        ("jupyter-Alex", "jupyter-alex---3a1c285c"),
        ("jupyter-üni", "jupyter-ni---a5aaf5dd"),
        ("endswith-", "endswith---165f1166"),
        ("-start", "start---f587e2dc"),
        ("username--servername", "username-servername---d957f1de"),
        ("start---f587e2dc", "start-f587e2dc---cc5bb9c9"),
        ("x" * 63, "x" * 63),
        ("x" * 64, "xxxxxxxxxxxxxxxxxxxxx---7ce10097"),
        ("x" * 65, "xxxxxxxxxxxxxxxxxxxxx---9537c5fd"),
        ("", "x---e3b0c442"),
    ],
)
def test_the_folder_is_kubespawners_safe_slug(name, expected):
    assert folder_slug(name) == expected


TRICKY = ["../alice", "alice/../bob", "alice@school.org", "Alice", "alice ", "a" * 80, ".", "..",
          "x---e3b0c442", "alice---2bd806c9"]  # fmt: skip


@pytest.mark.parametrize("name", TRICKY)
def test_no_login_name_makes_a_path_or_another_students_folder(name):
    slug = folder_slug(name)
    assert "/" not in slug and slug not in (".", "..", "")
    assert slug not in ("alice", "bob")  # never a classmate's folder
    assert "---" in slug  # escaped, so never a name kept as it is


def test_different_names_never_share_a_folder():
    names = [*TRICKY, "alice", "bob", "alice-1", folder_slug("Alice")]
    assert len({folder_slug(n) for n in names}) == len(names)


def test_a_folder_belongs_to_the_one_roster_id_whose_slug_it_is():
    roster = {"alice", "Bob.Smith", "carol_1"}
    assert folder_student("alice", roster) == "alice"
    assert folder_student(folder_slug("Bob.Smith"), roster) == "Bob.Smith"
    assert folder_student(folder_slug("carol_1"), roster) == "carol_1"
    assert folder_student("mallory", roster) is None  # not on the roster
    assert folder_student("bob-smith", roster) is None  # looks alike, is not Bob.Smith's folder


def test_without_a_roster_only_a_name_that_is_its_own_folder_is_a_student():
    assert folder_student("alice", None) == "alice"
    assert folder_student("x---3a1c285c", None) is None  # only a roster can say whose


def test_per_student_mounts_are_off_unless_configured():
    assert ExchangeLayout().per_student_mounts is False
    c = Config()
    c.ExchangeLayout.per_student_mounts = True
    assert ExchangeLayout(config=c).per_student_mounts is True
    assert "uid" in ExchangeLayout.class_traits()["per_student_mounts"].help


NAME = "alice+mini+2026-11-01 10:00:00.000000 UTC"


def _judge(tmp_path, folder: str | None, name: str, roster=None, kind: str = "dir"):
    from pathlib import Path

    from attention_grader.exchange.exchange_identity import read_inbound

    where = tmp_path / "inbound" / folder if folder else tmp_path / "inbound"
    where.mkdir(parents=True, exist_ok=True)
    entry = where / name
    if kind == "dir":
        entry.mkdir()
        (entry / "timestamp.txt").write_text("2020-01-01 00:00:00.000000 UTC")
    else:
        entry.symlink_to(Path("..") / "bob")
    # one uid for everyone: the caller (the "teacher") owns every folder, and is trusted by uid
    import os

    return read_inbound(entry, frozenset({0, os.geteuid()}), roster, folder, by_mount=True)


def test_one_uid_a_submission_in_its_students_folder_is_hers_dated_by_the_exchange(tmp_path):
    item = _judge(tmp_path, "alice", NAME)
    assert not item.refused and item.student == "alice" and item.by_exchange
    assert item.time is not None and item.time.year >= 2026  # the ctime, not 2020's stamp


@pytest.mark.parametrize(
    ("folder", "name", "roster", "kind", "reason"),
    [
        ("mallory", NAME, None, "dir", "in mallory's folder names 'alice'"),
        (None, NAME, None, "dir", "directly in inbound/"),
        ("mallory", NAME, {"alice", "bob"}, "dir", "no student's on the roster"),
        ("x---3a1c285c", NAME, None, "dir", "no student's"),
        ("alice", NAME, None, "link", "not a folder"),
        ("alice", "alice+mini+yesterday", None, "dir", "is not <student>+<assignment>+<time>"),
    ],
)
def test_one_uid_the_owner_uid_never_vouches_for_a_folder(tmp_path, folder, name, roster, kind, reason):  # fmt: skip
    item = _judge(tmp_path, folder, name, roster, kind)
    assert reason in item.refused and item.time is None
    assert "refused:" in item.line()


def test_one_uid_an_escaped_folder_is_its_roster_students(tmp_path):
    folder = folder_slug("Bob.Smith")  # the hub's folder for a login that is not a DNS label
    item = _judge(tmp_path, folder, "Bob.Smith+mini+2026-11-01 10:00:00.000000 UTC", {"Bob.Smith"})
    assert not item.refused and item.student == "Bob.Smith"
    other = _judge(tmp_path, folder, NAME, {"Bob.Smith", "alice"})  # his folder, naming alice
    assert "in Bob.Smith's folder names 'alice'" in other.refused
