"""The one door every route loads the course's configuration through: nbgrader's own loader.

``make grade`` (``python -m attention_grader``), ``nbgrader autograde`` and the other nbgrader
apps, the formgrader, the intake hook and the grading Jobs must grade with the same settings.
nbgrader's apps read, each over the one before (``jupyter --paths`` lists the folders):

1. ``nbgrader_config.py`` in the system and environment config folders (``/etc/jupyter``,
   ``<venv>/etc/jupyter``, ...);
2. the user's (``~/.jupyter``, or ``$JUPYTER_CONFIG_DIR``): on a hub, the instructor's, which
   names the shared gradebook;
3. the course folder's ``nbgrader_config.py``;
4. the command line, ``--Class.trait=value``.

:func:`load_config` runs that same loader (nbgrader's ``NbGrader`` application) for a course
folder. The one difference: nbgrader also reads the *current* folder's file, which is the course
folder's whenever nbgrader runs where the docs say; a course given by path is read from its own
folder only, so a tool run from elsewhere never picks up a stranger's file.

The environment's part (``ATTENTION_LAB_*``) is listed in :mod:`attention_grader.config.environment`.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from functools import cache
from typing import Any

from traitlets.config import Config

__all__ = ["load_config"]


@cache
def _door_class() -> type[Any]:
    """Return nbgrader's base application, reading config files as ``nbgrader <app>`` does."""
    from jupyter_core.application import JupyterApp
    from nbgrader.apps.baseapp import NbGrader

    class ConfigDoor(NbGrader):  # type: ignore[misc]
        """Loads config and stops: no sys.path change, no log file, no start."""

        name = "attention-grader"
        load_cwd_config = False  # the course folder's file is read by path (module docstring)
        raise_config_file_errors = True  # a broken course config stops grading, never ignored

        def load_config_file(self, **kwargs: Any) -> None:
            """Read the system's and the user's files, as nbgrader (without its warning).

            nbgrader warns when neither folder has a file, which is the usual case on a
            laptop: the course's own file is read next (:meth:`NbGrader.initialize`).
            """
            JupyterApp.load_config_file(self, **kwargs)

        def init_syspath(self) -> None:
            """Leave sys.path alone (nbgrader adds the current folder for plugins; loading needs none)."""

    return ConfigDoor


def load_config(
    root: str | os.PathLike[str], argv: Sequence[str] = (), log: logging.Logger | None = None
) -> Config:
    """Return the course's configuration as nbgrader's apps load it (module docstring).

    Parameters
    ----------
    root : path
        The course folder (its ``nbgrader_config.py`` is read after the user's and system's).
    argv : sequence of str
        Command-line settings, ``--Class.trait=value`` (nbgrader's aliases too, e.g.
        ``--db-url``); they win over every file.
    log : Logger, optional
        Where nbgrader's loader logs (default: ``attention_grader.config``; it says when no
        config file was found at all).

    Returns
    -------
    Config
        The merged configuration (a new object each call).

    Raises
    ------
    traitlets.config.ConfigFileNotFound, Exception
        A config file that fails to run: grading with half a config would grade wrongly.
    """
    app = _door_class()(log=log or logging.getLogger("attention_grader.config"))
    app.initialize(list(argv), root=str(root))
    config: Config = app.config
    if app.extra_args:
        raise ValueError(
            f"unexpected argument(s) {' '.join(app.extra_args)}: settings are given as "
            "--Class.trait=value (e.g. --Execute.timeout=20)"
        )
    return Config(config)
