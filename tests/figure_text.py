"""Record the text a notebook's kernel draws into matplotlib figures.

A figure reaches the executed notebook as a PNG, so a number drawn in a heatmap cell is not in
any text output. The lesson tests start each kernel with :func:`kernel_env`, whose IPython start-up
file wraps ``matplotlib.text.Text.draw`` to append every drawn string to a log file; read it back
with :func:`drawn_text`. Nothing in the notebook or in ``attention_lab`` changes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

_STARTUP = """\
import os as _os

import matplotlib.text as _mtext

_LOG = _os.environ["ATTENTION_LAB_FIGURE_TEXT_LOG"]
_draw = _mtext.Text.draw


def _recording_draw(self, renderer, *args, **kwargs):
    text = self.get_text()
    if text and self.get_visible():
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(text + "\\n")
    return _draw(self, renderer, *args, **kwargs)


_mtext.Text.draw = _recording_draw
"""

_ROOT = Path(tempfile.mkdtemp(prefix="attention-lab-figure-text-"))


def _ipython_dir() -> Path:
    startup = _ROOT / "ipython" / "profile_default" / "startup"
    script = startup / "00-record-figure-text.py"
    if not script.exists():
        startup.mkdir(parents=True, exist_ok=True)
        script.write_text(_STARTUP, encoding="utf-8")
    return _ROOT / "ipython"


def log_path(name: str) -> Path:
    """Where the kernel that runs notebook ``name`` logs its figures' text."""
    return _ROOT / f"{name}.txt"


def kernel_env(name: str) -> dict[str, str]:
    """Environment for the kernel of notebook ``name``: ours, plus the recording start-up file."""
    log_path(name).unlink(missing_ok=True)
    return {
        **os.environ,
        "IPYTHONDIR": str(_ipython_dir()),
        "ATTENTION_LAB_FIGURE_TEXT_LOG": str(log_path(name)),
    }


def drawn_text(name: str) -> str:
    """Every string the kernel of notebook ``name`` drew into a figure, one per line, in order."""
    path = log_path(name)
    return path.read_text(encoding="utf-8") if path.exists() else ""
