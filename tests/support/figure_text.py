"""Record the text a notebook's kernel draws into matplotlib figures.

A figure reaches the executed notebook as a PNG, so a number drawn in a heatmap cell is not in
any text output. The lesson tests start each kernel with :func:`kernel_env`, whose IPython start-up
file wraps ``matplotlib.text.Text.draw`` to append every drawn string to a log file; read it back
with :func:`drawn_text`. Nothing in the notebook or in ``attention_lab`` changes.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.run_cache import run_folder

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


def _ipython_dir() -> Path:
    """The IPython folder with the recording start-up file, one per test run."""
    ipython = run_folder() / "figure-text-ipython"
    script = ipython / "profile_default" / "startup" / "00-record-figure-text.py"
    if not script.exists():
        # Written whole, then renamed: a kernel another worker starts never reads half of it.
        script.parent.mkdir(parents=True, exist_ok=True)
        partial = script.with_name(f".{os.getpid()}.partial")
        partial.write_text(_STARTUP, encoding="utf-8")
        partial.replace(script)
    return ipython


def kernel_env(log: Path) -> dict[str, str]:
    """Environment for a notebook's kernel: ours, plus the start-up file that logs into ``log``."""
    log.unlink(missing_ok=True)
    return {
        **os.environ,
        "IPYTHONDIR": str(_ipython_dir()),
        "ATTENTION_LAB_FIGURE_TEXT_LOG": str(log),
    }


def drawn_text(log: Path) -> str:
    """Every string the kernel logging into ``log`` drew into a figure, one per line, in order."""
    return log.read_text(encoding="utf-8") if log.exists() else ""
