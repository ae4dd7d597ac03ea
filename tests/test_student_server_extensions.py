"""What a student's Jupyter server loads on the hub: only what a student uses, cheaply.

`make hub-load N=30` regressed from a 7.4 s to an 83.5 s spawn (p50) when every student's server
started loading the formgrader's extensions (attention_grader.pages.csp, .formgrader_scores: nbconvert,
the grader) and, through attention_lab.nodelay, numpy. On a loaded 2-core machine each import
costs seconds per server, and a class spawns at once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "autograder" / "jupyterhub"))
import install  # noqa: E402  -- autograder/jupyterhub/install.py

TEACHER_ONLY = ("attention_grader.pages.csp", "attention_grader.term.formgrader_scores")


def test_the_nodelay_extension_imports_no_numpy():
    code = (
        "import sys, attention_lab.nodelay, attention_lab\n"
        "print(sorted(m for m in ('numpy', 'matplotlib', 'ipywidgets') if m in sys.modules))\n"
        "print(attention_lab.softmax.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.split()
    assert out == ["[]", "attention_lab.core"], out


def test_students_servers_leave_out_the_formgraders_extensions(tmp_path):
    student = install.write_role_configs(str(tmp_path))
    conf = json.loads(
        (student / "jupyter_server_config.d" / "attention-lab-student.json").read_text()
    )
    off = conf["ServerApp"]["jpserver_extensions"]
    for name in (*TEACHER_ONLY, "nbgrader.server_extensions.formgrader"):
        assert off.get(name) is False, name
    # Validate (a student's button) keeps naming the questions.
    assert "attention_grader.term.validate_labels" not in off
    page = json.loads((student / "labconfig" / "page_config.json").read_text())
    assert set(page["disabledExtensions"]) == {
        "@jupyter/nbgrader:formgrader",
        "@jupyter/nbgrader:create-assignment",
        "@jupyter/nbgrader:course-list",
    }
    # The instructors' own servers (several classes) keep the course's formgrader extensions.
    services = tmp_path / "attention-lab" / "instructor-services" / "jupyter_server_config.d"
    kept = json.loads(next(services.iterdir()).read_text())["ServerApp"]["jpserver_extensions"]
    assert not set(TEACHER_ONLY) & set(kept)
