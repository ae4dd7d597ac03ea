"""attention_grader.common.variant_key: the course key, kept with the teacher."""

from __future__ import annotations

import stat

import pytest
from attention_grader.common.variant_key import KeyMissing, course_key, student_seed
from traitlets.config import Config

from attention_lab.variants import PRACTICE, SEED_ENV, StudentSeed, current_seed


def _config(root, key_file=None) -> Config:
    c = Config()
    c.CourseDirectory.root = str(root)
    c.Exchange.root = str(root / "exchange")
    if key_file is not None:
        c.Variants.key_file = key_file
    return c


def test_release_makes_the_key_once_private_and_stable(tmp_path, monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)
    config = _config(tmp_path)
    with pytest.raises(KeyMissing, match="no variant key"):
        course_key(config)
    # no key, none named on purpose: no hub gave anyone a seed, all worked on the practice numbers
    assert student_seed(config, "alice") is PRACTICE
    key = course_key(config, create=True)
    path = tmp_path / "variant.key"
    assert len(key) == 32 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert course_key(config, create=True) == key  # never replaced
    assert student_seed(config, "alice") == StudentSeed.from_key(key, "alice")
    assert student_seed(config, None) is PRACTICE  # the release check: no student
    assert student_seed(_config(tmp_path / "new"), ".") is PRACTICE  # nbgrader's "no student"


@pytest.mark.parametrize("inside", ["source/variant.key", "release/k", "exchange/attention-lab/k"])
def test_a_key_where_students_receive_files_is_refused(tmp_path, inside):
    with pytest.raises(ValueError, match="which students receive"):
        course_key(_config(tmp_path, inside), create=True)
    assert not (tmp_path / inside).exists()


def test_a_key_named_on_purpose_and_lost_refuses_grading(tmp_path):
    """Her numbers came from that key: never the practice numbers in silence."""
    with pytest.raises(KeyMissing, match="never saw"):
        student_seed(_config(tmp_path, "keys/variant.key"), "alice")


def test_a_damaged_key_says_what_to_do(tmp_path):
    (tmp_path / "variant.key").write_text("not a key\n")
    with pytest.raises(ValueError, match="restore it from a backup"):
        course_key(_config(tmp_path))


def test_make_check_on_her_server_uses_the_seed_the_hub_gave_her(tmp_path, monkeypatch):
    """``make check``'s scratch course has no key: her own numbers are her server's."""
    mine = StudentSeed.from_key(bytes(range(32)), "alice")
    monkeypatch.setenv(SEED_ENV, mine.to_text())
    # a teacher's course never grades by the env's seed
    assert student_seed(_config(tmp_path), "self") is PRACTICE
    scratch = _config(tmp_path)
    scratch.Variants.without_key = "own"  # what make check's scratch course says
    assert student_seed(scratch, "self") == mine
    monkeypatch.delenv(SEED_ENV)
    assert student_seed(scratch, "self") is PRACTICE  # her laptop: the practice numbers
    course_key(_config(tmp_path), create=True)  # a teacher's course: the key decides, not the env
    assert student_seed(_config(tmp_path), "bob").student == "bob"


def test_the_formgraders_release_check_needs_no_key(tmp_path, monkeypatch):
    """The formgrader's "Generate" (nbgrader's generate_assignment) grades the teacher's
    solution as student "."; before any key it failed with KeyMissing, a traceback in the
    formgrader, although no student's numbers are involved.
    """
    monkeypatch.delenv(SEED_ENV, raising=False)
    config = _config(tmp_path)
    assert student_seed(config, ".") is PRACTICE
    course_key(config, create=True)
    assert student_seed(config, ".") is PRACTICE  # with a key too: the solution's numbers


def _classroom():
    """The hub's classroom module (only its functions: no hub starts)."""
    from attention_hub import classroom

    return classroom


def test_a_key_the_hub_made_and_lost_refuses_grading_even_unnamed(tmp_path, monkeypatch):
    """c.Variants.key_file left commented out: the hub's note says there was a key."""
    monkeypatch.delenv(SEED_ENV, raising=False)
    classroom = _classroom()
    key = tmp_path / "variant.key"
    classroom.ensure_variant_keys([classroom.Course("a", variant_key_file=str(key))])
    config = _config(tmp_path)  # names no key
    made = course_key(config)
    note = (tmp_path / "variant.key.issued").read_text()
    assert made.hex() not in note and "restore it from a backup" in note
    key.unlink()
    with pytest.raises(KeyMissing, match="variant.key.issued says it existed.*never saw"):
        student_seed(config, "alice")
    assert student_seed(config, ".") is PRACTICE  # the release check needs no student's numbers


def test_a_key_made_here_leaves_the_note_too(tmp_path, monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)
    config = _config(tmp_path)
    course_key(config, create=True)
    (tmp_path / "variant.key").unlink()
    with pytest.raises(KeyMissing, match="says it existed"):
        student_seed(config, "alice")


def test_several_classes_on_one_hub_each_get_their_own_key(tmp_path, monkeypatch):
    monkeypatch.delenv(SEED_ENV, raising=False)
    classroom = _classroom()
    roots = {name: tmp_path / name for name in ("algebra", "attention")}
    courses = []
    for name, root in roots.items():
        root.mkdir()
        courses.append(classroom.Course(name, variant_key_file=str(root / "variant.key")))
    assert len(classroom.ensure_variant_keys(courses)) == 2
    keys = {name: course_key(_config(root)) for name, root in roots.items()}
    assert keys["algebra"] != keys["attention"]
    for name, root in roots.items():  # a student's server gets the seed of her own class
        seed = classroom.variant_seed(courses, {f"nbgrader-{name}"}, "ana")
        assert seed == student_seed(_config(root), "ana").to_text()
    # a student of both: her own numbers in each, by the course folder the notebook is in
    both = classroom.variant_seed(courses, {"nbgrader-algebra", "nbgrader-attention"}, "ana")
    monkeypatch.setenv(SEED_ENV, both)
    for name, root in roots.items():
        folder = tmp_path / "home" / name / "focus_in_the_noise"  # ~/<course>/<assignment>
        folder.mkdir(parents=True)
        monkeypatch.chdir(folder)
        assert current_seed() == student_seed(_config(root), "ana")
    monkeypatch.delenv(SEED_ENV)
    shared = [classroom.Course(n, variant_key_file=str(tmp_path / "one.key")) for n in "bc"]
    with pytest.raises(ValueError, match="name one variant key"):
        classroom.ensure_variant_keys(shared)
    assert not (tmp_path / "one.key").exists()


@pytest.mark.parametrize("target_exists", [False, True])
def test_a_link_in_place_of_the_note_is_never_followed(tmp_path, target_exists):
    """The hub runs as root in the teacher's folder: a link planted there must not make it
    write (or give away) a file elsewhere.
    """
    classroom = _classroom()
    course, target = tmp_path / "course", tmp_path / "elsewhere"
    course.mkdir()
    if target_exists:
        target.write_text("someone else's\n")
    (course / "variant.key.issued").symlink_to(target)
    classroom.ensure_variant_keys(
        [classroom.Course("a", variant_key_file=str(course / "variant.key"))]
    )
    assert (course / "variant.key").is_file()
    if target_exists:
        assert target.read_text() == "someone else's\n"
    else:
        assert not target.exists()
