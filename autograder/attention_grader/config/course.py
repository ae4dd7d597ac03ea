"""Where the course lives: its folder, its nbgrader config and an nbgrader API bound to both.

Every pipeline step takes a :class:`Course`, so the same code runs on the repository (the
real course) and on a temporary course in the tests, each with its own exchange and gradebook.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from traitlets.config import Config

from attention_grader.config.config_door import load_config
from attention_grader.config.environment import variable_value

__all__ = [
    "source_dirs",
    "source_notebook",
    "Course",
    "GradingStepError",
    "load_course",
    "new_course",
    "check_result",
    "quiet_autoflush_warning",
]

CONFIG_FILE = "nbgrader_config.py"


class GradingStepError(RuntimeError):
    """A pipeline step failed; the message says which step and shows nbgrader's log tail."""


@dataclass
class Course:
    """An nbgrader course directory and the configuration nbgrader uses for it.

    Attributes
    ----------
    root : Path
        The course directory (holds ``source/``, ``release/``, ``submitted/``, ``gradebook.db``).
    config : traitlets.config.Config
        The merged nbgrader configuration (the course's ``nbgrader_config.py`` plus overrides).
    """

    root: Path
    config: Config = field(default_factory=Config)

    @property
    def course_id(self) -> str:
        return str(self.config.CourseDirectory.course_id)

    @property
    def db_url(self) -> str:
        """The gradebook URL; SQLite ``<root>/gradebook.db`` unless ``CourseDirectory.db_url`` is set."""
        url = self.config.CourseDirectory.get("db_url")
        return url if url else f"sqlite:///{self.root / 'gradebook.db'}"

    @property
    def exchange(self) -> Path:
        return Path(self.config.Exchange.root)

    def coursedir(self, **attrs: Any) -> Any:
        """Return a fresh nbgrader ``CourseDirectory`` for this course, with ``attrs`` set."""
        from nbgrader.coursedir import CourseDirectory

        cd = CourseDirectory(config=self.config)
        for name, value in attrs.items():
            setattr(cd, name, value)
        return cd

    def api(self) -> Any:
        """Return an ``nbgrader.apps.NbGraderAPI`` bound to this course (nbgrader imported lazily)."""
        from nbgrader.apps import NbGraderAPI

        return NbGraderAPI(coursedir=self.coursedir(), config=self.config)

    def gradebook(self) -> Any:
        """Return an ``nbgrader.api.Gradebook`` on this course's database (a context manager)."""
        from nbgrader.api import Gradebook

        return Gradebook(self.db_url, self.course_id)


@contextlib.contextmanager
def quiet_autoflush_warning() -> Iterator[None]:
    """Hide the SQLAlchemy autoflush warning nbgrader's gradebook raises for every new submission.

    It is harmless (nbgrader adds the submission right after) and would otherwise print several
    lines per student into the teacher's terminal; any other warning still shows.
    """
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*not in session.*", category=SAWarning)
        yield


def _venv_scripts_on_path() -> None:
    """Put this interpreter's scripts folder on PATH.

    nbgrader runs the ``alembic`` command when it creates a new gradebook, which fails under
    ``.venv/bin/python`` without an activated venv.
    """
    scripts = os.path.dirname(sys.executable)
    path = os.environ.get("PATH", "")
    if scripts not in path.split(os.pathsep):
        os.environ["PATH"] = scripts + os.pathsep + path


@functools.cache
def _alembic_head() -> str:
    """Return nbgrader's newest gradebook schema revision, read in-process with alembic's API."""
    import nbgrader
    from alembic.script import ScriptDirectory

    head = ScriptDirectory(
        os.path.join(os.path.dirname(nbgrader.__file__), "alembic")
    ).get_current_head()
    assert head is not None, "nbgrader ships its alembic migrations"
    return head


def _fast_gradebook_creation() -> None:
    """Let nbgrader create a new gradebook without a subprocess.

    ``nbgrader.api.Gradebook`` stamps a *new* database with the schema revision it gets by running
    ``alembic heads`` in a subprocess, which re-imports everything (docs/design.md, Benchmarks).
    The same revision is read in-process here; the database written is identical.
    """
    import nbgrader.api

    if getattr(nbgrader.api.get_alembic_version, "__name__", "") != "_alembic_head":
        nbgrader.api.get_alembic_version = _alembic_head


def load_course(
    root: str | os.PathLike[str] | None = None,
    *,
    exchange: str | os.PathLike[str] | None = None,
    db_url: str | None = None,
    settings: Sequence[str] = (),
) -> Course:
    """Read the course's configuration as nbgrader does, then apply overrides.

    Parameters
    ----------
    root : path, optional
        The course directory; defaults to ``$ATTENTION_LAB_COURSE`` or the current directory.
    exchange : path, optional
        Override ``Exchange.root`` (otherwise what the config says: ``ATTENTION_LAB_EXCHANGE`` or
        ``<root>/exchange``).
    db_url : str, optional
        Override ``CourseDirectory.db_url`` (e.g. ``postgresql://...`` for a large class).
    settings : sequence of str
        Command-line settings (``--Class.trait=value``), over every config file.

    Returns
    -------
    Course
        Its config read through :func:`attention_grader.config.config_door.load_config`: the
        system's and the user's ``nbgrader_config.py``, the course's, then ``settings``.
    """
    _venv_scripts_on_path()
    _fast_gradebook_creation()
    given = root or variable_value("ATTENTION_LAB_COURSE")
    root = Path(str(given) if given else os.getcwd()).resolve()
    if not root.is_dir():
        raise FileNotFoundError(f"course directory {root} does not exist; pass the course root")
    config = load_config(root, settings)
    # The folder we were given wins over whatever root the config file computed.
    config.CourseDirectory.root = str(root)
    if not config.CourseDirectory.get("course_id"):
        config.CourseDirectory.course_id = "attention-lab"
    if exchange is not None:
        config.Exchange.root = str(Path(exchange).resolve())
    elif not config.Exchange.get("root"):
        config.Exchange.root = str(root / "exchange")
    if db_url:
        config.CourseDirectory.db_url = db_url
    # Re-running `make release` replaces the released copy instead of failing.
    config.ExchangeReleaseAssignment.force = True
    return Course(root=root, config=config)


def new_course(
    folder: str | os.PathLike[str],
    source_root: str | os.PathLike[str],
    assignments: Iterable[str],
    pipeline: bool = True,
) -> Course:
    """Return a fresh course in ``folder/course`` with its own exchange in ``folder/exchange``.

    For trying a release or a grading run without touching the real course (the tests and
    ``make bench`` use it).

    Parameters
    ----------
    folder : path
        An empty folder to create the course and the exchange in.
    source_root : path
        The ``source/`` folder to copy assignments from.
    assignments : iterable of str
        Names of the source assignments to copy.
    pipeline : bool
        Install the course's grading pipeline (:func:`attention_grader.pipeline.configure`), as
        the real course's ``nbgrader_config.py`` does; False grades with plain nbgrader (the
        benchmark's baseline).

    Returns
    -------
    Course
    """
    folder = Path(folder)
    root = folder / "course"
    (root / "source").mkdir(parents=True)
    for name in assignments:
        shutil.copytree(Path(source_root) / name, root / "source" / name)
    (root / CONFIG_FILE).write_text(
        "import os\n"
        "c = get_config()\n"
        "c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))\n"
        "c.CourseDirectory.course_id = 'attention-lab'\n"
        f"c.Exchange.root = {str(folder / 'exchange')!r}\n"
        + ("from attention_grader.pipeline import configure\nconfigure(c)\n" if pipeline else "")
    )
    (folder / "exchange").mkdir()
    (folder / "exchange").chmod(0o777)  # as nbgrader's exchange: every student may write
    return load_course(root)


def check_result(result: dict[str, Any], step: str) -> dict[str, Any]:
    """Raise :class:`GradingStepError` when an ``NbGraderAPI`` call reports failure.

    Parameters
    ----------
    result : dict
        What ``NbGraderAPI`` returns (``success``, ``log``, ``error``).
    step : str
        Human name of the step, used in the message ("release intro_attention").
    """
    if result.get("success"):
        return result
    detail = (result.get("error") or result.get("log") or "").strip().splitlines()[-15:]
    raise GradingStepError(f"{step} failed:\n" + "\n".join(detail))


def source_notebook(assignment: str, notebook: str, config: Config, log: logging.Logger) -> Any:
    """Return the teacher's notebook (a NotebookNode) from source/ (never the submission), or None."""
    import nbformat
    from nbformat import NotebookNode

    for folder in source_dirs(assignment, config):
        path = Path(folder) / f"{notebook}.ipynb"
        if path.is_file():
            try:
                source: NotebookNode = nbformat.read(path, as_version=4)
                return source
            except Exception as exc:  # noqa: BLE001 -- the gradebook's cells still grade
                log.warning("could not read %s: %s", path, exc)
    return None


def source_dirs(assignment: str, config: Config) -> list[str]:
    """Return ``[source/<assignment>]`` of the course ``config`` names, or ``[]`` if missing."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=config)
    folder = Path(coursedir.format_path(coursedir.source_directory, ".", assignment))
    return [str(folder)] if folder.is_dir() else []
