"""What the sandbox and the tamper guards cost per graded notebook (issue 7).

One small graded notebook (imports, three answers, three test cells) is executed with nbclient
three ways, side by side in the same run: nbgrader's default kernel manager, the sandboxed one,
and the sandboxed one with the tamper guards inserted. No target in the issue: the rows show the
price of the protections so a teacher can size a grading run.
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


def _run(manager, guarded: bool, folder: str) -> None:
    from attention_grader.tamper import CollectGuardReports, InsertGuards

    nb, resources = _notebook(), {}
    if guarded:
        nb, resources = InsertGuards().preprocess(nb, resources)
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
    if guarded:
        nb, _ = CollectGuardReports().preprocess(nb, resources)
        assert not nb.metadata["attention_grader"].get("tamper_flags"), "honest notebook flagged"


def rows() -> list[Row]:
    from attention_grader.sandbox import SandboxedKernelManager
    from jupyter_client.manager import AsyncKernelManager

    out = []
    with tempfile.TemporaryDirectory() as folder:
        plain = timings_ms(lambda: _run(AsyncKernelManager, False, folder), REPEAT, 1)
        cases = [
            ("sandboxed kernel (bwrap + user + rlimits)", SandboxedKernelManager, False),
            ("sandboxed kernel + tamper guards", SandboxedKernelManager, True),
        ]
        base, _ = median_p90(plain)
        for case, manager, guarded in cases:
            run = functools.partial(_run, manager, guarded, folder)
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
