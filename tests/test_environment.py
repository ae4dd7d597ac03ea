"""The set-up: the pins (requirements.txt), the lock (requirements-lock.txt), pyproject's audiences
and environment.yml agree, the venv holds exactly what the lock pins, students get no test or hub
tools, and the JupyterLab and server extensions the course needs are installed and enabled.
"""

import logging
import re
import site
from importlib.metadata import distributions, version
from pathlib import Path

import pytest
import yaml
from jupyter_core.paths import jupyter_config_path, jupyter_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyterlab_server.config import get_federated_extensions, get_page_config
from packaging.markers import Marker

from tests.support.project_packages import audience, canonical, closure, pyproject

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)$")
LOCK_LINE = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)(?:\s*;\s*(.+))?$")
# What make test installs on top of the students' packages (postgres is for a hub's gradebook).
TEST_EXTRAS = ("grader", "hub", "test")
# conda-forge's name for matplotlib without the Qt backend
CONDA_NAMES = {"matplotlib-base": "matplotlib"}


def pin_matches(name: str, pattern: re.Pattern) -> list[re.Match]:
    """Each non-comment line of the requirements file ``name``, matched as an exact pin."""
    matches = []
    for line in (ROOT / name).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = pattern.match(line)
            assert match, f"{name} line is not an exact '==' pin: {line!r}"
            matches.append(match)
    return matches


def pip_pins() -> dict[str, str]:
    return {canonical(m[1]): m[2] for m in pin_matches("requirements.txt", PIN)}


def conda_pins() -> tuple[dict[str, str], str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pins, python = {}, ""
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for item in dep.get("pip", []):
                if item.startswith("-e"):
                    continue
                match = PIN.match(item)
                assert match, f"environment.yml pip entry is not an exact '==' pin: {item!r}"
                pins[canonical(match[1])] = match[2]
            continue
        name, _, ver = dep.partition("=")
        name = CONDA_NAMES.get(name, name)
        if name == "python":
            python = ver
        elif name != "pip":
            assert ver and not ver.startswith("="), f"environment.yml: pin {dep!r} as name=version"
            pins[canonical(name)] = ver
    return pins, python


def lock_pins() -> dict[str, list[tuple[str, Marker | None]]]:
    """Each locked name: its (version, environment marker) lines (one per platform range)."""
    pins: dict[str, list[tuple[str, Marker | None]]] = {}
    for match in pin_matches("requirements-lock.txt", LOCK_LINE):
        marker = Marker(match[3]) if match[3] else None
        pins.setdefault(canonical(match[1]), []).append((match[2], marker))
    return pins


def locked_version(name: str) -> str | None:
    """The lock's version of ``name`` for this interpreter and platform."""
    for ver, marker in lock_pins().get(canonical(name), []):
        if marker is None or marker.evaluate():
            return ver
    return None


def test_the_lock_holds_every_pin_of_requirements_txt_at_its_version():
    lock = lock_pins()
    wrong = {
        name: (ver, [v for v, _ in lock.get(name, [])])
        for name, ver in pip_pins().items()
        if [v for v, _ in lock.get(name, [])] != [ver]
    }
    assert not wrong, f"requirements.txt vs requirements-lock.txt (run `make lock`): {wrong}"


def test_the_lock_covers_every_name_pyproject_declares():
    every = audience(*pyproject()["optional-dependencies"])
    missing = sorted(every - set(lock_pins()))
    assert not missing, f"declared in pyproject.toml, not locked (run `make lock`): {missing}"


def test_every_pin_belongs_to_an_audience_of_pyproject():
    """A pin no pyproject group declares would be installed by no make target."""
    orphans = sorted(set(pip_pins()) - audience(*pyproject()["optional-dependencies"]))
    assert not orphans, f"pinned in requirements.txt, declared nowhere in pyproject.toml: {orphans}"


def test_environment_yml_pins_the_student_and_grader_packages_as_requirements_txt_does():
    pip, (conda, python) = pip_pins(), conda_pins()
    assert python == "3.11"
    # Binder/conda: the lessons and the grader, not the test, lint or hub tools
    pip = {name: ver for name, ver in pip.items() if name in audience("grader")}
    only_pip = sorted(set(pip) - set(conda))
    only_conda = sorted(set(conda) - set(pip))
    assert not only_pip and not only_conda, (
        f"only in requirements.txt: {only_pip}; only in environment.yml: {only_conda}"
    )
    differ = {name: (pip[name], conda[name]) for name in pip if pip[name] != conda[name]}
    assert not differ, f"versions differ (requirements.txt, environment.yml): {differ}"


def test_environment_yml_is_binder_ready():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert env["channels"] == ["conda-forge"]
    names = [d for d in env["dependencies"] if isinstance(d, str)]
    assert "matplotlib-base" in [n.split("=")[0] for n in names]
    assert not any(n.split("=")[0] == "matplotlib" for n in names), "matplotlib pulls in Qt"
    pip_section = next(d for d in env["dependencies"] if isinstance(d, dict))["pip"]
    # repo2docker copies the whole repository before an environment with `-e .` can build
    assert not any(item.startswith("-e") for item in pip_section), "postBuild installs the package"
    tools = audience("hub", "test", "postgres", students=False) - audience("grader")
    assert not tools & set(conda_pins()[0]), "test, lint and hub tools stay out of Binder"


@pytest.mark.parametrize("name", sorted(audience(*TEST_EXTRAS)))
def test_the_venv_has_exactly_the_locked_version(name):
    assert version(name) == locked_version(name), "the venv is stale: run `make test`"


@pytest.mark.slow
def test_every_package_in_the_venv_comes_from_the_lock():
    """`make setup` installs from the lock: nothing unpinned slips in beside it."""
    own = {"attention-lab", "pip", "setuptools", "wheel"}  # the venv's own tools and the course
    unlocked, differ = [], {}
    # Only what is installed in the venv: once setuptools is imported (nbgrader does), its
    # bundled copies (setuptools/_vendor/*.dist-info) are on sys.path too, but nobody installed them.
    installed = [str(Path(p).resolve()) for p in site.getsitepackages()]
    for dist in distributions(path=installed):
        name = canonical(dist.metadata["Name"])
        if name in own:
            continue
        locked = locked_version(name)
        if locked is None:
            unlocked.append(name)
        elif dist.version != locked:
            differ[name] = (dist.version, locked)
    assert not unlocked, f"installed but not in requirements-lock.txt: {sorted(unlocked)}"
    assert not differ, f"installed vs locked (run `make test`): {differ}"


def test_students_get_no_test_lint_or_hub_tools():
    """`make lab` installs pyproject's dependencies only: none of them needs these."""
    student = closure(audience())
    for tool in ("playwright", "pytest", "ruff", "jupyterhub", "axe-playwright-python", "psycopg"):
        assert tool not in student, f"a student install would pull in {tool}"
    assert {"jupyterlab", "notebook", "nbgrader", "ipywidgets", "matplotlib"} <= student


def test_attention_lab_is_installed_editable_from_this_checkout():
    import attention_lab

    assert Path(attention_lab.__file__).resolve().parent == ROOT / "attention_lab"


@pytest.mark.parametrize(
    "extension",
    ["@jupyter/nbgrader", "@jupyter-widgets/jupyterlab-manager", "@jupyter-notebook/lab-extension"],
)
def test_jupyterlab_extension_installed_and_enabled(extension):
    paths = jupyter_path("labextensions")
    assert extension in get_federated_extensions(paths), f"{extension} is not installed"
    page = get_page_config(paths, logger=logging.getLogger(__name__))
    disabled = page.get("disabledExtensions", [])
    assert not any(d == extension or d.startswith(extension + ":") for d in disabled)


@pytest.mark.parametrize(
    "extension",
    [
        "nbgrader.server_extensions.assignment_list",
        "nbgrader.server_extensions.formgrader",
        "nbgrader.server_extensions.validate_assignment",
    ],
)
def test_nbgrader_server_extension_enabled(extension):
    enabled = ExtensionConfigManager(
        read_config_path=jupyter_config_path()
    ).get_jpserver_extensions()
    assert enabled.get(extension) is True


def _slow_imports() -> list[str]:
    match = re.search(r"^SLOW_IMPORTS\s*:=\s*(.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert match, "the Makefile no longer defines SLOW_IMPORTS"
    return match[1].split()


@pytest.mark.slow
def test_the_venv_is_without_the_slow_iri_checker_and_pip_is_consistent():
    """rfc3987-syntax costs every Jupyter process 2.7 s of import; `make setup` removes it."""
    import importlib.util
    import subprocess
    import sys

    for dist in _slow_imports():
        module = canonical(dist).replace("-", "_")
        assert importlib.util.find_spec(module) is None, f"{dist} is installed: run `make setup`"
    check = subprocess.run(
        [sys.executable, "-m", "pip", "check"], capture_output=True, text=True, check=False
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_binder_postbuild_does_what_make_setup_does(tmp_path):
    """Binder users get the package, the same Notebook 7 settings and the same trimmed imports."""
    import os
    import subprocess
    import sys

    # A stand-in `python` records the pip calls (a real one would re-install this venv's package).
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python").write_text(f'#!/bin/sh\necho "$*" >> {tmp_path / "pip.log"}\n')
    (fake / "python").chmod(0o755)
    env = {**os.environ, "NB_PYTHON_PREFIX": str(tmp_path)}
    env["PATH"] = f"{fake}{os.pathsep}{env['PATH']}"
    subprocess.run(["bash", str(ROOT / "postBuild")], cwd=ROOT, env=env, check=True)
    calls = (tmp_path / "pip.log").read_text().splitlines()
    assert calls == [
        "-m pip install --disable-pip-version-check -q --no-deps -e .",
        f"-m pip uninstall --disable-pip-version-check -q -y {' '.join(_slow_imports())}",
    ]
    wanted = (ROOT / "jupyter-settings" / "overrides.json").read_text()
    settings = Path("share") / "jupyter" / "lab" / "settings" / "overrides.json"
    assert (tmp_path / settings).read_text() == wanted
    assert (Path(sys.prefix) / settings).read_text() == wanted, "run `make setup`"
    # The course's Jupyter server loads the formgrader's Content-Security-Policy extension and
    # the kernel websockets' TCP_NODELAY (attention_lab.nodelay).
    for name in ("attention_grader.json", "attention_lab.json"):
        server = Path("etc") / "jupyter" / "jupyter_server_config.d" / name
        wanted = ROOT / "jupyter-settings" / "jupyter_server_config.d" / name
        assert (tmp_path / server).read_text() == wanted.read_text()
        assert (Path(sys.prefix) / server).read_text() == wanted.read_text(), "run `make setup`"
