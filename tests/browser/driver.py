"""Drive JupyterLab in Debian's headless Chromium through Playwright.

Shared by the browser tests (``tests/browser``) and the browser benchmark
(``benchmarks/bench_browser.py``). Every wait here waits on a condition (an HTTP answer, a
selector, a JavaScript predicate), never on a fixed sleep.

The server runs with ``LabApp.expose_app_in_browser`` so the page can ask JupyterLab's own
command registry and notebook model for things (run all cells, is the kernel idle, did a cell
raise) instead of scraping prompts.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "REPO",
    "ARTIFACTS",
    "RELEASED_ASSIGNMENT",
    "JupyterServer",
    "NotebookRunError",
    "DEFAULT_TIMEOUT_MS",
    "launch_chromium",
    "evaluate",
    "run_command",
    "start_jupyter",
    "make_course_copy",
    "write_notebook",
    "open_notebook",
    "open_in_lab",
    "close_current",
    "run_all_cells",
    "widget_error_texts",
    "slider_handle",
    "slider_readout",
    "slider_value",
    "press_slider",
    "drag_slider",
    "image_bytes",
    "wait_for_new_image",
    "axe_violations",
    "serious_violations",
    "BackgroundJob",
    "kernel_env",
]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
# The assignment the browser tests release to a temporary exchange (Assignment List).
RELEASED_ASSIGNMENT = "intro_attention"
CHROMIUM = Path(os.environ.get("ATTENTION_LAB_CHROMIUM", "/usr/bin/chromium"))
# Playwright cannot download its own browser builds on this network, so it drives Debian's
# chromium. These flags keep it from phoning home (updates, sync, QUIC) and from needing a GPU
# or a sandbox (CI runs as root, where Chromium's sandbox refuses to start).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_BIN = Path(sys.executable).parent  # the .venv's bin/: jupyter and the kernel come from there


def launch_chromium(playwright: Any):
    """Launch headless Chromium from ``/usr/bin/chromium`` (a fresh temporary profile each time).

    Playwright's ``launch`` gives the browser a new temporary user-data directory, deleted on
    close, so no state leaks between runs.

    Raises
    ------
    RuntimeError
        When Chromium is missing, saying which make target installs it.
    """
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} not found: run `make browser-deps` (Debian's chromium)")
    return playwright.chromium.launch(
        executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
    )


# --------------------------------------------------------------------------------------------
# The Jupyter server
# --------------------------------------------------------------------------------------------

# Lab settings for a quiet, deterministic test session. Written as *user* settings into a
# temporary settings dir, so nothing on the machine is changed.
_LAB_SETTINGS = {
    # No news pop-up, no update check (they would also try the network).
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {
        # Attach every cell to the DOM, so a widget far down a lesson is there to be found.
        "windowingMode": "none",
        # Start the notebook's kernel without asking.
        "autoStartDefaultKernel": True,
    },
    # The extension manager queries PyPI: off.
    "@jupyterlab/extensionmanager-extension/plugin.jupyterlab-settings": {"enabled": False},
}

_SERVER_CONFIG = """\
c.ServerApp.open_browser = False
c.ServerApp.port_retries = 0
c.ServerApp.allow_root = True  # CI runs as root
c.LabApp.expose_app_in_browser = True
c.JupyterNotebookApp.expose_app_in_browser = True
c.LabApp.news_url = None
c.LabApp.check_for_updates_class = "jupyterlab.NeverCheckForUpdate"
"""


@dataclass
class JupyterServer:
    """A running ``jupyter lab`` on localhost; ``url(path)`` gives an authenticated address."""

    root: Path
    port: int
    token: str
    process: subprocess.Popen
    log_path: Path
    env: dict[str, str] = field(repr=False, default_factory=dict)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def url(self, path: str = "lab") -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path: str) -> Any:
        """GET ``/api/<path>`` (authenticated) and decode the JSON answer."""
        req = urllib.request.Request(
            f"{self.base}api/{path}", headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.load(resp)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """Stop the server and the kernels it started (the whole process group)."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
            except ProcessLookupError:
                pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kernel_env(dirs: dict[str, Path] | None = None) -> dict[str, str]:
    """Environment for Jupyter and its kernels in the tests.

    ``dirs`` (``config``, ``data``, ``runtime``, ``ipy``) isolate Jupyter's state in temporary
    folders; without them only the common part is set.
    """
    env = dict(os.environ)
    env.update(
        PYTHONUNBUFFERED="1",
        MPLBACKEND="module://matplotlib_inline.backend_inline",
        PATH=f"{_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    if dirs:
        env.update(
            JUPYTER_CONFIG_DIR=str(dirs["config"]),
            JUPYTER_DATA_DIR=str(dirs["data"]),
            JUPYTER_RUNTIME_DIR=str(dirs["runtime"]),
            IPYTHONDIR=str(dirs["ipy"]),
            JUPYTER_PLATFORM_DIRS="1",
        )
    # The kernel imports this checkout's attention_lab (what is under test) even when the
    # venv's editable install is stale or points elsewhere.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    for var in ("JUPYTER_PATH", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
        env.pop(var, None)
    # nbgrader's exchange: the course copy's own exchange/ (see nbgrader_config.py).
    env.pop("ATTENTION_LAB_EXCHANGE", None)
    return env


def start_jupyter(root: Path, work: Path, timeout: float = 90.0) -> JupyterServer:
    """Start JupyterLab from the venv, serving ``root``, with all its state under ``work``.

    The server's working directory is ``root`` too: nbgrader's formgrader reads the
    ``nbgrader_config.py`` found in the working directory.

    Parameters
    ----------
    root : Path
        The server's root dir (and cwd).
    work : Path
        A temporary directory for config, data, runtime, settings, workspaces and the log.
    timeout : float
        Seconds to wait for ``/api/status`` to answer.

    Returns
    -------
    JupyterServer
    """
    work.mkdir(parents=True, exist_ok=True)
    dirs = {name: work / name for name in ("config", "data", "runtime", "ipy")}
    for d in dirs.values():
        d.mkdir(exist_ok=True)
    # JupyterLab and Notebook 7 both read user settings (and keep workspaces) under
    # $JUPYTER_CONFIG_DIR/lab/ by default, so one temporary config dir serves both.
    for rel, values in _LAB_SETTINGS.items():
        target = dirs["config"] / "lab" / "user-settings" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))
    config = work / "jupyter_test_config.py"
    config.write_text(_SERVER_CONFIG)
    port, token = _free_port(), secrets.token_hex(16)
    env = kernel_env(dirs)
    log_path = work / "jupyter.log"
    cmd = [
        str(_BIN / "jupyter"),
        "lab",
        f"--config={config}",
        f"--port={port}",
        "--ip=127.0.0.1",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={token}",
    ]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = JupyterServer(root, port, token, proc, log_path, env)
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited with {proc.returncode}:\n{server.log()}")
        try:
            if server.api("status").get("started"):
                return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"jupyter lab not ready after {timeout:.0f} s:\n{server.log()}")
        time.sleep(0.1)  # poll interval of the readiness check, not a wait for an effect


def make_course_copy(dest: Path, include: tuple[str, ...] = ("notebooks", "source")) -> Path:
    """Copy the course (``nbgrader_config.py`` + the given folders) to ``dest``.

    The tests never serve the shared working tree itself: JupyterLab autosaves notebooks and
    the formgrader creates ``gradebook.db``, and neither may touch the repository.
    ``nbgrader_config.py`` sets the course root to its own folder, so the copy is a course.
    """
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "nbgrader_config.py", dest / "nbgrader_config.py")
    for name in include:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(
                src, dest / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
            )
        else:
            (dest / name).mkdir(exist_ok=True)
    return dest


def write_notebook(path: Path, cells: list[str]) -> Path:
    """Write a minimal nbformat-4 notebook of code cells (python3 kernel) to ``path``."""
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"cell-{i}",
                "metadata": {},
                "outputs": [],
                "source": src,
            }
            for i, src in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1))
    return path


# --------------------------------------------------------------------------------------------
# Notebooks in the page
# --------------------------------------------------------------------------------------------


class NotebookRunError(AssertionError):
    """A cell raised while the notebook ran in the browser."""


# The notebook currently shown: JupyterLab (window.jupyterapp, the shell's current widget) or
# Notebook 7 (window.jupyterapp too, with a single main widget).
_JS_PANEL = """
() => {
  const app = window.jupyterapp;
  if (!app || !app.shell) return null;
  const w = app.shell.currentWidget;
  return w && w.content && w.sessionContext ? w : null;
}
"""

_JS_KERNEL_IDLE = f"""
() => {{
  const panel = ({_JS_PANEL})();
  if (!panel || !panel.context.isReady || !panel.sessionContext.session) return false;
  const k = panel.sessionContext.session.kernel;
  return !!k && k.connectionStatus === 'connected' && k.status === 'idle';
}}
"""

# Progress of a run: done once every non-empty code cell has an execution count, no prompt is
# still "*" and the kernel is idle; errors are reported as soon as a cell shows one.
_JS_RUN_STATE = f"""
() => {{
  const panel = ({_JS_PANEL})();
  if (!panel) return {{done: false, errors: []}};
  const errors = [];
  let pending = 0;
  for (const cell of panel.content.widgets) {{
    const m = cell.model;
    if (m.type !== 'code') continue;
    for (let i = 0; i < m.outputs.length; i++) {{
      const o = m.outputs.get(i).toJSON();
      if (o.output_type === 'error') errors.push(o.ename + ': ' + o.evalue);
    }}
    if (m.sharedModel.getSource().trim() === '') continue;
    if (m.executionCount === null || m.executionState === 'running') pending += 1;
  }}
  const k = panel.sessionContext.session && panel.sessionContext.session.kernel;
  const idle = !!k && k.status === 'idle';
  return {{done: pending === 0 && idle, errors: errors, pending: pending}};
}}
"""


#: Every Playwright action's deadline (a wait returns as soon as its condition holds): generous,
#: because JupyterLab on a loaded machine can take long to answer.
DEFAULT_TIMEOUT_MS = 60_000

#: What Playwright says when an evaluation was lost rather than failed: the page's context went
#: away under it, or V8 collected the promise it was awaiting (seen on a loaded machine while
#: JupyterLab was busy). A read that hit one of these can be asked again.
TRANSIENT_EVALUATE_ERRORS = (
    "Execution context was destroyed",
    "Resulting promise was garbage collected",
    "Promise was collected",
)


def evaluate(target: Any, expression: str, arg: Any = None, attempts: int = 3) -> Any:
    """``target.evaluate(expression, arg)`` (a page or an element handle), asked again when
    Playwright reports a :data:`TRANSIENT_EVALUATE_ERRORS` error; any other error is raised.

    For reads: a command, whose effect must not happen twice, goes through :func:`run_command`.
    """
    from playwright.sync_api import Error

    for attempt in range(1, attempts + 1):
        try:
            return target.evaluate(expression, arg)
        except Error as exc:
            if attempt == attempts or not any(w in exc.message for w in TRANSIENT_EVALUATE_ERRORS):
                raise


def run_command(page: Any, command: str, args: dict | None = None) -> None:
    """Execute a JupyterLab command (once the app is restored) and await it.

    When Playwright loses the evaluation (:data:`TRANSIENT_EVALUATE_ERRORS`: Chromium may
    collect the command's pending promise on a loaded machine while the command goes on), the
    command is not run again: every caller then waits for the command's effect on a condition it
    can see (a panel open, every cell run), which fails with its own message if nothing happened.
    """
    from playwright.sync_api import Error

    try:
        page.evaluate(
            """([command, args]) => window.jupyterapp.restored
                 .then(() => window.jupyterapp.commands.execute(command, args))
                 .then(() => true)""",
            [command, args or {}],
        )
    except Error as exc:
        if not any(w in exc.message for w in TRANSIENT_EVALUATE_ERRORS):
            raise


def open_notebook(page: Any, server: JupyterServer, rel: str, ui: str = "lab") -> None:
    """Open notebook ``rel`` (relative to the server root) and wait for its kernel to be idle.

    ``ui="lab"`` opens it in JupyterLab (``/lab/tree/...``); ``ui="notebook"`` in the
    Notebook 7 interface (``/notebooks/...``).
    """
    # ?reset: start from an empty workspace, not the layout an earlier test left behind.
    path = f"lab/tree/{rel}?reset" if ui == "lab" else f"notebooks/{rel}"
    page.goto(server.url(path))
    page.locator(".jp-Notebook").first.wait_for(state="visible", timeout=60_000)
    page.wait_for_function(_JS_KERNEL_IDLE, timeout=60_000, polling=100)


def open_in_lab(page: Any, server: JupyterServer, rel: str) -> None:
    """Open notebook ``rel`` in an already loaded JupyterLab page (File > Open), kernel idle.

    Loading JupyterLab itself costs seconds of CPU; the lesson tests load it once and open
    each lesson in it (closing the previous one with :func:`close_current`).
    """
    if not page.url.startswith(server.base + "lab"):
        page.goto(server.url("lab?reset"))
    page.wait_for_function(
        "() => !!window.jupyterapp && window.jupyterapp.commands.hasCommand('docmanager:open')",
        timeout=60_000,
    )
    run_command(page, "docmanager:open", {"path": rel})
    page.wait_for_function(
        f"p => {{ const w = ({_JS_PANEL})(); return !!w && w.context.path === p; }}",
        arg=rel,
        timeout=60_000,
    )
    page.wait_for_function(_JS_KERNEL_IDLE, timeout=60_000, polling=100)


def close_current(page: Any) -> None:
    """Shut down the current notebook's kernel and close it without the unsaved-changes dialog."""
    # Started, not awaited: the wait below is on the panel being gone (see run_command).
    evaluate(
        page,
        f"""() => {{
              const w = ({_JS_PANEL})();
              if (!w) return false;
              w.context.model.dirty = false;  // a test run is not work to keep
              w.sessionContext.shutdown().finally(() => w.dispose());
              return true;
            }}""",
    )
    page.wait_for_function(f"() => !({_JS_PANEL})()", timeout=60_000)


def run_all_cells(page: Any, timeout_ms: float = 120_000) -> None:
    """Run every cell (the command behind Run > Run All Cells) and wait until all have run.

    Raises
    ------
    NotebookRunError
        As soon as a cell shows an error output, with the error's name and message.
    """
    run_command(page, "notebook:run-all-cells")
    handle = page.wait_for_function(
        f"() => {{ const s = ({_JS_RUN_STATE})(); return (s.done || s.errors.length) ? s : null; }}",
        timeout=timeout_ms,
        polling=100,
    )
    state = handle.json_value()
    if state["errors"]:
        raise NotebookRunError("cell error in the browser: " + "; ".join(state["errors"]))


def widget_error_texts(page: Any) -> list[str]:
    """Texts of every "Error displaying widget" (ipywidgets' failure message) on the page."""
    return page.locator("text=/Error displaying widget/").all_inner_texts()


# --------------------------------------------------------------------------------------------
# Sliders (ipywidgets 8 draws them with noUiSlider: a .noUi-handle with role="slider")
# --------------------------------------------------------------------------------------------


def slider_handle(slider: Any) -> Any:
    """The draggable, focusable handle of an ipywidgets slider (``.widget-slider`` locator)."""
    return slider.locator(".noUi-handle").first


def slider_readout(slider: Any) -> str:
    """The value an ipywidgets slider shows beside itself."""
    return slider.locator(".widget-readout").inner_text().strip()


def slider_value(slider: Any) -> float:
    """The slider's shown value as a number (d3-format writes minus as U+2212)."""
    return float(slider_readout(slider).replace("\u2212", "-"))


def press_slider(slider: Any, key: str = "ArrowRight", times: int = 1) -> None:
    """Focus the slider's handle and press ``key`` ``times`` times, as a keyboard user does."""
    handle = slider_handle(slider)
    handle.focus()
    for _ in range(times):
        handle.press(key)


def drag_slider(page: Any, slider: Any, fraction: float, steps: int = 3) -> None:
    """Drag the slider's handle with the mouse to ``fraction`` (0..1) of the track.

    ``steps`` intermediate mouse moves: each one the widget may send to the kernel as a new
    value (``continuous_update``), so a few are enough to be a drag and keep the kernel calm.
    """
    handle = slider_handle(slider)
    handle.scroll_into_view_if_needed()
    hbox = handle.bounding_box()
    track = slider.locator(".noUi-target").first.bounding_box()
    if hbox is None or track is None:
        raise AssertionError("slider not visible: cannot drag it")
    y = hbox["y"] + hbox["height"] / 2
    page.mouse.move(hbox["x"] + hbox["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(track["x"] + fraction * track["width"], y, steps=steps)
    page.mouse.up()


# --------------------------------------------------------------------------------------------
# Images
# --------------------------------------------------------------------------------------------


def image_bytes(img: Any) -> bytes:
    """The bytes behind an ``<img>`` (its blob:/data: src, read in the page)."""
    data = img.evaluate(
        """async (el) => {
             const buf = new Uint8Array(await (await fetch(el.src)).arrayBuffer());
             let s = ''; for (const b of buf) s += String.fromCharCode(b);
             return btoa(s);
           }"""
    )
    import base64

    return base64.b64decode(data)


def wait_for_new_image(img: Any, old_src: str, timeout_ms: float = 60_000) -> str:
    """Wait until the ``<img>`` shows a different src, loaded and decoded; return the new src."""
    img.page.wait_for_function(
        "([el, old]) => el.src !== old && el.complete && el.naturalWidth > 0",
        arg=[img.element_handle(), old_src],
        timeout=timeout_ms,
        polling="raf",
    )
    return img.get_attribute("src")


# --------------------------------------------------------------------------------------------
# Accessibility
# --------------------------------------------------------------------------------------------


def axe_violations(page: Any, include: list[str] | None = None) -> list[dict]:
    """Run axe-core (bundled by ``axe-playwright-python``) on the page or on ``include`` selectors.

    Returns axe's violation records (``id``, ``impact``, ``help``, ``nodes`` with ``target``).
    """
    from axe_playwright_python.sync_playwright import Axe
    from playwright.sync_api import Error

    context = {"include": [[sel] for sel in include]} if include else None
    for attempt in range(1, 4):  # a read: asked again when the evaluation was lost (evaluate)
        try:
            return Axe().run(page, context=context).response["violations"]
        except Error as exc:
            if attempt == 3 or not any(w in exc.message for w in TRANSIENT_EVALUATE_ERRORS):
                raise
    raise AssertionError("unreachable")


def serious_violations(
    page: Any, violations: list[dict], ours: str, not_ours: tuple[tuple[str, str], ...] = ()
) -> list[str]:
    """Critical/serious violations located in what the project renders, as readable lines.

    Parameters
    ----------
    page : Page
        The audited page (each node's selector is resolved there).
    violations : list of dict
        From :func:`axe_violations`.
    ours : str
        CSS selector of the project's content: a node counts when it lies inside it
        (``element.closest(ours)``); everything else (JupyterLab's or nbconvert's own
        chrome: toolbars, prompts, the code editor's theme) is not the project's to fix.
    not_ours : tuple of (rule id, CSS selector)
        Known upstream markup inside our content, excluded by rule and element, e.g.
        ipywidgets' slider handle; each exclusion must be justified where it is passed.
    """
    found = [
        (v, node, node["target"][-1] if node["target"] else "")
        for v in violations
        if v.get("impact") in ("critical", "serious")
        for node in v["nodes"]
    ]
    # Every node located in one evaluation: a page's chrome can hold hundreds (the code
    # inputs' colours), and a round trip to the page each cost seconds in all.
    places = evaluate(
        page,
        """([nodes, ours]) => nodes.map(([t, skip]) => {
             const el = document.querySelector(t);
             if (!el) return 'missing';
             if (skip.some(s => el.matches(s))) return 'upstream';
             return el.closest(ours) ? 'ours' : 'chrome';
           })""",
        [[[t, [sel for rule, sel in not_ours if rule == v["id"]]] for v, _, t in found], ours],
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {target}: {node['html']}"
        for (v, node, target), where in zip(found, places, strict=True)
        if where in ("ours", "missing")
    ]


class BackgroundJob:
    """A command run in the background while other tests go on; ``wait()`` for its result."""

    def __init__(self, cmd: list[str], cwd: Path, env: dict[str, str], log_path: Path):
        self.cmd, self.log_path = cmd, log_path
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                cmd,
                cwd=cwd,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                # Lower priority: the interactive tests running meanwhile come first.
                preexec_fn=lambda: os.nice(10),
            )

    def wait(self, timeout: float) -> None:
        """Wait for the command; raise with its output if it failed or took too long."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(f"{' '.join(self.cmd)} took over {timeout:.0f} s") from None
        if code != 0:
            out = self.log_path.read_text(errors="replace")[-4000:]
            raise AssertionError(f"{' '.join(self.cmd)} exited with {code}:\n{out}")

    def stop(self) -> None:
        """End the command's whole process group; on a busy machine a TERM may wait its turn
        (the job runs niced), so it is killed outright, then waited for, however long that takes.
        """
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:  # it ended meanwhile
                pass
            self.process.wait()
