"""End to end: hostile files in a class with honest students, collect -> grade -> feedback -> release.

One scratch course with the real course's pipeline (``attention_grader.pipeline.configure(c)``,
as ``nbgrader_config.py``). Honest students and attackers submit through
nbgrader's exchange; the attackers then change their folder in the exchange (which every student
can write) or, for what a teacher might copy in by hand, in ``submitted/`` directly:

* ``mallory``: the notebook is a link to the source (with solutions), plus ``*.html`` links to
  ``gradebook.db`` and to ana's notebook;
* ``trudy``: a FIFO, a hard link to the source, a non-JSON ``.autosave.ipynb``,
  ``.ipynb_checkpoints`` and a page with a script, next to an honest notebook;
* ``tina``: a blank notebook whose test cells are tagged ``skip-execution`` (full marks before);
* ``oscar``: no notebook and a ``timestamp.txt`` that is not a time;
* ``nina``: an honest notebook without ``submission_secret.txt`` (feedback cannot be released);
* ``ESC]0;pwned BEL eve`` (a student id with a terminal escape) and ``eve`` (a notebook named with
  ``ESC[2J``);
* in ``submitted/`` directly: ``olga`` (no notebook, unparsable timestamp: stopped ``grade()``
  before anyone was graded), ``dora`` (non-JSON ``.autosave.ipynb``), ``sid`` (notebook linked
  to the source, ``*.html`` linked to the gradebook).

Graded twice: through ``python -m attention_grader`` (``--jobs 2``) and through plain nbgrader
commands with the course config. Either way the batch completes, ana and ben keep their honest
grades, every attacker is flagged in one escaped line, and nothing from ``source/``, the
gradebook or another student lands in ``submitted/``, ``autograded/``, ``feedback/`` or the
exchange's feedback folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from attention_grader.cli import main
from attention_grader.common.flag_store import read_flags
from attention_grader.intake.intake import default_quarantine

from tests.support.graded_classes import ClassSpec, built_class
from tests.support.grading_course import CORRECT, FIXTURE, MISCONCEIVED, Student, answer

pytestmark = [
    pytest.mark.slow,
]

OSC_ID = "\x1b]0;pwned\x07eve"
ANA_MARK = "# ana-private-7f3a9c"  # only ana's own files may contain it
SOLUTION_MARK = b"### BEGIN SOLUTION"  # only source/ has it
GRADEBOOK_MARK = b"SQLite format 3"
HONEST = {"ana": 3.0, "ben": 1.0, "trudy": 3.0, "nina": 3.0}
ATTACKERS = ["mallory", "trudy", "tina", "oscar", "nina", "eve", "olga", "dora", "sid"]


def _inbound(course, student: str) -> Path:
    (folder,) = (course.exchange / course.course_id / "inbound").glob(f"{student}+{FIXTURE}+*")
    return folder


def _nobody(course) -> None:
    """No hand-in: each student of :func:`build_class` works through the exchange."""


#: The released fixture (released once per run: both routes' tests work on a copy).
RELEASED = ClassSpec("intake", hand_in=_nobody, config="c.Execute.timeout = 20\n", due=None)


def build_class(tmp: Path):
    """Release the fixture, let everyone submit, then plant the attacks. Returns the course."""
    course = built_class(tmp, RELEASED)
    source_nb = course.root / "source" / FIXTURE / f"{FIXTURE}.ipynb"
    ana_answers = {**CORRECT, "q2_answer": CORRECT["q2_answer"] + "\n" + ANA_MARK}
    for sid, answers in [("ana", ana_answers), ("ben", MISCONCEIVED), ("trudy", CORRECT),
                         ("nina", CORRECT), ("mallory", None), ("oscar", None),
                         ("eve", None), (OSC_ID, CORRECT)]:  # fmt: skip
        Student(course, tmp, sid).work(FIXTURE, answers)
    tina = Student(course, tmp, "tina")
    path = tina.fetch(FIXTURE)
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade"):
            cell.metadata["tags"] = ["skip-execution"]
    nbformat.write(nb, path)
    tina.submit(FIXTURE)

    box = _inbound(course, "mallory")
    (box / f"{FIXTURE}.ipynb").unlink()
    os.symlink(source_nb, box / f"{FIXTURE}.ipynb")
    os.symlink(course.root / "gradebook.db", box / "grades.html")
    os.symlink(_inbound(course, "ana") / f"{FIXTURE}.ipynb", box / "ana.html")
    box = _inbound(course, "trudy")
    os.mkfifo(box / "data.csv")
    os.link(source_nb, box / "notes.csv")
    (box / ".autosave.ipynb").write_text("{ not json")
    (box / ".ipynb_checkpoints").mkdir()
    (box / "page.html").write_text("<script>fetch('/formgrader/api/grade/1')</script>")
    box = _inbound(course, "oscar")
    (box / f"{FIXTURE}.ipynb").unlink()
    (box / "timestamp.txt").write_text("whenever")
    (_inbound(course, "nina") / "submission_secret.txt").unlink()
    box = _inbound(course, "eve")
    (box / f"{FIXTURE}.ipynb").rename(box / "\x1b[2J.ipynb")

    released = nbformat.read(course.root / "release" / FIXTURE / f"{FIXTURE}.ipynb", 4)
    for sid in ["olga", "dora", "sid"]:
        folder = course.root / "submitted" / sid / FIXTURE
        folder.mkdir(parents=True)
        (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
    (course.root / "submitted" / "olga" / FIXTURE / "timestamp.txt").write_text("not a time")
    dora = course.root / "submitted" / "dora" / FIXTURE
    nbformat.write(answer(nbformat.from_dict(released), CORRECT), dora / f"{FIXTURE}.ipynb")
    (dora / ".autosave.ipynb").write_text("\x00 not json")
    sid = course.root / "submitted" / "sid" / FIXTURE
    os.symlink(source_nb, sid / f"{FIXTURE}.ipynb")
    os.symlink(course.root / "gradebook.db", sid / "report.html")
    return course


def scores(course) -> dict:
    from nbgrader.api import Gradebook, MissingEntry

    out = {}
    with Gradebook(course.db_url, course.course_id) as gb:
        for sid in [*HONEST, *ATTACKERS]:
            try:
                out[sid] = gb.find_submission(FIXTURE, sid).score
            except MissingEntry:
                out[sid] = None
    return out


def assert_nothing_leaked(course) -> None:
    """No file a student can be given holds the source, the gradebook or ana's work (ana's own
    folders excepted), and none of them is a link.
    """
    exchange_feedback = course.exchange / course.course_id / "feedback"
    places = [course.root / d for d in ("submitted", "autograded", "feedback")]
    ana_pages = 0
    for place in [*places, exchange_feedback]:
        for path in place.rglob("*"):
            assert not path.is_symlink(), path
            if not path.is_file():
                continue
            data = path.read_bytes()
            assert SOLUTION_MARK not in data and GRADEBOOK_MARK not in data, path
            if ANA_MARK.encode() in data:
                if place == exchange_feedback:
                    ana_pages += 1
                else:
                    assert "ana" in path.relative_to(place).parts[:1], path
    assert ana_pages == 1  # her own feedback page, nobody else's
    pages = sorted(p.name for p in exchange_feedback.glob("*.html"))
    assert len(pages) == len(set(pages)) and all(len(p) == len("x" * 32 + ".html") for p in pages)


def assert_honest_grades(course) -> dict:
    got = scores(course)
    for sid, points in HONEST.items():
        assert got[sid] == points, (sid, got)
    for sid in ["mallory", "tina", "oscar", "eve", "olga", "sid"]:
        assert not got[sid], (sid, got)  # no attacker earns a point
    return got


def test_hostile_class_through_the_parallel_grader(tmp_path, capsys):
    course = build_class(tmp_path)
    root = str(course.root)
    assert main(["--course", root, "collect", FIXTURE]) == 0
    collected = capsys.readouterr().out
    assert main(["--course", root, "grade", FIXTURE, "--jobs", "2", "--no-progress"]) == 0
    graded = capsys.readouterr().out
    # a page that reached the autograded folder anyway (say, copied in by hand) is not released:
    # generate_feedback copies it (following the link) next to the real page
    planted = course.root / "autograded" / "ana" / FIXTURE / "x.html"
    os.symlink(course.root / "gradebook.db", planted)
    assert main(["--course", root, "feedback", FIXTURE]) == 0
    planted.unlink()  # the test's own plant in the teacher's folder
    released = capsys.readouterr().out
    printed = collected + graded + released
    assert "\x1b" not in printed and "\x07" not in printed

    # every attack is one flagged line, naming the student (escaped)
    lines = printed.splitlines()

    def flagged(student: str, *words: str) -> bool:
        return any(student in ln and all(w in ln for w in words) for ln in lines)

    assert flagged("mallory", f"{FIXTURE}.ipynb: a symbolic link")
    assert flagged("mallory", "grades.html: a symbolic link") and flagged("mallory", "ana.html")
    assert flagged("trudy", "data.csv: a FIFO") and flagged("trudy", "notes.csv: a hard link")
    assert flagged("trudy", ".autosave.ipynb") and flagged("trudy", "page.html")
    assert flagged("oscar", "bad_timestamp") and flagged("olga", "bad_timestamp")
    assert flagged("tina", "edited_metadata", "skip-execution")
    assert flagged("eve", "\\x1b[2J.ipynb") and flagged("\\x1b]0;pwned\\x07eve", "not collected")
    assert flagged("nina", "not released", "submission_secret.txt")
    assert flagged("ana", "x.html", "not released")
    summary = {ln.split()[0]: ln for ln in graded.splitlines() if ln[:1].isalpha()}
    assert "missing" in summary["olga"] and "missing" in summary["mallory"]
    assert "missing" in summary["sid"] and "was refused" in summary["sid"]  # its notebook: a link
    for sid in ["dora", "sid"]:  # what intake_hook refused in submitted/ is recorded with it
        kinds = {f.kind for f in read_flags(quarantine=default_quarantine(Path(root, "submitted", sid, FIXTURE)))}  # fmt: skip
        assert kinds == {"unexpected_file"} if sid == "dora" else {"unsafe_file"}, (sid, kinds)
    got = assert_honest_grades(course)
    assert got["dora"] == 3.0  # graded, its hidden non-JSON autosave set aside
    assert_nothing_leaked(course)
    feedback = {sid: Student.__new__(Student) for sid in ["ana", "ben", "nina"]}
    for sid, student in feedback.items():
        student.course, student.id, student.home = course, sid, tmp_path / "home" / sid
    assert len(feedback["ana"].fetch_feedback(FIXTURE)) == 1
    assert len(feedback["ben"].fetch_feedback(FIXTURE)) == 1


def _nbgrader(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    cmd = [sys.executable, "-m", "nbgrader", *args]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=900)


def test_hostile_class_through_plain_nbgrader(tmp_path):
    course = build_class(tmp_path)
    out = _nbgrader(course.root, "collect", FIXTURE, "--update")
    assert out.returncode == 0, out.stderr[-2000:]
    assert "not collected" in out.stderr and "\\x1b]0;pwned\\x07eve" in out.stderr
    graded = _nbgrader(course.root, "autograde", FIXTURE, "--force")
    # sid's submission holds no notebook once its link is set aside: nbgrader reports that one
    # failure at the end, after grading everyone else
    assert "No notebooks found" in graded.stderr
    assert_honest_grades(course)
    assert scores(course)["dora"] == 3.0
    assert "skip-execution" in graded.stderr  # tina's tags, logged as removed
    out = _nbgrader(course.root, "generate_feedback", FIXTURE, "--force")
    out = _nbgrader(course.root, "release_feedback", FIXTURE)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Feedback not released for nina" in out.stderr
    assert_nothing_leaked(course)
    ana = Student.__new__(Student)
    ana.course, ana.id, ana.home = course, "ana", tmp_path / "home" / "ana"
    assert len(ana.fetch_feedback(FIXTURE)) == 1
