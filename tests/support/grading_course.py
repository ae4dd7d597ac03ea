"""Helpers for the grading tests: a temporary course with its own exchange, and simulated students.

Students are simulated in-process with nbgrader's exchange classes, each with its own home folder
(where assignments are fetched), its own exchange cache and its own ``student_id`` -- all as the
current user, as on one machine.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import nbformat
from attention_grader.config.course import (
    CONFIG_FILE,
    Course,
    load_course,
    new_course,
    quiet_autoflush_warning,
)

FIXTURE_SOURCE = Path(__file__).parents[1] / "fixtures" / "grading" / "source"
FIXTURE = "mini_softmax"

# Answer-cell sources for the fixture (grade_id -> code) that make each kind of student.
CORRECT = {
    "q1_answer": (
        "def softmax(xs):\n    m = max(xs)\n    e = [math.exp(x - m) for x in xs]\n"
        "    return [v / sum(e) for v in e]"
    ),
    "q2_answer": "def double(x):\n    return 2 * x",
}
MISCONCEIVED = {
    "q1_answer": "def softmax(xs):\n    return [x / sum(xs) for x in xs]",
    "q2_answer": "def double(x):\n    return 2 * x",
}
HARDMAX = {
    "q1_answer": (
        "def softmax(xs):\n    m = max(xs)\n    return [1.0 if x == m else 0.0 for x in xs]"
    ),
    "q2_answer": "def double(x):\n    return x + x",
}


def make_course(
    tmp: Path,
    assignments=(FIXTURE,),
    source_root: Path = FIXTURE_SOURCE,
    *,
    config_file: Path | None = None,
    config: str = "",
) -> Course:
    """A fresh course folder ``tmp/course`` with the given source assignments and an exchange
    ``tmp/exchange``.

    ``config_file`` (the repository's ``nbgrader_config.py``, say) is copied over the course's
    own first; ``config`` is appended to it (a limit, a setting under test).
    """
    course = new_course(tmp, source_root, assignments)
    if config_file is None and not config:
        return course
    if config_file is not None:
        shutil.copy(config_file, course.root / CONFIG_FILE)
    with open(course.root / CONFIG_FILE, "a") as file:
        file.write(config)
    return load_course(course.root, exchange=course.exchange)


def notebook_course(
    root: Path,
    assignment: str,
    notebook: nbformat.NotebookNode,
    config: str | Path,
    **fill: object,
) -> Path:
    """A course folder ``root`` whose ``source/<assignment>/<assignment>.ipynb`` is ``notebook``
    and whose ``nbgrader_config.py`` is ``config`` (a template: ``{root}`` and ``fill`` filled
    in; a path: that file, copied as it is), for a test of one notebook under a config of its
    own. Returns ``root``.
    """
    folder = root / "source" / assignment
    folder.mkdir(parents=True)
    nbformat.write(notebook, folder / f"{assignment}.ipynb")
    if isinstance(config, Path):
        shutil.copy(config, root / CONFIG_FILE)
    else:
        (root / CONFIG_FILE).write_text(config.format(root=str(root), **fill))
    return root


def answer(notebook: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    """Replace the source of the answer cells named in ``answers`` (by nbgrader grade_id)."""
    for cell in notebook.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in answers:
            cell.source = answers[gid]
    return notebook


class Student:
    """A simulated student using nbgrader's exchange (fetch, submit, fetch feedback)."""

    def __init__(self, course: Course, tmp: Path, student_id: str):
        self.course, self.id = course, student_id
        self.home = tmp / "home" / student_id
        self.home.mkdir(parents=True)

    def _config(self):
        from traitlets.config import Config

        c = Config()
        c.CourseDirectory.course_id = self.course.course_id
        c.CourseDirectory.root = str(self.home)
        c.CourseDirectory.student_id = self.id
        c.Exchange.root = str(self.course.exchange)
        c.Exchange.assignment_dir = str(self.home)
        c.Exchange.cache = str(self.home / ".nbgrader_cache")
        return c

    def _run(self, cls_name: str, assignment: str) -> None:
        from nbgrader.auth import Authenticator
        from nbgrader.coursedir import CourseDirectory
        from nbgrader.exchange import default

        config = self._config()
        cd = CourseDirectory(config=config)
        cd.assignment_id = assignment
        auth = Authenticator(config=config)
        app = getattr(default, cls_name)(coursedir=cd, authenticator=auth, config=config)
        app.start()

    def fetch(self, assignment: str) -> Path:
        self._run("ExchangeFetchAssignment", assignment)
        return self.home / assignment / f"{assignment}.ipynb"

    def submit(self, assignment: str) -> None:
        self._run("ExchangeSubmit", assignment)

    def fetch_feedback(self, assignment: str) -> list[Path]:
        self._run("ExchangeFetchFeedback", assignment)
        return sorted((self.home / assignment / "feedback").glob("*/*.html"))

    def work(self, assignment: str, answers: dict[str, str] | None) -> None:
        """Fetch, fill in ``answers`` (None = hand in blank), save and submit."""
        path = self.fetch(assignment)
        if answers is not None:
            nb = nbformat.read(path, as_version=4)
            nbformat.write(answer(nb, answers), path)
        self.submit(assignment)


def place_submission(
    course: Course,
    assignment: str,
    student: str,
    notebook: nbformat.NotebookNode | str | None,
    *,
    name: str | None = None,
    timestamp: datetime | None = None,
) -> Path:
    """Put a submission straight into ``submitted/`` (as ``collect`` would), for grader tests.

    ``notebook`` may be a notebook, raw text (e.g. broken JSON) or None (no notebook at all).
    """
    folder = course.root / "submitted" / student / assignment
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{assignment}.ipynb")
    if isinstance(notebook, str):
        path.write_text(notebook)
    elif notebook is not None:
        nbformat.write(notebook, path)
    stamp = timestamp or datetime(2026, 11, 30, 9, 0, 0)
    (folder / "timestamp.txt").write_text(stamp.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    return path


DUE = "2026-11-30 12:00:00"


def release_and_submit_class(course: Course) -> None:
    """Release the fixture (due ``DUE``) and place four submissions, not yet graded: alice
    (correct), bob (misconceived), dana (blank) and eli (correct, 2 h 5 min late).
    """
    from attention_grader.steps.release import release

    release(course, FIXTURE, duedate=DUE)
    hand_in_class(course)


def hand_in_class(course: Course) -> None:
    """The four submissions of :func:`release_and_submit_class`, once the fixture is released."""
    import copy

    nb = released_notebook(course, FIXTURE)
    for student, answers in [("alice", CORRECT), ("bob", MISCONCEIVED), ("dana", None)]:
        work = answer(copy.deepcopy(nb), answers) if answers else copy.deepcopy(nb)
        place_submission(course, FIXTURE, student, work)
    late = datetime(2026, 11, 30, 14, 5, 0)  # 2 h 5 min after DUE
    place_submission(course, FIXTURE, "eli", answer(copy.deepcopy(nb), CORRECT), timestamp=late)


def released_notebook(course: Course, assignment: str) -> nbformat.NotebookNode:
    """The student version of ``assignment`` (after ``release``)."""
    path = course.root / "release" / assignment / f"{assignment}.ipynb"
    return nbformat.read(path, as_version=4)


def gradebook_state(course: Course, assignment: str) -> dict:
    """Everything autograde writes, per student/notebook/cell, for comparing two gradebooks."""
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(course.db_url, course.course_id) as gb:
        for sub in gb.assignment_submissions(assignment):
            nbs = {}
            for nb in sub.notebooks:
                nbs[nb.name] = {
                    "late_submission_penalty": nb.late_submission_penalty,
                    "grades": {
                        g.name: (g.auto_score, g.manual_score, g.needs_manual_grade, g.max_score)
                        for g in nb.grades
                    },
                    "comments": {c.name: c.auto_comment for c in nb.comments},
                }
            out[sub.student.id] = {
                "timestamp": str(sub.timestamp),
                "score": sub.score,
                "notebooks": nbs,
            }
    return out


def notebook_content(path: Path) -> list:
    """Cell sources and outputs of an autograded notebook, without volatile metadata."""
    nb = json.loads(path.read_text())
    return [
        (c["cell_type"], c["source"], c.get("outputs"), c["metadata"].get("nbgrader"))
        for c in nb["cells"]
    ]


__all__ = [
    "CORRECT",
    "DUE",
    "FIXTURE",
    "HARDMAX",
    "MISCONCEIVED",
    "Student",
    "answer",
    "gradebook_state",
    "hand_in_class",
    "make_course",
    "notebook_content",
    "place_submission",
    "release_and_submit_class",
    "released_notebook",
    "synthetic_class",
]


def synthetic_class(tmp: Path) -> Course:
    """A course whose gradebook and autograded notebooks are written directly (no kernels).

    Assignment ``a1`` (notebook ``nb``): ``q1`` (code test, 2 points), ``q2`` (code test, 1 point),
    ``essay`` (written answer, 2 points, manually graded). Students: ana (q1 right, q2 right),
    ben (q1 misconception ``sum_normalised``, q2 right), cy (q1 ``sum_normalised`` and q2
    ``forgot_scaling``, q2 also a plain WrongAnswer), dee (never submitted); plus assignment
    ``a2`` nobody submitted. A misconception is what grading records in the cell's metadata
    (cy's q2 message names no id; ana's q2 message names one that grading did not record).
    """
    from nbformat.v4 import new_code_cell, new_notebook, new_output
    from nbgrader.api import Gradebook

    root = tmp / "course"
    root.mkdir()
    course = load_course(root, exchange=tmp / "exchange")
    stamp = datetime(2026, 11, 30, 9, 0)
    with quiet_autoflush_warning(), Gradebook(course.db_url, course.course_id) as gb:
        gb.add_assignment("a1", duedate=datetime(2026, 11, 30, 8, 0))
        gb.add_assignment("a2", duedate=datetime(2026, 12, 7, 8, 0))
        gb.add_notebook("nb", "a1")
        gb.add_grade_cell("q1", "nb", "a1", max_score=2, cell_type="code")
        gb.add_grade_cell("q2", "nb", "a1", max_score=1, cell_type="code")
        gb.add_grade_cell("essay", "nb", "a1", max_score=2, cell_type="markdown")
        scores = {"ana": (2, 1, None), "ben": (0, 1, 2), "cy": (0, 0, 0)}
        for student in ["ana", "ben", "cy", "dee"]:
            gb.add_student(student)
        for student, (q1, q2, essay) in scores.items():
            gb.add_submission("a1", student, timestamp=stamp)
            for gid, auto in [("q1", q1), ("q2", q2)]:
                g = gb.find_grade(gid, "nb", "a1", student)
                g.auto_score, g.needs_manual_grade = auto, False
            g = gb.find_grade("essay", "nb", "a1", student)
            g.needs_manual_grade = essay is None
            g.manual_score = essay
        gb.db.commit()

    def error(ename, evalue):
        return new_output("error", ename=ename, evalue=evalue, traceback=[])

    def test_cell(gid, outputs, diagnosis=None):
        # What GradingExecute records for a test that raised a Misconception: its id as data
        # (attention_grader.common.diagnosis); the error text is only what the student reads.
        meta = {"nbgrader": {"grade": True, "grade_id": gid, "points": 1}}
        if diagnosis:
            meta["attention_grader"] = {"misconception": {"id": diagnosis, "text": "x: text"}}
        return new_code_cell("check()", metadata=meta, outputs=outputs)

    q1 = error("Misconception", "[sum_normalised] You divided by the sum.")
    diagnoses = {
        # ana's q2 output *says* [forgot_scaling] but grading recorded none: not counted
        "ana": ([], [error("Misconception", "[forgot_scaling] forged")], None, None),
        "ben": ([q1], [], "sum_normalised", None),
        "cy": (
            [q1],
            [
                error("Misconception", "q2: reworded, with no id in the text"),
                error("WrongAnswer", "[not_a_slug] still wrong"),
            ],
            "sum_normalised",
            "forgot_scaling",
        ),  # fmt: skip
    }
    for student, (q1_out, q2_out, q1_id, q2_id) in diagnoses.items():
        folder = root / "autograded" / student / "a1"
        folder.mkdir(parents=True)
        cells = [test_cell("q1", q1_out, q1_id), test_cell("q2", q2_out, q2_id)]
        nbformat.write(new_notebook(cells=cells), folder / "nb.ipynb")
    return course


#: A written answer and a formula for :func:`written_fixture` (its model answer holds a rubric).
ESSAY_SOURCE = (
    "### BEGIN SOLUTION\n**Model answer.** Dividing by the sum keeps signs.\n\n"
    "**Rubric (2 points).** 1 point: names a negative score. 1 point: says e^x > 0.\n"
    "### END SOLUTION"
)
MATHS_SOURCE = "**Q3.** Why divide by $\\sqrt{d_k}$? Explain in two sentences."


def written_fixture(tmp: Path) -> Path:
    """A source folder: :data:`FIXTURE` plus a question with maths and a written answer
    ``essay`` (2 points, graded by a teacher). Returns the ``source/`` root to copy from.
    """
    from nbformat.v4 import new_markdown_cell

    root = tmp / "written-source"
    (root / FIXTURE).mkdir(parents=True)
    nb = nbformat.read(FIXTURE_SOURCE / FIXTURE / f"{FIXTURE}.ipynb", as_version=4)
    meta = {"grade": True, "solution": True, "locked": False, "points": 2, "grade_id": "essay"}
    nb.cells.append(new_markdown_cell(MATHS_SOURCE))
    nb.cells.append(
        new_markdown_cell(ESSAY_SOURCE, metadata={"nbgrader": {**meta, "schema_version": 3}})
    )
    nbformat.write(nb, root / FIXTURE / f"{FIXTURE}.ipynb")
    return root


def render_feedback(nb, **grades) -> str:
    """A feedback page of ``nb`` as ``generate_feedback`` renders it (the course's exporter and
    nbgrader's template folders), without a gradebook: ``grades`` holds what ``GetGrades``
    puts in the resources (``score``, ``max_score``, ``late_penalty``, ``ungraded``).
    """
    import os

    import nbgrader
    from attention_grader.pages.feedback_page import FeedbackPageExporter
    from traitlets.config import Config

    here = os.path.join(os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader")
    c = Config()
    c.HTMLExporter.template_name = "feedback"
    c.HTMLExporter.extra_template_basedirs = [os.path.join(here, "templates")]
    css = os.path.join(here, "static", "node_modules", "bootstrap", "dist", "css")
    c.HTMLExporter.extra_template_paths = [css]
    info = {"notebook": "nb", "score": 0, "max_score": 1, "late_penalty": 0, **grades}
    page, _ = FeedbackPageExporter(config=c).from_notebook_node(nb, {"nbgrader": info})
    return page
