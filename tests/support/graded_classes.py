"""One way to build a class and grade it through the real pipeline, shared by the grading tests.

A :class:`ClassSpec` says what is released, who hands in what and how it is graded;
:func:`graded_class` builds and grades it once per test run (the ``shared_class`` fixture of
tests/conftest.py), in whichever pytest-xdist worker asks first (tests/support/run_cache.py), and hands
every module of every worker that asks for an equal spec the same :class:`GradedClass`; it grades a
copy of :func:`built_class`, the class released and handed in once per run for every route. A shared
class is read, never changed: a test that changes its course works on a :func:`clone`. A module
whose class is its own still describes it as a spec, so every class is built the same way.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import nbformat
from attention_grader.common.flag_store import read_flags
from attention_grader.common.summary import BatchSummary
from attention_grader.config.course import CONFIG_FILE, Course, check_result, load_course
from attention_grader.steps.grade import GradeOptions, grade
from attention_grader.steps.release import release

from tests.support.grading_course import DUE, FIXTURE, FIXTURE_SOURCE, hand_in_class, make_course
from tests.support.run_cache import DONE, once_per_run

ROUTES = ("grade", "nbgrader")
#: nbgrader's steps through its Python API in one process per course (generate, grade, validate).
DRIVER = Path(__file__).parents[1] / "fixtures" / "assignments" / "nbgrader_driver.py"


@dataclass(frozen=True)
class ClassSpec:
    """A class to build and grade (equal specs are graded once per run).

    Parameters
    ----------
    name : str
        Folder name of the class under pytest's temporary folder.
    hand_in : callable
        ``hand_in(course)`` places every submission (after the release).
    source : Path
        The ``source/`` folder the assignments are copied from.
    assignments : tuple of str
        What is released, handed in and graded, in this order.
    config : str
        Lines appended to the course's ``nbgrader_config.py`` (time limits, a gradebook URL).
    config_file : Path or None
        A ``nbgrader_config.py`` copied over the course's own first (the repository's).
    db_url : str or None
        The gradebook, given to the course object only (as ``--db-url`` does); ``config`` can
        name it for every process instead.
    due : str or None
        The due date of every assignment.
    generate_only : bool
        ``generate_assignment`` only (nothing released to the exchange, no due date), as the
        attack suite does; else :func:`attention_grader.steps.release.release`.
    route : str
        ``"grade"``: ``make grade`` (:func:`attention_grader.steps.grade.grade`, ``jobs`` workers);
        ``"nbgrader"``: plain ``nbgrader autograde`` in a subprocess.
    jobs : int
        Workers of the ``grade`` route.
    feedback : bool
        After grading, ``nbgrader generate_feedback`` of every assignment (the pages under
        ``feedback/``, not released).
    no_feedback : tuple of str
        Students left out of ``feedback`` (``CourseDirectory.student_id_exclude``): those
        whose pages no test reads.
    """

    name: str
    hand_in: Callable[[Course], None] = field(compare=True)
    source: Path = FIXTURE_SOURCE
    assignments: tuple[str, ...] = (FIXTURE,)
    config: str = ""
    config_file: Path | None = None
    db_url: str | None = None
    due: str | None = DUE
    generate_only: bool = False
    route: str = "grade"
    jobs: int = 2
    feedback: bool = False
    no_feedback: tuple[str, ...] = ()

    def __post_init__(self):
        if self.route not in ROUTES:
            raise ValueError(f"route must be one of {ROUTES}, not {self.route!r}")


@dataclass(frozen=True)
class GradedClass:
    """A graded class: its course and, per assignment, the ``grade`` route's summary or the
    ``nbgrader`` route's output (``nbgrader autograde``'s log, stdout and stderr together).
    """

    course: Course
    summaries: dict[str, BatchSummary | None]
    logs: dict[str, str] = field(default_factory=dict)

    @property
    def summary(self) -> BatchSummary | None:
        """The summary of the only (or first) assignment."""
        return next(iter(self.summaries.values()))


#: Every class this process has read, by spec.
_GRADED: dict[ClassSpec, GradedClass] = {}
#: What :func:`graded_class` keeps beside the course: the summaries and logs, pickled.
_RESULTS = "results.pickle"


def build_class(folder: Path, spec: ClassSpec) -> Course:
    """The course of ``spec`` in ``folder``, released (or generated) and handed in, not graded."""
    make_course(
        folder, spec.assignments, spec.source, config_file=spec.config_file, config=spec.config
    )
    course = _load(folder, spec)
    for assignment in spec.assignments:
        if spec.generate_only:
            result = course.api().generate_assignment(assignment, force=True)
            check_result(result, "generate_assignment")
        else:
            release(course, assignment, duedate=spec.due)
    spec.hand_in(course)
    return course


def built_class(folder: Path, spec: ClassSpec) -> Course:
    """:func:`build_class` of ``spec`` in ``folder``, copied from the run's one build of it.

    What a class is before grading does not depend on its name or how it is graded (``route``,
    ``jobs``, ``feedback``, ``no_feedback``): the two routes' classes of one module, and a module that grades a
    copy of a class another grades, share one release (the release check runs the solution in a
    kernel) and one hand-in. A class whose gradebook is not a file in its course (``db_url``, a
    gradebook URL in ``config``) is built in ``folder`` itself.
    """
    if spec.db_url is not None or "db_url" in spec.config:
        return build_class(folder, spec)
    before = replace(spec, name="built", route=ROUTES[0], jobs=1, feedback=False, no_feedback=())
    built = once_per_run(f"built-{run_key(before)}", lambda f: _build(f, before), Path)

    def not_done(parent: str, names: list[str]) -> list[str]:  # the copy is not yet graded
        return [DONE] if Path(parent) == built else []

    shutil.copytree(built, folder, symlinks=True, dirs_exist_ok=True, ignore=not_done)
    config = folder / "course" / CONFIG_FILE  # names its exchange by its full path
    exchange = (repr(str(built / "exchange")), repr(str(folder / "exchange")))
    config.write_text(config.read_text().replace(*exchange))
    return _load(folder, spec)


def _build(folder: Path, spec: ClassSpec) -> None:
    build_class(folder, spec)


def _load(folder: Path, spec: ClassSpec) -> Course:
    return load_course(folder / "course", exchange=folder / "exchange", db_url=spec.db_url)


def _nbgrader_autograde(course: Course, assignment: str) -> str:
    # nbgrader runs `alembic` from PATH when it creates the gradebook.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")
    cmd = [sys.executable, "-m", "nbgrader", "autograde", assignment, "--force"]
    run = subprocess.run(cmd, cwd=course.root, env=env, check=True, capture_output=True,
                         text=True, timeout=1800)  # fmt: skip
    return run.stdout + run.stderr


def grade_class(course: Course, spec: ClassSpec) -> GradedClass:
    """Grade every assignment of ``spec`` in ``course`` by the spec's route."""
    summaries: dict[str, BatchSummary | None] = {}
    logs: dict[str, str] = {}
    for assignment in spec.assignments:
        if spec.route == "nbgrader":
            logs[assignment] = _nbgrader_autograde(course, assignment)
            summaries[assignment] = None
        else:
            options = GradeOptions(jobs=spec.jobs, progress=False)
            summaries[assignment] = grade(course, assignment, options)
        if spec.feedback:
            api = course.api()
            api.coursedir.student_id_exclude = ",".join(spec.no_feedback)
            result = api.generate_feedback(assignment, force=True)
            check_result(result, "generate_feedback")
    return GradedClass(course, summaries, logs)


def run_key(spec: ClassSpec) -> str:
    """The run cache's name for ``spec``: equal specs, and only they, get the same key.

    Made of every field (the hand-in by its module, name and the values its closure holds), so
    two modules of two workers that describe the same class share it, and a spec that differs in
    anything, even under the same name, is built apart.
    """
    hand_in = spec.hand_in
    cells = tuple(c.cell_contents for c in hand_in.__closure__ or ())
    fields = {k: v for k, v in vars(spec).items() if k != "hand_in"}
    described = repr((fields, hand_in.__module__, hand_in.__qualname__, cells))
    return f"class-{spec.name}-{hashlib.sha256(described.encode()).hexdigest()[:16]}"


def graded_class(spec: ClassSpec) -> GradedClass:
    """``spec`` built and graded once per run, whichever process asks first (see the module
    docstring).
    """
    if spec not in _GRADED:

        def build(folder: Path) -> None:
            graded = grade_class(built_class(folder, spec), spec)
            (folder / _RESULTS).write_bytes(pickle.dumps((graded.summaries, graded.logs)))

        def read(folder: Path) -> GradedClass:
            summaries, logs = pickle.loads((folder / _RESULTS).read_bytes())
            return GradedClass(_load(folder, spec), summaries, logs)

        _GRADED[spec] = once_per_run(run_key(spec), build, read)
    return _GRADED[spec]


def start_steps(course: Path, *args: str) -> subprocess.Popen:
    """:data:`DRIVER` on ``course`` (``generate A...``, ``grade A``, ``validate NB...``), started
    so that several courses run side by side; :func:`finish_steps` reads its result.
    """
    cmd = [sys.executable, str(DRIVER), str(course), *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_steps(proc: subprocess.Popen, timeout: float = 900) -> dict:
    """The JSON result of a :func:`start_steps` process, once it has succeeded."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"nbgrader driver failed:\n{err[-3000:]}"
    return json.loads(out.strip().splitlines()[-1])


#: grade_id -> (the teacher's solution, the test, the attacker's answer)
Questions = dict[str, tuple[str, str, str]]


def question_source(root: Path, assignment: str, questions: Questions) -> Path:
    """Write ``root/<assignment>/<assignment>.ipynb``: per question, its solution cell
    ``answer_<name>`` and its test cell ``test_<name>`` (1 point). Returns ``root``.
    """
    from nbformat.v4 import new_code_cell, new_notebook

    from tests.support.nbgrader_cells import nbgrader_meta

    cells = []
    for name, (solution, test, _) in questions.items():
        body = f"### BEGIN SOLUTION\n{solution}\n### END SOLUTION"
        cells.append(new_code_cell(body, metadata=nbgrader_meta(f"answer_{name}", solution=True)))
        meta = nbgrader_meta(f"test_{name}", grade=True, locked=True)
        cells.append(new_code_cell(test, metadata=meta))
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    (root / assignment).mkdir(parents=True)
    nb = new_notebook(cells=cells, metadata={"kernelspec": kernelspec})
    nbformat.write(nb, root / assignment / f"{assignment}.ipynb")
    return root


def attack_class(
    name: str,
    source: Path,
    questions: Questions,
    students: tuple[str, ...],
    attacker: str,
    config: str = "",
    route: str = "grade",
) -> ClassSpec:
    """The class of :func:`question_source`'s notebook (its assignment is the folder's one
    assignment): every student hands in the solutions, ``attacker`` her answers.
    """
    (assignment,) = [p.name for p in source.iterdir()]

    def hand_in(course: Course) -> None:
        released = nbformat.read(course.root / "release" / assignment / f"{assignment}.ipynb", 4)
        for student in students:
            nb = nbformat.from_dict(released)
            for cell in nb.cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
                if grade_id.startswith("answer_"):
                    solution, _, attack = questions[grade_id.removeprefix("answer_")]
                    cell.source = attack if student == attacker else solution
            folder = course.root / "submitted" / student / assignment
            folder.mkdir(parents=True)
            nbformat.write(nb, folder / f"{assignment}.ipynb")

    return ClassSpec(
        name, hand_in=hand_in, source=source, assignments=(assignment,), config=config,
        generate_only=True, route=route,
    )  # fmt: skip


def cell_scores_and_flags(
    course: Course, assignment: str, students: tuple[str, ...]
) -> tuple[dict[str, dict[str, float]], dict[str, list]]:
    """Each student's automatic score per graded cell of ``<assignment>.ipynb``, and her flags."""
    scores, flags = {}, {}
    with course.gradebook() as gb:
        for student in students:
            cells = gb.find_submission_notebook(assignment, assignment, student)
            scores[student] = {g.name: g.auto_score for g in cells.grades}
            path = course.root / "autograded" / student / assignment / f"{assignment}.ipynb"
            flags[student] = read_flags(nbformat.read(path, as_version=4))
    return scores, flags


def clone(course: Course, dest: Path) -> Course:
    """A copy of a course folder to change (its gradebook and exchange paths stay valid)."""
    shutil.copytree(course.root, dest / "course")
    return load_course(dest / "course", exchange=course.exchange)


#: The fixture class of tests/support/grading_course.py: alice (correct), bob (misconceived), dana
#: (blank) and eli (correct, late), graded by ``make grade`` with two workers.
STANDARD = ClassSpec("standard", hand_in=hand_in_class)
