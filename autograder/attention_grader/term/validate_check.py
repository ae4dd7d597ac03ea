"""``nbgrader validate`` of a source notebook runs the release check too.

A teacher who validates ``source/<assignment>/<notebook>.ipynb`` learns there, not only at
``make release``, that a test cell would lose points on its own solution when graded the way
students are (:mod:`attention_grader.batch.solution_check`): the cell is listed among the failures
with the cause.

nbgrader 0.9's ``Validator.preprocessors`` is not configurable, and nbgrader's ``Execute`` runs
nbclient's synchronous path, which calls no notebook hooks. So, as
:mod:`attention_grader.term.validate_labels` does for its labels, :func:`check_on_validate` wraps
``Validator._preprocess`` once per process; :func:`attention_grader.pipeline.configure` calls it,
so the course's ``nbgrader_config.py`` installs it for ``nbgrader validate`` and for the Validate
button's server (which loads the same file). It acts only on a notebook in the course's source
folder (the validator runs from the notebook's folder): it grades a copy of the notebook as the
teacher wrote it, with the validator's config (:func:`~attention_grader.batch.solution_check.check_notebook`), and
adds an error output to each refused test cell, which the Validator then reports with the
cause.
"""

from __future__ import annotations

import copy
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from traitlets.config import Config

from nbformat import NotebookNode

__all__ = ["RELEASE_REFUSED", "check_on_validate", "mark_refused"]

#: The ``ename`` of the error a refused cell gets in validation.
RELEASE_REFUSED = "ReleaseRefused"


def check_on_validate() -> None:
    """Wrap ``Validator._preprocess`` (once per process) to run the release check after it.

    Patch ``release_check`` of :mod:`attention_grader.config.nbgrader_patches`.
    """
    from attention_grader.config.nbgrader_patches import apply

    apply("release_check", {"_preprocess": _checking_preprocess})


def _checking_preprocess(original: Any) -> Any:
    import functools

    @functools.wraps(original)
    def _preprocess(self: Any, nb: NotebookNode) -> NotebookNode:
        as_written = copy.deepcopy(nb)  # before nbgrader clears and runs it
        nb = original(self, nb)
        folder = Path.cwd()  # nbgrader validates from the notebook's folder
        if _in_source(folder, self.config):
            mark_refused(nb, _refusals(as_written, folder, self.config))
        return nb

    return _preprocess


def _in_source(folder: Path, config: Config) -> bool:
    """Whether ``folder`` is ``<course root>/<source>/<assignment>`` of the course ``config``."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    source = Path(coursedir.root, coursedir.source_directory)
    return folder.resolve().parent == source.resolve()


def _notebook_name(folder: Path, nb: NotebookNode) -> str:
    """Return the file the validated notebook came from (the one with the same grade_ids)."""

    def ids(notebook: NotebookNode) -> set[str]:
        return {c.metadata.get("nbgrader", {}).get("grade_id") for c in notebook.cells} - {None}

    import nbformat

    wanted = ids(nb)
    for path in sorted(folder.glob("*.ipynb")):
        try:
            if ids(nbformat.read(path, as_version=4)) == wanted:
                return path.stem
        except Exception:  # noqa: BLE001,S112 -- an unreadable neighbour is not this notebook
            continue
    return "notebook"


def _refusals(nb: NotebookNode, folder: Path, config: Config) -> list[tuple[str, str]]:
    from attention_grader.batch.solution_check import check_notebook

    resources = {
        "nbgrader": {
            "assignment": folder.name,
            "notebook": _notebook_name(folder, nb),
            "student": ".",
        },
        "metadata": {"path": str(folder)},
    }
    found: dict[str, Any] = {}

    def run() -> None:  # its own thread: nbgrader's event loop is running in this one
        try:
            found["refusals"] = check_notebook(copy.deepcopy(nb), resources, config)
        except Exception as exc:  # noqa: BLE001 -- told to the teacher, validation goes on
            found["error"] = f"{type(exc).__name__}: {exc}"

    thread = threading.Thread(target=run, name="attention-grader-release-check")
    thread.start()
    thread.join()
    if "error" in found:
        return [("", f"the release check could not run: {found['error']}")]
    return [(r.grade_id, r.cause) for r in found["refusals"]]


def mark_refused(nb: NotebookNode, refusals: list[tuple[str, str]]) -> None:
    """Add an error output naming the cause to each refused test cell of ``nb``."""
    tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    for grade_id, cause in refusals:
        text = f"the release check refuses this cell (docs/authoring.md, 'Test styles'): {cause}"
        cells = [c for c in tests if c.metadata["nbgrader"].get("grade_id") == grade_id]
        for cell in cells or tests[:1]:
            cell.setdefault("outputs", []).append(
                NotebookNode(
                    output_type="error",
                    ename=RELEASE_REFUSED,
                    evalue=text,
                    traceback=[f"{RELEASE_REFUSED}: {text}"],
                )
            )
