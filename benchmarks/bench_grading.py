"""Grading throughput: ``make grade JOBS=2`` vs sequential ``nbgrader autograde`` vs bare nbclient.

One run builds a temporary course with 40 synthetic submissions of one assignment (a mix of model
answers, a misconception and blank notebooks), then times, as whole commands:

* ``make grade A=<assignment> JOBS=2 COURSE=<copy>``: our parallel grader with the course's
  pipeline, as teachers run it (hidden tests in the grader's process, sandboxed kernels);
* ``nbgrader autograde <assignment>`` (sequential, nbgrader's CLI) on another copy of the course,
  with the same course config;
* the floor: the same autograded notebooks executed by bare ``nbclient`` in 2 processes (no
  nbgrader, no gradebook, no sandbox, tests in the kernel), as one command too.

Wall times of commands run one after another are at the mercy of whatever else the machine does,
so the three are measured in rounds (3 by default), each on fresh copies of the built course, with
the order rotated from round to round (ours, seq, floor; then seq, floor, ours; then floor, ours,
seq; ...) so slow drift hits all three alike. The rows report the medians of the wall and CPU times
and judge the targets on the median of the per-round ratios, showing their min..max range. Each
round checks that parallel and sequential grading give the same scores. The floor runs the
notebooks autograded by round 0's sequential run (round 0 always runs the floor last).

CPU times are those of each command and all its descendants, kernels included: on Linux the
benchmark becomes a child subreaper while it runs, so processes orphaned by their parent (a kernel
killed and never waited for) are re-parented to it and reaped after each command, and their CPU
counts too. Elsewhere the CPU row says it may be undercounted. Per-round figures go to stderr.

``ATTENTION_BENCH_SUBMISSIONS=8 ATTENTION_BENCH_ROUNDS=2 python -m benchmarks grading`` runs a
smaller class in fewer rounds.
"""

from __future__ import annotations

import contextlib
import copy
import ctypes
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat

from benchmarks import Row

REPO = Path(__file__).resolve().parents[1]
ASSIGNMENT = "intro_attention"
N_SUBMISSIONS = int(os.environ.get("ATTENTION_BENCH_SUBMISSIONS", "40"))
ROUNDS = max(1, int(os.environ.get("ATTENTION_BENCH_ROUNDS", "3")))
JOBS = 2
#: GRADE_ARGS of a second ``make grade`` arm measured in the same rounds (a before/after of one
#: setting, e.g. ``--GradingExecute.start_kernel_ahead=False``); "" = no second arm.
B_ARGS = os.environ.get("ATTENTION_BENCH_B_ARGS", "")
COMMANDS = ("ours", "seq", "floor", *(("ours_b",) if B_ARGS else ()))  # rotated left by r
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37  # <linux/prctl.h>
REAP_GRACE_S = 5.0  # how long to wait for adopted orphans that are still exiting

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
    from attention_grader.config.course import new_course
    from attention_grader.steps.release import release

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


@contextlib.contextmanager
def _subreaper() -> Iterator[bool]:
    """Inside, this process adopts its orphaned descendants (Linux ``PR_SET_CHILD_SUBREAPER``).

    Yields whether it does; False where ``prctl`` is unavailable. Restores the previous setting.
    """
    previous = ctypes.c_int(0)
    prctl = None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
        on = (
            prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(previous), 0, 0, 0) == 0
            and prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        )
    except (OSError, AttributeError, TypeError):
        on = False
    try:
        yield on
    finally:
        if on:
            prctl(PR_SET_CHILD_SUBREAPER, previous.value, 0, 0, 0)


def _reap_orphans() -> bool:
    """Reap the orphans this subreaper adopted, so their CPU time lands in ``RUSAGE_CHILDREN``.

    Waits up to ``REAP_GRACE_S`` for adopted processes that are still exiting. Returns True when
    some are still running after that (their CPU time will count in a later command).
    """
    deadline = time.monotonic() + REAP_GRACE_S
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:  # no children left at all
            return False
        if pid == 0:  # children left, none exited yet
            if time.monotonic() >= deadline:
                return True
            time.sleep(0.02)


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(cmd: list[str], cwd: Path, reap: bool) -> tuple[float, float, bool]:
    """Run ``cmd``; return wall seconds, CPU seconds, and whether orphans outlived it.

    The CPU seconds are of ``cmd`` and all its descendants; the last value says whether adopted
    orphans were still running afterwards. ``reap``: this process is a subreaper.
    """
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    before = _cpu_children()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    left_running = _reap_orphans() if reap else False
    cpu = _cpu_children() - before
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(cmd[:4])} failed:\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}"
        )
    return elapsed, cpu, left_running


def _scores(root: Path) -> dict[str, float]:
    from attention_grader.config.course import load_course

    with load_course(root).gradebook() as gb:
        return {s.student.id: s.score for s in gb.assignment_submissions(ASSIGNMENT)}


def _spread(ratios: list[float]) -> str:
    return f"rounds {min(ratios):.2f}..{max(ratios):.2f}x"


def _command(which: str, work: Path, floor_input: Path, script: Path) -> tuple[list[str], Path]:
    """Command line and working folder of ``ours``, ``seq`` or ``floor`` in a round's folder."""
    if which in ("ours", "ours_b"):
        make = ["make", "-s", "-C", str(REPO), "grade", f"A={ASSIGNMENT}", f"JOBS={JOBS}"]
        extra = f" {B_ARGS}" if which == "ours_b" else ""
        folder = work / ("parb" if which == "ours_b" else "par")
        return [*make, f"COURSE={folder}", f"GRADE_ARGS=--no-progress{extra}"], REPO
    if which == "seq":
        return [
            str(Path(sys.executable).parent / "nbgrader"),
            "autograde",
            ASSIGNMENT,
        ], work / "seq"
    # Round 0 runs the floor last, so its input (that round's autograded notebooks) exists by then.
    shutil.copytree(floor_input, work / "floor")
    graded = sorted(str(p) for p in (work / "floor").glob(f"*/{ASSIGNMENT}/*.ipynb"))
    if len(graded) != N_SUBMISSIONS:
        raise RuntimeError(f"floor: {len(graded)} notebooks, expected {N_SUBMISSIONS}")
    return [sys.executable, str(script), str(JOBS), *graded], work


def _round(r: int, base: Path, tmp: Path, reaper: bool) -> tuple[dict, list[float], int]:
    """Round ``r``: the three commands in rotated order on fresh copies of ``base``.

    Returns ``{command: (wall s, CPU s)}``, the load averages seen and how many commands left
    adopted processes running.
    """
    n, work = N_SUBMISSIONS, tmp / f"round{r}"
    floor_input, script = tmp / "floor-input", tmp / "floor.py"
    shutil.copytree(base, work / "par")
    shutil.copytree(base, work / "seq")
    if B_ARGS:
        shutil.copytree(base, work / "parb")
    k = r % len(COMMANDS)
    order = COMMANDS[k:] + COMMANDS[:k]
    measured, load, stragglers = {}, [os.getloadavg()[0]], 0
    for which in order:
        wall, cpu, left_running = _timed(*_command(which, work, floor_input, script), reaper)
        measured[which] = (wall, cpu)
        stragglers += left_running
        load.append(os.getloadavg()[0])
        if which == "seq" and not floor_input.exists():
            shutil.copytree(work / "seq" / "autograded", floor_input)
    if _scores(work / "seq") != _scores(work / "par"):
        raise AssertionError(f"round {r}: parallel and sequential grading disagree on some score")
    if B_ARGS and _scores(work / "parb") != _scores(work / "par"):
        raise AssertionError(f"round {r}: the two make grade arms disagree on some score")
    (w_o, c_o), (w_s, c_s), (w_f, c_f) = (measured[k] for k in COMMANDS[:3])
    if B_ARGS:
        w_b, c_b = measured["ours_b"]
        print(
            f"  round {r + 1}/{ROUNDS} arm b ({B_ARGS}): wall {w_b:.1f} s -> "
            f"{w_s / w_b:.2f}x faster, {w_b / w_f:.2f}x floor; CPU/submission {c_b / n:.2f} s",
            file=sys.stderr,
            flush=True,
        )
    print(
        f"  round {r + 1}/{ROUNDS} ({', '.join(order)}): wall ours {w_o:.1f} s, "
        f"seq {w_s:.1f} s, floor {w_f:.1f} s -> {w_s / w_o:.2f}x faster, "
        f"{w_o / w_f:.2f}x floor; CPU/submission ours {c_o / n:.2f} s, "
        f"seq {c_s / n:.2f} s, floor {c_f / n:.2f} s -> {c_o / c_f:.2f}x floor; "
        f"load avg {min(load):.1f}-{max(load):.1f}",
        file=sys.stderr,
        flush=True,
    )
    shutil.rmtree(work, ignore_errors=True)
    return measured, load, stragglers


def rows() -> list[Row]:
    """Measure the grading rows: the pipeline against bare nbclient, side by side."""
    if not (REPO / "source" / ASSIGNMENT).is_dir():
        raise FileNotFoundError(f"source/{ASSIGNMENT} is missing; the benchmark grades it")
    n = N_SUBMISSIONS
    results: list[dict[str, tuple[float, float]]] = []  # per round: command -> (wall, CPU)
    load = [os.getloadavg()[0]]
    stragglers = 0  # commands after which adopted orphans were still running
    tmp = Path(tempfile.mkdtemp(prefix="bench-grading-"))
    try:
        base = _build_course(tmp / "base")
        (tmp / "floor.py").write_text(FLOOR_SCRIPT)
        with _subreaper() as reaper:
            for r in range(ROUNDS):
                measured, round_load, left = _round(r, base, tmp, reaper)
                results.append(measured)
                load += round_load
                stragglers += left
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    med = statistics.median
    wall = {k: med([m[k][0] for m in results]) for k in COMMANDS}
    cpu = {k: med([m[k][1] for m in results]) for k in COMMANDS}
    speedups = [m["seq"][0] / m["ours"][0] for m in results]
    floor_ratios = [m["ours"][0] / m["floor"][0] for m in results]
    cpu_ratios = [m["ours"][1] / m["floor"][1] for m in results]
    speedup, floor_ratio, cpu_ratio = med(speedups), med(floor_ratios), med(cpu_ratios)
    # Other processes on the machine change wall times; CPU seconds per submission do not.
    busy = f"load avg {min(load):.1f}-{max(load):.1f} on {os.cpu_count()} cores"
    rounds = f"median of {ROUNDS} round{'s' * (ROUNDS != 1)}"
    cpu_note = ""
    if not reaper:
        cpu_note = " (CPU may be undercounted)"
    elif stragglers:
        cpu_note = f" ({stragglers} command(s) left processes running; CPU may be misattributed)"
    b_rows = []
    if B_ARGS:
        b_ratios = [m["ours_b"][0] / m["floor"][0] for m in results]
        b_speedups = [m["seq"][0] / m["ours_b"][0] for m in results]
        b_rows.append(
            Row(
                "grading",
                f"arm b: make grade JOBS={JOBS} {B_ARGS}, same rounds",
                f"{med([m['ours_b'][0] for m in results]) / n:.2f} s/submission",
                f"{wall['floor'] / n:.2f} s/submission (floor)",
                f"{med(b_ratios):.2f}x the floor ({_spread(b_ratios)}), "
                f"{med(b_speedups):.2f}x faster than sequential",
                "(a comparison)",
                None,
            )
        )
    return [
        Row(
            "grading",
            f"autograde {n} submissions of {ASSIGNMENT}: make grade JOBS={JOBS} (course pipeline: "
            f"trusted tests, sandbox), {rounds} ({busy})",
            f"{wall['ours']:.1f} s wall",
            f"{wall['seq']:.1f} s sequential nbgrader autograde (same config)",
            f"{speedup:.2f}x faster ({_spread(speedups)})",
            ">= 2x on 2 cores",
            speedup >= 2.0,
        ),
        Row(
            "grading",
            f"per submission, make grade JOBS={JOBS} vs bare nbclient in {JOBS} processes, "
            f"{rounds}",
            f"{wall['ours'] / n:.2f} s/submission",
            f"{wall['floor'] / n:.2f} s/submission (floor)",
            f"{floor_ratio:.2f}x the floor ({_spread(floor_ratios)})",
            "<= 1.2x the floor",
            floor_ratio <= 1.2,
        ),
        Row(
            "grading",
            f"CPU per submission incl. kernel (same runs; load-independent){cpu_note}",
            f"{cpu['ours'] / n:.2f} s ours",
            f"{cpu['floor'] / n:.2f} s floor, {cpu['seq'] / n:.2f} s sequential nbgrader",
            f"{cpu_ratio:.2f}x the floor ({_spread(cpu_ratios)})",
            "<= 1.3x the floor",
            cpu_ratio <= 1.3,
        ),
        *b_rows,
    ]
