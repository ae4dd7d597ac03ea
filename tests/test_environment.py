"""The set-up: pip pins and environment.yml agree, the venv has what they pin, and the JupyterLab
and server extensions the course needs are installed and enabled."""

import logging
import re
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml
from jupyter_core.paths import jupyter_config_path, jupyter_path
from jupyter_server.extension.config import ExtensionConfigManager
from jupyterlab_server.config import get_federated_extensions, get_page_config

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)$")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        match = PIN.match(line)
        assert match, f"requirements.txt line is not an exact '==' pin: {line!r}"
        pins[canonical(match[1])] = match[2]
    return pins


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
        if name == "python":
            python = ver
        elif name != "pip":
            assert ver and not ver.startswith("="), f"environment.yml: pin {dep!r} as name=version"
            pins[canonical(name)] = ver
    return pins, python


def test_environment_yml_and_requirements_pin_the_same_packages_and_versions():
    pip, (conda, python) = pip_pins(), conda_pins()
    assert python == "3.11"
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
    pip_section = next(d for d in env["dependencies"] if isinstance(d, dict))["pip"]
    assert "-e ." in pip_section, "Binder must install attention_lab itself"


@pytest.mark.parametrize("name", sorted(pip_pins()))
def test_the_venv_has_exactly_the_pinned_version(name):
    assert version(name) == pip_pins()[name], "the venv is stale: run `make setup`"


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
    """Binder users get the same Notebook 7 settings and the same trimmed imports."""
    import os
    import subprocess
    import sys

    script = (ROOT / "postBuild").read_text()
    assert f"uninstall --disable-pip-version-check -q -y {' '.join(_slow_imports())}" in script
    env = {**os.environ, "NB_PYTHON_PREFIX": str(tmp_path)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    subprocess.run(["bash", str(ROOT / "postBuild")], cwd=ROOT, env=env, check=True)
    wanted = (ROOT / "jupyter-settings" / "overrides.json").read_text()
    settings = Path("share") / "jupyter" / "lab" / "settings" / "overrides.json"
    assert (tmp_path / settings).read_text() == wanted
    assert (Path(sys.prefix) / settings).read_text() == wanted, "run `make setup`"
    # The course's Jupyter server loads the formgrader's Content-Security-Policy extension.
    server = Path("etc") / "jupyter" / "jupyter_server_config.d" / "attention_grader.json"
    wanted = ROOT / "jupyter-settings" / "jupyter_server_config.d" / "attention_grader.json"
    assert (tmp_path / server).read_text() == wanted.read_text()
    assert (Path(sys.prefix) / server).read_text() == wanted.read_text(), "run `make setup`"
