"""The preprocessor that flags the cells whose output nbgrader's LimitOutput cut."""

from __future__ import annotations

from typing import Any

from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor

from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import OUTPUT_TRUNCATED, Flag
from attention_grader.executor.execution_stops import cell_label

__all__ = ["LIMIT_OUTPUT_MARKER", "FlagLimitedOutput"]

#: What nbgrader's LimitOutput writes where it cut a cell's output (it runs after execution).
LIMIT_OUTPUT_MARKER = "... Output truncated ..."


class FlagLimitedOutput(NbGraderPreprocessor):
    """After nbgrader's LimitOutput: flag the cells whose output it cut (``output_truncated``)."""

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any]
    ) -> tuple[NotebookNode, dict[str, Any]]:
        name = (resources or {}).get("nbgrader", {}).get("notebook") or "notebook"
        flags = []
        for index, cell in enumerate(nb.cells):
            texts = [str(o.get("text", "")) for o in cell.get("outputs", [])]
            if any(LIMIT_OUTPUT_MARKER in t for t in texts):
                where = cell_label(cell, index)
                flags.append(Flag(OUTPUT_TRUNCATED, f"{name}/{where} printed too much output"))
        record_flags(flags, notebook=nb)
        return nb, resources
