"""The shipped hub configs (autograder/jupyterhub/jupyterhub_config*.py) loaded as JupyterHub loads
them, without a hub, over an exchange made as install.py makes it: for the tests of the
classroom's configuration (tests/attention_hub/test_classroom.py, test_hub_config_ops.py).
Imports JupyterHub's spawner when a config is loaded (the hub extra).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import install  # autograder/jupyterhub/install.py (on pytest's pythonpath)
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

HUB_DIR = Path(__file__).resolve().parents[2] / "autograder" / "jupyterhub"


def exchange_with_courses(root: Path, course_ids) -> Path:
    """An exchange whose course folders are this test's own (root, as install.py makes them)."""
    me = __import__("pwd").getpwuid(os.geteuid()).pw_name
    install.ensure_exchange(str(root), list(course_ids), me)
    return root


def load_hub_config(name: str, monkeypatch, **env) -> Config:
    """A shipped hub config as JupyterHub loads it, over an exchange made as install.py makes it
    (the config refuses to load without one).
    """
    if env.get("ATTENTION_LAB_ONE_ORIGIN") != "1":  # as the docs say: a subdomain per user
        env.setdefault("ATTENTION_LAB_SUBDOMAIN_HOST", "https://hub.school.example")
    tmp = Path(tempfile.mkdtemp(prefix="hubcfg-"))
    atexit.register(shutil.rmtree, tmp, True)
    if name == "jupyterhub_config_multi.py" and "ATTENTION_LAB_CLASSES" not in env:
        classes = json.loads((HUB_DIR / "classes.example.json").read_text())
        classes["exchange"] = str(tmp / "exchange")
        env["ATTENTION_LAB_CLASSES"] = str(tmp / "classes.json")
        Path(env["ATTENTION_LAB_CLASSES"]).write_text(json.dumps(classes))
    if name == "jupyterhub_config_multi.py":
        classes = json.loads(Path(env["ATTENTION_LAB_CLASSES"]).read_text())
        courses = [course["course_id"] for course in classes["courses"]]
        exchange_with_courses(Path(classes["exchange"]), courses)
    else:
        env.setdefault("ATTENTION_LAB_EXCHANGE", str(tmp / "exchange"))
        if not Path(env["ATTENTION_LAB_EXCHANGE"], "attention-lab").exists():
            exchange_with_courses(Path(env["ATTENTION_LAB_EXCHANGE"]), ["attention-lab"])
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    state = tmp / "hub-state"
    state.mkdir(mode=0o700)  # the hub starts only in a private folder
    monkeypatch.chdir(state)
    return PyFileConfigLoader(name, path=str(HUB_DIR)).load_config()
