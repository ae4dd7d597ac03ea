"""The autograde executor (attention_grader.executor.execute): floods are cut while they stream.

Three floods, each after a correct answer: one message far over the size cap (refused by ZeroMQ
before it is received), a loop printing large chunks, and an endless loop of small flushed lines
(cut at the output cap and interrupted); the answers are still read after the cut. The grader runs as ``make grade`` does, in its own
process, whose memory is sampled the whole time.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import threading
import time

import pytest
from attention_grader.common.flag_store import read_flags
from attention_grader.steps.release import release

from tests.support.grading_course import (
    CORRECT,
    FIXTURE,
    answer,
    make_course,
    place_submission,
    released_notebook,
)

FLOODS = {
    "blaster": "\nprint('y' * 200_000_000)",
    "streamer": "\nfor _ in range(30000):\n    print('x' * 1000)",
    "trickler": "\nimport sys\nwhile True:\n    print('z' * 2000)\n    sys.stdout.flush()",
}
MAX_GRADER_RSS_MB = 400


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@pytest.mark.slow
def test_floods_are_cut_while_streaming_and_the_grader_stays_small(tmp_path):
    course = make_course(tmp_path)
    # A notebook-wide cap below what the floods print: the grader's own requests after it (the
    # answers of both tests) must still be read.
    config = course.root / "nbgrader_config.py"
    config.write_text(
        config.read_text() + "c.GradingExecute.max_notebook_output_bytes = 3 * 2**20\n"
    )
    release(course, FIXTURE)
    nb = released_notebook(course, FIXTURE)
    for student, tail in FLOODS.items():
        answers = {**CORRECT, "q1_answer": CORRECT["q1_answer"] + tail}
        place_submission(course, FIXTURE, student, answer(copy.deepcopy(nb), answers))
    place_submission(course, FIXTURE, "honest", answer(copy.deepcopy(nb), CORRECT))
    cmd = [sys.executable, "-m", "attention_grader", "--course", str(course.root)]
    cmd += ["grade", FIXTURE, "--jobs", "1", "--no-progress", "--cell-timeout", "60"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = [0.0]

    def watch():
        while proc.poll() is None:
            peak[0] = max(peak[0], _rss_mb(proc.pid))
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    out = proc.communicate(timeout=300)[0]
    watcher.join()
    assert proc.returncode == 0, out
    assert 0 < peak[0] < MAX_GRADER_RSS_MB, f"grader peaked at {peak[0]:.0f} MB"
    with course.gradebook() as gb:
        scores = {s: gb.find_submission(FIXTURE, s).score for s in [*FLOODS, "honest"]}
    assert scores == dict.fromkeys(scores, 3.0)  # the answers before each flood still count
    import nbformat

    for student in FLOODS:
        path = course.root / "autograded" / student / FIXTURE / f"{FIXTURE}.ipynb"
        graded = nbformat.read(path, as_version=4)
        # only the cut, no cell_timeout: the endless loop was interrupted at the output cap,
        # long before its 60 s cell timeout
        kinds = {f.kind for f in read_flags(graded)}
        assert kinds == {"output_truncated"}, (student, read_flags(graded))
        # the limit --cell-timeout set (not the config's), for the feedback page's sentence
        assert graded.metadata["attention_grader"]["cell_timeout"] == 60
        stored = sum(len(str(o)) for c in graded.cells for o in c.get("outputs", []))
        assert stored < 12 * 2**20, (student, stored)


# The cell's own printing ends at once; ipykernel then flushes stdout before it replies, and this
# flush keeps it there (once) while the grader cuts the flood and interrupts the kernel.
LATE_FLOOD = """
import sys, time
flush = sys.stdout.flush

def slow_first_flush():
    flush()
    sys.stdout.flush = flush
    time.sleep(10)

sys.stdout.flush = slow_first_flush
print("x" * 3_000_000)
"""


@pytest.mark.slow
def test_an_interrupt_landing_after_the_cell_ended_costs_no_cell_timeout(tmp_path):
    """A finite flood may end before the grader, reading behind it, cuts it: the interrupt then
    lands while ipykernel sends the cell's reply, and ipykernel drops the reply. The grader must
    see the kernel went idle and go on, not wait for the cell's time limit and flag a timeout.
    """
    from attention_grader.executor.execute import GradingExecute
    from nbformat.v4 import new_code_cell, new_notebook

    execute = GradingExecute(
        timeout=60, startup_timeout=60, submission_budget=0, max_cell_output_bytes=2**20
    )
    nb = new_notebook(cells=[new_code_cell(LATE_FLOOD), new_code_cell("print(6 * 7)")])
    graded, _ = execute.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    kinds = {f.kind for f in read_flags(graded)}
    assert kinds == {"output_truncated"}, read_flags(graded)
    said = [line for o in graded.cells[0].outputs for line in o.get("traceback", [])]
    assert any("printed too much" in line for line in said), graded.cells[0].outputs
    assert graded.cells[1].outputs[0]["text"] == "42\n"  # the kernel still serves the next cell


@pytest.mark.slow
def test_a_kernel_that_cannot_start_says_why(tmp_path):
    from attention_grader.executor.execute import GradingExecute, KernelStartError
    from attention_grader.sandbox.sandbox_host import bwrap_available
    from nbformat.v4 import new_code_cell, new_notebook
    from traitlets.config import Config

    if not bwrap_available()[0]:  # make test installs bubblewrap; say so plainly if it is absent
        pytest.fail("bubblewrap is not available: run `make sandbox-deps`")
    config = Config()
    # A folder the sandbox must mount but which does not exist: bubblewrap refuses to start.
    config.SandboxedKernelManager.extra_readonly_paths = ["/nonexistent/attention-lab-missing"]
    execute = GradingExecute(timeout=10, config=config, startup_timeout=30)
    nb = new_notebook(cells=[new_code_cell("x = 1")])
    with pytest.raises(KernelStartError, match="could not start: .*attention-lab-missing"):
        execute.preprocess(nb, {"metadata": {"path": str(tmp_path)}})


def test_kernels_start_through_the_resolved_interpreter_folder(tmp_path):
    """Through a symlinked venv (``.venv -> /opt/venv``) the sandbox, which mounts real paths
    only, must start the real folder's interpreter; a missing one is named.
    """
    from pathlib import Path

    from attention_grader.sandbox.sandbox_launch import resolved_kernel_cmd

    real = Path(sys.executable).parent
    (tmp_path / "venv").symlink_to(real.parent, target_is_directory=True)
    linked = str(tmp_path / "venv" / real.name / Path(sys.executable).name)
    cmd = resolved_kernel_cmd([linked, "-m", "ipykernel_launcher"])
    assert cmd[0] == str(real.resolve() / Path(sys.executable).name)
    assert cmd[1:] == ["-m", "ipykernel_launcher"]
    with pytest.raises(RuntimeError, match="does not exist"):
        resolved_kernel_cmd([str(tmp_path / "nowhere" / "python"), "-m", "x"])
