"""Per lesson: time to run every cell, and the kernel's peak memory (issue 4: <= 15 s, <= 250 MB).

Each lesson runs in a fresh ``python3`` kernel, as a student's "Restart and run all" would. The
time is measured from the first cell to the last (the kernel's start is reported beside it as the
baseline), with the kernel's own CPU time beside it: on a busy machine the wall time grows, the CPU
time much less. The memory is the kernel process's own peak resident set size, ``VmHWM`` in
``/proc/<pid>/status`` (Linux), read after the last cell; the baseline is the same figure for a
fresh kernel that has run nothing, so the difference is what the lesson itself costs. A classroom
hub packs many students onto one machine, so the peak, not the average, is what counts.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from benchmarks import Row

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
TIME_TARGET_S = 15.0
MEMORY_TARGET_MB = 250.0


def peak_rss_mb(pid: int) -> float:
    """Peak resident set size (``VmHWM``) of process ``pid`` in MB, from ``/proc``."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # reported in kB
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status (Linux only)")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far, from ``/proc/<pid>/stat``."""
    # Fields after the ")" closing the command name: state is field 3, utime 14, stime 15.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_lesson(path: Path) -> dict:
    """Run every cell of ``path`` in a fresh kernel; return timings (s) and peak memory (MB)."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    t0 = time.perf_counter()
    with client.setup_kernel():
        started = time.perf_counter()
        pid = client.km.provisioner.process.pid
        idle_mb = peak_rss_mb(pid)
        cpu0 = cpu_seconds(pid)
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        finished = time.perf_counter()
        cpu = cpu_seconds(pid) - cpu0
        lesson_mb = peak_rss_mb(pid)
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    if errors:
        raise RuntimeError(f"{path.name} raised {errors[0].ename}: {errors[0].evalue}")
    return {
        "kernel_start_s": started - t0,
        "run_s": finished - started,
        "cpu_s": cpu,
        "idle_mb": idle_mb,
        "peak_mb": lesson_mb,
    }


def rows() -> list[Row]:
    """Measure the lessons rows: each lesson run headless."""
    out = []
    for path in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")):
        m = run_lesson(path)
        out.append(
            Row(
                area="lessons",
                case=f"{path.stem}: run all cells",
                value=f"{m['run_s']:.1f} s wall ({m['cpu_s']:.1f} s kernel CPU)",
                baseline=f"kernel start {m['kernel_start_s']:.1f} s",
                target=f"<= {TIME_TARGET_S:.0f} s",
                ok=m["run_s"] <= TIME_TARGET_S,
            )
        )
        out.append(
            Row(
                area="lessons",
                case=f"{path.stem}: kernel peak RSS (VmHWM)",
                value=f"{m['peak_mb']:.0f} MB",
                baseline=f"idle kernel {m['idle_mb']:.0f} MB",
                ratio=f"+{m['peak_mb'] - m['idle_mb']:.0f} MB for the lesson",
                target=f"<= {MEMORY_TARGET_MB:.0f} MB",
                ok=m["peak_mb"] <= MEMORY_TARGET_MB,
            )
        )
    return out
