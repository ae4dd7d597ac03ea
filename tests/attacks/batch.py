"""The attack suite's course: one small assignment, one submission per attack, one autograde run.

Every ``tests/attacks/<name>.py`` (except this file) is a student's submission:

* ``ANSWERS``: grade_id -> source of that solution cell (honest answers fill the rest);
* ``EDIT`` / ``DELETE`` (optional): test cells the student edited or deleted;
* ``FILES`` (optional): file name (``/`` for a subfolder) -> text of extra files handed in
  next to the notebook;
* ``TAGS`` (optional): grade_id -> cell tags the student set (``skip-execution``, ...);
* ``EXTRA_CELLS`` (optional): cells the student added, each ``{"after": grade_id, "source": ...}``
  with optional forged ``"nbgrader"`` metadata and ``"cell_type": "markdown"`` (code by default);
* ``MOVE`` (optional): grade_id -> grade_id: the student drags the first cell to just below
  the second (read-only and test cells too);
* ``STUDENT`` (optional): the student id, i.e. the submission folder's name (default: the file's
  name): ids are whatever a folder is called;
* ``EXPECT_SCORE``: the points the submission must get (out of 3);
* ``EXPECT_FLAGS``: tamper kinds the batch summary must list for that student.

Sources may contain ``{port}`` (a loopback port the grader listens on), ``{course}`` (the course
folder), ``{library}`` (the real ``attention_lab`` folder) and ``{token}`` (a random name part for files an attack tries to leak to the host's /tmp),
filled in when the batch is built; literal braces are doubled. :func:`graded_batch` grades everything once
per test run with plain ``nbgrader autograde`` configured by
:func:`attention_grader.pipeline.configure` (sandbox on), and :func:`graded_batch_parallel` grades the
same submissions with the teacher's parallel grader (``make grade``). Each is graded by whichever
pytest-xdist worker asks first, into the run's folder (tests/support/run_cache.py); the others read it.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import secrets
import shutil
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from attention_grader.common.flag_store import read_flags
from attention_grader.sandbox.implement_it import IMPLEMENT_IT_TAG
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.support.nbgrader_cells import nbgrader_meta as _meta
from tests.support.run_cache import once_per_run

HERE = Path(__file__).parent
#: The real attention_lab folder on the grading machine (what a student would try to read).
LIBRARY = os.path.realpath(importlib.util.find_spec("attention_lab").submodule_search_locations[0])
ASSIGNMENT = "attacklab"
MAX_SCORE = 3.0

GRADECHECK = '''"""The fixture's check module (like attention_lab.checks: coerce, compare, raise)."""

import numpy as np


class WrongAnswer(AssertionError):
    """The answer is not right."""


def check_close(answer, expected):
    try:
        arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise WrongAnswer("expected numbers") from None
    if arr.shape != np.shape(expected) or not np.allclose(arr, expected):
        raise WrongAnswer("not the right numbers")
'''

HONEST = {
    "q1": "weights = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()",
    "q2": (
        "def softmax(x):\n"
        "    x = np.asarray(x, dtype=float)\n"
        "    e = np.exp(x - x.max())\n"
        "    return e / e.sum()"
    ),
    "q3": 'answer_q3 = "values"',
}

TESTS = {
    "test_q1": (
        'assert weights is not None, "set weights"\n'
        "### BEGIN HIDDEN TESTS\n"
        "gradecheck.check_close(weights, np.exp([1.0, 2.0, 3.0]) / np.sum(np.exp([1.0, 2.0, 3.0])))\n"
        "### END HIDDEN TESTS"
    ),
    "test_q2": (
        'assert callable(softmax), "define softmax"\n'
        "### BEGIN HIDDEN TESTS\n"
        "assert np.allclose(softmax(np.array([1000.0, 1000.0])), [0.5, 0.5])\n"
        "assert_allclose(softmax([0.0, 1.0]), np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum())\n"
        "### END HIDDEN TESTS"
    ),
    "test_q3": 'assert answer_q3 == "values", "which matrix gets mixed?"',
}


def source_notebook() -> nbformat.NotebookNode:
    """The instructor's notebook: imports, three answers, three autograder tests (1 point each)."""
    cells = [
        new_markdown_cell("# Attack lab", metadata=_meta("intro", locked=True)),
        new_code_cell(
            "import numpy as np\nimport gradecheck\nfrom attention_lab import checks",
            metadata=_meta("imports", locked=True),
        ),
        # A plain cell students get as it is: the library function test_q2 uses (issue #26).
        new_code_cell("from numpy.testing import assert_allclose"),
    ]
    for q in ("q1", "q2", "q3"):
        body = f"### BEGIN SOLUTION\n{HONEST[q]}\n### END SOLUTION"
        cells.append(new_code_cell(body, metadata=_meta(q, solution=True)))
        if q == "q2":  # "implement softmax": graded in a kernel without attention_lab
            cells[-1].metadata["tags"] = [IMPLEMENT_IT_TAG]
        test = f"test_{q}"
        cells.append(
            new_code_cell(TESTS[test], metadata=_meta(test, grade=True, locked=True, points=1))
        )
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


@dataclass
class Attack:
    """One fixture submission."""

    name: str
    doc: str
    answers: dict
    edit: dict = field(default_factory=dict)
    delete: list = field(default_factory=list)
    files: dict = field(default_factory=dict)
    tags: dict = field(default_factory=dict)
    extra_cells: list = field(default_factory=list)
    move: dict = field(default_factory=dict)
    expect_score: float = 0.0
    expect_flags: set = field(default_factory=set)
    student: str = ""

    @property
    def sid(self) -> str:
        """The student id the submission is handed in under."""
        return self.student or self.name


def load_attacks() -> list[Attack]:
    """Every submission in ``tests/attacks/`` (the honest ones included)."""
    out = []
    for path in sorted(HERE.glob("*.py")):
        if path.stem in ("batch", "__init__", "conftest"):
            continue
        spec = importlib.util.spec_from_file_location(f"attack_{path.stem}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out.append(
            Attack(
                name=path.stem,
                doc=(mod.__doc__ or "").strip().splitlines()[0],
                answers=dict(getattr(mod, "ANSWERS", {})),
                edit=dict(getattr(mod, "EDIT", {})),
                delete=list(getattr(mod, "DELETE", [])),
                files=dict(getattr(mod, "FILES", {})),
                tags=dict(getattr(mod, "TAGS", {})),
                extra_cells=list(getattr(mod, "EXTRA_CELLS", [])),
                move=dict(getattr(mod, "MOVE", {})),
                expect_score=float(mod.EXPECT_SCORE),
                expect_flags=set(getattr(mod, "EXPECT_FLAGS", set())),
                student=getattr(mod, "STUDENT", ""),
            )
        )
    return out


#: Attacks that act only on Python objects inside their own kernel (its modules, builtins, hooks,
#: the answers' types, the library's code): what they earn is decided by the kernel and the
#: grader's checking of its replies, which both routes run alike (the parallel grader's workers
#: run nbgrader's Autograde with the course's pipeline unchanged:
#: tests/attention_grader/steps/test_grade.py::test_workers_run_the_course_pipeline_unchanged).
#: The parallel batch leaves them out, as one grading serves both routes; it grades every attack
#: on what differs between the routes: the worker's process and budget (time, memory, a killed or
#: exiting kernel, costly answers), files handed in or written, the network, the student ids,
#: the notebook's structure, the pages, and the honest students beside them. The library handed
#: in as her own code stays in both: each route mounts the stub over what its kernel imports.
KERNEL_ONLY = frozenset({
    "audit_hook_leak", "audit_hook_rebind", "ctypes_tolerances", "disable_tracebacks",
    "fake_answer_array", "fake_answer_eq", "fake_passed_output", "patch_checks", "patch_numpy",
    "patch_sys_modules", "print_history", "rebind_imported_assert", "redefine_builtins",
    "rewrite_check_code", "set_parent_rewrite", "skip_grader_requests", "smuggle_result",
    "swallow_errors",
})  # fmt: skip
ROUTES = ("nbgrader", "parallel")


def attacks_for(route: str) -> list[Attack]:
    """The attacks the ``route`` batch grades: all by plain nbgrader, all but
    :data:`KERNEL_ONLY` by the parallel grader.
    """
    if route not in ROUTES:
        raise ValueError(f"route must be one of {ROUTES}, not {route!r}")
    attacks = load_attacks()
    return attacks if route == "nbgrader" else [a for a in attacks if a.name not in KERNEL_ONLY]


def submission(
    released: nbformat.NotebookNode, attack: Attack, fill: dict
) -> nbformat.NotebookNode:
    """The released notebook as this attacker hands it in."""
    nb = nbformat.from_dict(released)
    keep = []
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in attack.delete:
            continue
        if grade_id in HONEST:
            cell.source = attack.answers.get(grade_id, HONEST[grade_id]).format(**fill)
        if grade_id in attack.edit:
            cell.source = attack.edit[grade_id].format(**fill)
        if grade_id in attack.tags:
            cell.metadata["tags"] = list(attack.tags[grade_id])
        keep.append(cell)
        for extra in attack.extra_cells:
            if extra["after"] == grade_id:
                make = new_markdown_cell if extra.get("cell_type") == "markdown" else new_code_cell
                added = make(extra["source"].format(**fill))
                if "nbgrader" in extra:
                    added.metadata["nbgrader"] = dict(extra["nbgrader"])
                keep.append(added)
    for moved, below in attack.move.items():
        cell = next(c for c in keep if c.metadata.get("nbgrader", {}).get("grade_id") == moved)
        keep.remove(cell)
        at = next(
            i for i, c in enumerate(keep) if c.metadata.get("nbgrader", {}).get("grade_id") == below
        )
        keep.insert(at + 1, cell)
    nb.cells = keep
    return nb


class Listener:
    """A loopback TCP server on the grader's side that records whether anyone connected."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.connections += 1
            conn.close()

    def close(self):
        self._stop.set()
        self._thread.join(timeout=2)
        self.sock.close()


@dataclass
class Batch:
    """The graded batch: scores and flags per submission, and what the attacks could observe."""

    roots: list
    attacks: list
    honest_copies: list
    scores: dict
    flags: dict
    log: str
    listener_connections: int
    leaked: list
    source_digests_ok: bool
    paths: dict

    def outputs(self, key: str) -> str:
        """All text outputs of one submission's autograded notebook, joined."""
        nb = nbformat.read(self.paths[key], as_version=4)
        texts = []
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                texts.append(out.get("text", "") + out.get("ename", "") + out.get("evalue", ""))
        return "\n".join(texts)


def _digest(folder: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _env() -> dict:
    # nbgrader runs `alembic` from PATH when it creates the gradebook.
    return dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}")


def _nbgrader_start(root: Path, *args: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "nbgrader", *args]
    out = subprocess.PIPE
    return subprocess.Popen(
        cmd, cwd=root, stdout=out, stderr=subprocess.STDOUT, text=True, env=_env()
    )


GROUPS = 3  # courses graded side by side: kernel start-up is mostly waiting on imports


def _write_config(root: Path) -> None:
    """The course's own settings (nbgrader_config.py's pipeline, feedback page and formgrader
    view), with shorter time limits.
    """
    (root / "nbgrader_config.py").write_text(
        "from attention_grader.pipeline import configure\n"
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(root)!r}\n"
        "c.CourseDirectory.course_id = 'attack-course'\n"
        "c.Execute.timeout = 8\n"
        "c.GradingExecute.notebook_timeout = 60\n"
        "configure(c)\n"
    )


def _make_courses(tmp: Path, count: int) -> list[Path]:
    """``count`` identical courses with the assignment generated (once, then copied)."""
    first = tmp / "course0"
    src = first / "source" / ASSIGNMENT
    src.mkdir(parents=True)
    nbformat.write(source_notebook(), src / f"{ASSIGNMENT}.ipynb")
    (src / "gradecheck.py").write_text(GRADECHECK)
    _write_config(first)
    # In-process through attention_grader's course API (no second nbgrader start-up).
    from attention_grader.config.course import check_result, load_course

    api = load_course(first).api()
    check_result(api.generate_assignment(ASSIGNMENT, force=True), "generate_assignment")
    roots = [first]
    for g in range(1, count):
        root = tmp / f"course{g}"
        shutil.copytree(first, root)
        _write_config(root)
        roots.append(root)
    return roots


def _scores(root: Path, students) -> dict:
    from nbgrader.api import Gradebook, MissingEntry

    out = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "attack-course") as gb:
        for student in students:
            try:
                out[student] = gb.find_submission(ASSIGNMENT, student).score
            except MissingEntry:
                out[student] = None
    return out


def _hand_in(roots: list[Path], attacks: list[Attack], port: int, token: str) -> list[list]:
    """Write every attack's submission into the courses (round-robin); return each course's."""
    honest = next(a for a in attacks if a.name == "honest_full")
    members = []
    for g, root in enumerate(roots):
        released = nbformat.read(
            root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4
        )
        group = [a for i, a in enumerate(attacks) if i % GROUPS == g and a is not honest]
        group.append(honest)
        fill = {"port": port, "course": str(root), "token": token, "library": LIBRARY}
        for attack in group:
            folder = root / "submitted" / attack.sid / ASSIGNMENT
            folder.mkdir(parents=True)
            nbformat.write(submission(released, attack, fill), folder / f"{ASSIGNMENT}.ipynb")
            (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
            for name, text in attack.files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_text(text)
        members.append(group)
    return members


def _grade_with_nbgrader(roots: list[Path]) -> str:
    procs = []
    try:
        procs = [_nbgrader_start(root, "autograde", ASSIGNMENT, "--force") for root in roots]
        return "\n".join(p.communicate(timeout=900)[0] for p in procs)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def _grade_in_parallel(roots: list[Path]) -> str:
    """The teacher's ``make grade`` path: ``attention_grader.steps.grade.grade`` with two workers."""
    from attention_grader.config.course import load_course
    from attention_grader.steps.grade import GradeOptions, grade

    logs = []
    for root in roots:
        options = GradeOptions(jobs=2, force=True, progress=False)
        summary = grade(load_course(root), ASSIGNMENT, options)
        summary.write(root / "reports" / ASSIGNMENT)  # as `make grade` does: the CSV is checked
        logs.append(summary.log)
    return "\n".join(logs)


def _graded(route: str, tmp: Path) -> Batch:
    """Build the courses in ``tmp``, hand in every attack, autograde them through ``route``.

    The attacks are dealt round-robin into :data:`GROUPS` identical courses, each with its own
    ``honest_full`` student (graded alongside the attacks of its course).
    """
    attacks = attacks_for(route)
    honest = next(a for a in attacks if a.name == "honest_full")
    listener = Listener()
    token = secrets.token_hex(6)
    try:
        roots = _make_courses(tmp, GROUPS)
        members = _hand_in(roots, attacks, listener.port, token)
        digests = [_digest(root / "source") for root in roots]
        log = _grade_with_nbgrader(roots) if route == "nbgrader" else _grade_in_parallel(roots)
    finally:
        listener.close()

    scores, flags, extra_honest, paths = {}, {}, [], {}
    for g, (root, group) in enumerate(zip(roots, members, strict=True)):
        course_scores = _scores(root, [a.sid for a in group])
        for attack in group:
            key = attack.name if (attack is not honest or g == 0) else f"honest_full@course{g}"
            if key != attack.name:
                extra_honest.append(key)
            scores[key] = course_scores[attack.sid]
            paths[key] = root / "autograded" / attack.sid / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            graded = paths[key].exists()
            flags[key] = read_flags(nbformat.read(paths[key], as_version=4)) if graded else []
    return Batch(
        roots=roots,
        attacks=attacks,
        honest_copies=["honest_full", *extra_honest],
        scores=scores,
        flags=flags,
        log=log,
        listener_connections=listener.connections,
        leaked=sorted(Path("/tmp").glob(f"*{token}*")) + sorted(tmp.rglob(f"*{token}*")),
        source_digests_ok=[_digest(r / "source") for r in roots] == digests,
        paths=paths,
    )


def _graded_once(route: str) -> Batch:
    """:func:`_graded` once per test run, for every process (its courses in the run's folder)."""

    def build(folder: Path) -> None:
        (folder / "batch.pickle").write_bytes(pickle.dumps(_graded(route, folder)))

    def read(folder: Path) -> Batch:
        return pickle.loads((folder / "batch.pickle").read_bytes())

    return once_per_run(f"attacks-{route}", build, read)


def graded_batch() -> Batch:
    """Every attack graded by plain ``nbgrader autograde`` with the course config (cached)."""
    return _graded_once("nbgrader")


def graded_batch_parallel() -> Batch:
    """Every attack graded by the parallel grader, as ``make grade`` does (cached)."""
    return _graded_once("parallel")
