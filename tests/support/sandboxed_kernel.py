"""Cells run in one sandboxed kernel (the sandbox's tests): what each printed, or its error."""

from __future__ import annotations

from pathlib import Path

from attention_grader.sandbox.sandbox import SandboxedKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat.v4 import new_code_cell, new_notebook
from traitlets.config import Config


def run_sandboxed(cells: list[str], cwd: Path, raise_dead: bool = True, **km_traits) -> list[str]:
    """Execute ``cells`` in one sandboxed kernel; return each cell's text output / error name
    (``["dead"]`` when the kernel died and ``raise_dead`` is False).
    """
    nb = new_notebook(cells=[new_code_cell(src) for src in cells])
    client = NotebookClient(
        nb,
        kernel_manager_class=SandboxedKernelManager,
        config=Config({"SandboxedKernelManager": km_traits}),
        timeout=20,
        allow_errors=True,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(cwd)}},
    )
    try:
        client.execute()
    except DeadKernelError:
        if raise_dead:
            raise
        return ["dead"]
    out = []
    for cell in nb.cells:
        text = "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")
        errors = [o["ename"] for o in cell.outputs if o.get("output_type") == "error"]
        out.append(text.strip() if not errors else errors[0])
    return out
