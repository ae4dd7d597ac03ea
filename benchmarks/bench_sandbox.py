"""What the sandbox costs per graded notebook (issue 7).

One small graded notebook (imports, three answers, three test cells) is executed with nbclient
two ways, side by side in the same run: nbgrader's default kernel manager and the sandboxed one.
No target in the issue: the row shows the price of the sandbox so a teacher can size a grading
run. The whole pipeline (trusted tests included) is measured by the grading rows.
"""

from __future__ import annotations

import functools
import tempfile

from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from benchmarks import Row, format_ms, median_p90, timings_ms

REPEAT = 3


def _notebook():
    cells = [new_code_cell("import numpy as np")]
    for q in range(3):
        cells.append(new_code_cell(f"answer{q} = np.exp([1.0, 2.0]) / np.exp([1.0, 2.0]).sum()"))
        test = new_code_cell(f"assert np.allclose(answer{q}.sum(), 1.0)")
        test.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": f"t{q}"}
        test.metadata["nbgrader"].update(locked=True, points=1)
        cells.append(test)
    return new_notebook(cells=cells)


def _run(manager, folder: str) -> None:
    nb = _notebook()
    kwargs = {"kernel_manager_class": manager} if manager else {}
    client = NotebookClient(
        nb,
        timeout=60,
        allow_errors=True,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": folder}},
        **kwargs,
    )
    client.execute()


def rows() -> list[Row]:
    """Measure the sandbox rows: a kernel started with and without bubblewrap."""
    from attention_grader.sandbox.sandbox import SandboxedKernelManager
    from jupyter_client.manager import AsyncKernelManager

    out = []
    with tempfile.TemporaryDirectory() as folder:
        plain = timings_ms(lambda: _run(AsyncKernelManager, folder), REPEAT, 1)
        cases = [("sandboxed kernel (bwrap + user + rlimits)", SandboxedKernelManager)]
        base, _ = median_p90(plain)
        for case, manager in cases:
            run = functools.partial(_run, manager, folder)
            med, p90 = median_p90(timings_ms(run, REPEAT, 1))
            out.append(
                Row(
                    area="grading",
                    case=f"start + 7 cells + stop, {case}",
                    value=format_ms(med, p90, 0),
                    baseline=f"{base:.0f} ms (nbgrader's AsyncKernelManager)",
                    ratio=f"{med / base:.2f}x the time",
                )
            )
    return out
