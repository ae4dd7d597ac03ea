"""The package's metadata: SPDX licence with its files, a content licence, project URLs, and the
`attention-grader` command, as the installed distribution reports them.
"""

import subprocess
import sys
from importlib.metadata import entry_points, metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_code_is_mit_and_the_content_cc_by_4_with_both_texts_shipped():
    meta = metadata("attention-lab")
    assert meta["License-Expression"] == "MIT"
    assert set(meta.get_all("License-File")) == {"LICENSE", "LICENSE-content.md"}
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    content = (ROOT / "LICENSE-content.md").read_text()
    assert "CC BY 4.0" in content and "creativecommons.org/licenses/by/4.0/" in content


def test_project_urls_point_at_the_repository():
    urls = dict(u.split(", ", 1) for u in metadata("attention-lab").get_all("Project-URL"))
    assert {"Homepage", "Source", "Issues", "Changelog"} <= set(urls)
    assert all(url.startswith(urls["Source"]) for url in urls.values())
    assert urls["Changelog"].endswith("/CHANGELOG.md") and (ROOT / "CHANGELOG.md").is_file()


def test_the_extras_are_the_audiences():
    assert set(metadata("attention-lab").get_all("Provides-Extra")) == {
        "grader",
        "hub",
        "postgres",
        "test",
    }


@pytest.mark.slow
def test_attention_grader_command_runs_the_cli():
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "attention-grader"]
    from attention_grader import cli

    # The installed command starts a fresh process, so the grader forks its workers directly
    # (as `python -m attention_grader` does) instead of paying for a fork server.
    assert script.load() is cli.console_main
    command = Path(sys.executable).parent / "attention-grader"
    done = subprocess.run([command, "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    for step in ("release", "collect", "grade", "feedback", "grades", "report"):
        assert step in done.stdout


def test_every_package_folder_is_installed():
    """A subpackage missing from pyproject's list imports from the source tree (an editable
    install finds it beside its parent) but not from a wheel, e.g. the Kubernetes image: list
    every folder with an ``__init__.py``.
    """
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    on_disk = {
        ".".join(p.parent.relative_to(root).parts)
        for root in (ROOT, ROOT / "autograder")
        for top in ("attention_lab", "attention_grader", "attention_hub")
        if (root / top).is_dir()
        for p in (root / top).rglob("__init__.py")
        if STUB not in p.parents  # data mounted into a kernel, not a package of the grader
    }
    assert on_disk == listed, on_disk ^ listed


STUB = ROOT / "autograder" / "attention_grader" / "sandbox" / "library_stub"


def test_the_library_stub_ships_as_package_data():
    """Every file of the implement-it stub matches pyproject's package-data, so a wheel has it."""
    import fnmatch
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["attention_grader.sandbox"]
    files = [p.relative_to(STUB.parent).as_posix() for p in STUB.rglob("*") if p.is_file()]
    files = [f for f in files if "__pycache__" not in f]
    assert files and all(any(fnmatch.fnmatch(f, pat) for pat in patterns) for f in files), files
