"""Grading throughput: ``make grade JOBS=2`` vs sequential ``nbgrader autograde`` vs bare nbclient.

One run builds a temporary course with 40 synthetic submissions of one assignment (a mix of model
answers, a misconception and blank notebooks), then times, as whole commands:

* ``nbgrader autograde <assignment>`` (sequential, nbgrader's CLI) on one copy of the course;
* ``make grade A=<assignment> JOBS=2 COURSE=<copy>`` (our parallel grader) on another copy;
* the floor: the same autograded notebooks executed by bare ``nbclient`` in 2 processes (no
  nbgrader, no gradebook), as one command too.

``ATTENTION_BENCH_SUBMISSIONS=8 python -m benchmarks grading`` runs a smaller class.
"""

from __future__ import annotations

import copy
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from benchmarks import Row

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "intro_attention"
N_SUBMISSIONS = int(os.environ.get("ATTENTION_BENCH_SUBMISSIONS", "40"))
JOBS = 2

FLOOR_SCRIPT = """
import sys, multiprocessing
import nbformat
from nbclient import NotebookClient

def run(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": path.rsplit("/", 1)[0]}}).execute()

if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(int(sys.argv[1])) as pool:
        pool.map(run, sys.argv[2:], chunksize=1)
"""


def _variants(source: Path) -> list[dict[str, str]]:
    """Answer sets cycled over the class: model answers, one misconception, blank."""
    nb = nbformat.read(source, as_version=4)
    model = {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in nb.cells
        if c.metadata.get("nbgrader", {}).get("solution")
    }
    wrong = dict(model)
    if "answer_q2" in wrong:
        wrong["answer_q2"] = 'answer_q2 = "d"'
    return [model, wrong, {}]


def _build_course(tmp: Path) -> Path:
    from attention_grader.course import new_course
    from attention_grader.release import release

    course = new_course(tmp, REPO / "source", [ASSIGNMENT])
    root = course.root
    release(course, ASSIGNMENT)
    released = nbformat.read(root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    variants = _variants(root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    for i in range(N_SUBMISSIONS):
        nb = copy.deepcopy(released)
        answers = variants[i % len(variants)]
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if gid in answers:
                cell.source = answers[gid]
        folder = root / "submitted" / f"student{i:03d}" / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
        (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
    return root


def _timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Run ``cmd``; return (wall seconds, CPU seconds of it and all its children, kernels too)."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(cmd[:4])} failed:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}"
        )
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return elapsed, cpu


def _scores(root: Path) -> dict[str, float]:
    from attention_grader.course import load_course

    with load_course(root).gradebook() as gb:
        return {s.student.id: s.score for s in gb.assignment_submissions(ASSIGNMENT)}


def rows() -> list[Row]:
    if not (REPO / "source" / ASSIGNMENT).is_dir():
        raise FileNotFoundError(f"source/{ASSIGNMENT} is missing; the benchmark grades it")
    tmp = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    try:
        base = _build_course(tmp / "base")
        seq_root, par_root = tmp / "seq", tmp / "par"
        shutil.copytree(base, seq_root)
        shutil.copytree(base, par_root)
        bin_dir = Path(sys.executable).parent

        load = [os.getloadavg()[0]]
        t_par, cpu_par = _timed(
            [
                "make",
                "-s",
                "-C",
                str(REPO),
                "grade",
                f"A={ASSIGNMENT}",
                f"JOBS={JOBS}",
                f"COURSE={par_root}",
                "GRADE_ARGS=--no-progress",
            ],  # fmt: skip
            REPO,
        )
        load.append(os.getloadavg()[0])
        t_seq, cpu_seq = _timed([str(bin_dir / "nbgrader"), "autograde", ASSIGNMENT], seq_root)
        load.append(os.getloadavg()[0])
        if _scores(seq_root) != _scores(par_root):
            raise AssertionError("parallel and sequential grading disagree on some score")
        graded = sorted(str(p) for p in (seq_root / "autograded").glob(f"*/{ASSIGNMENT}/*.ipynb"))
        script = tmp / "floor.py"
        script.write_text(FLOOR_SCRIPT)
        t_floor, cpu_floor = _timed([sys.executable, str(script), str(JOBS), *graded], tmp)
        load.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    n = N_SUBMISSIONS
    speedup = t_seq / t_par
    per_ours, per_floor = t_par / n, t_floor / n
    # Other processes on the machine change wall times; CPU seconds per submission do not.
    busy = f"load avg {min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores"
    return [
        Row(
            "grading",
            f"autograde {n} submissions of {ASSIGNMENT}: make grade JOBS={JOBS} ({busy})",
            f"{t_par:.1f} s wall",
            f"{t_seq:.1f} s sequential nbgrader autograde",
            f"{speedup:.2f}x faster",
            ">= 1.7x on 2 cores",
            speedup >= 1.7,
        ),
        Row(
            "grading",
            f"per submission, make grade JOBS={JOBS} vs bare nbclient in {JOBS} processes",
            f"{per_ours:.2f} s/submission",
            f"{per_floor:.2f} s/submission (floor)",
            f"{per_ours / per_floor:.2f}x the floor",
            "<= 1.3x the floor",
            per_ours / per_floor <= 1.3,
        ),
        Row(
            "grading",
            "CPU per submission incl. kernel (same runs; load-independent)",
            f"{cpu_par / n:.2f} s ours",
            f"{cpu_floor / n:.2f} s floor, {cpu_seq / n:.2f} s sequential nbgrader",
            f"{cpu_par / cpu_floor:.2f}x the floor",
            "<= 1.3x the floor",
            cpu_par / cpu_floor <= 1.3,
        ),
    ]
