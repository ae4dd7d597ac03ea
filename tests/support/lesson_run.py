"""The lessons executed once per test run (tests/support/run_cache.py), for every module that reads them.

tests/test_notebooks.py checks what they print, tests/test_lesson_leaks.py and
tests/test_lesson_claims.py search their outputs and the text drawn into their figures, and the
browser's accessibility audit reads the pages built from them (:func:`executed_files`): each
lesson runs once, whichever process asks first.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tests.support import figure_text
from tests.support.run_cache import once_per_run

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
LESSONS = (
    "00_start_here",
    "01_the_bottleneck",
    "02_query_key_value",
    "03_worked_examples",
    "04_masking_and_cross_attention",
    "05_misconceptions",
    "06_projections_heads_positions",
    "07_transformer_block",
)


async def _execute_all(names: tuple[str, ...], folder: Path, parallel: int, prepare=None) -> None:
    """Execute the lessons, ``parallel`` kernels at a time, into ``folder``: each executed
    notebook and the text its kernel drew into figures (:func:`_saved`); ``prepare(name, nb)``
    edits a lesson first.
    """
    gate = asyncio.Semaphore(parallel)

    async def run(name):
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        if prepare is not None:
            prepare(name, nb)
        client = NotebookClient(
            nb,
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOKS)}},
            # As `make html` runs them: no saved widget state, so exports use the widgets' PNGs.
            store_widget_state=False,
            # One broken lesson fails its own tests (which look for error outputs), not all.
            allow_errors=True,
            # As `make html` runs them (pages.lesson_pages.execute): a line printed in two
            # messages on a busy machine is one line again (a key number was missed so).
            coalesce_streams=True,
        )
        async with gate:
            # The kernel also logs the text it draws into figures (heatmap numbers are pixels).
            await client.async_execute(env=figure_text.kernel_env(_saved(folder, name)[1]))
        nbformat.write(nb, _saved(folder, name)[0])

    await asyncio.gather(*(run(n) for n in names))


def _saved(folder: Path, name: str) -> tuple[Path, Path]:
    """Where a lesson run keeps lesson ``name``: the executed notebook, its figures' text."""
    return folder / f"{name}.ipynb", folder / f"{name}.figure-text.txt"


@dataclass(frozen=True)
class LessonRun:
    """Lessons executed once per test run (tests/support/run_cache.py), as every process reads them."""

    notebooks: dict[str, nbformat.NotebookNode]
    #: lesson -> every string its kernel drew into a figure, one per line
    drawn: dict[str, str]
    #: lesson -> the executed notebook's file (named as the lesson: ``<name>.ipynb``)
    files: dict[str, Path]


def lesson_run(key: str, names: tuple[str, ...], prepare=None) -> LessonRun:
    """The lessons ``names`` executed once per run under ``key`` (``prepare(name, nb)`` edits
    each first).
    """

    def build(folder: Path) -> None:
        asyncio.run(_execute_all(names, folder, parallel=2, prepare=prepare))

    def read(folder: Path) -> LessonRun:
        saved = {name: _saved(folder, name) for name in names}
        return LessonRun(
            notebooks={n: nbformat.read(nb, as_version=4) for n, (nb, _) in saved.items()},
            drawn={n: figure_text.drawn_text(log) for n, (_, log) in saved.items()},
            files={n: nb for n, (nb, _) in saved.items()},
        )

    return once_per_run(key, build, read)


def executed() -> dict[str, nbformat.NotebookNode]:
    """Every lesson executed once per test run (two kernels at a time: CI has two cores)."""
    return lesson_run("lessons", LESSONS).notebooks


def drawn_text(name: str) -> str:
    """The text the executed lesson ``name`` drew into its figures, one string per line."""
    return lesson_run("lessons", LESSONS).drawn[name]


def executed_files() -> list[Path]:
    """The files of :func:`executed`'s lessons, in course order (what ``make html`` would run)."""
    files = lesson_run("lessons", LESSONS).files
    return [files[name] for name in LESSONS]
