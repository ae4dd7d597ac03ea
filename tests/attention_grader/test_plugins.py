"""The facade configs name (attention_grader.plugins) and the old names kept for one release
(attention_grader.renamed): configs name only the facade, each facade name is its module's
object, and an old module path still imports the module at its new place, with a warning.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import warnings
from pathlib import Path
from unittest import mock

import pytest
from attention_grader import plugins, renamed
from traitlets.utils.importstring import import_item

ROOT = Path(__file__).resolve().parents[2]
#: every file a course, a laptop, a hub or the docs write a config in
CONFIGS = [
    "nbgrader_config.py",
    "jupyter-settings/laptop/nbgrader_config.py",
    "autograder/jupyterhub/etc/nbgrader_config.py.in",
    "autograder/jupyterhub/z2jh-values.yaml",
    "docs/teachers.md",
]
CLASS_PATH = re.compile(r'(?:= ?"|--exporter=)(attention_grader\.[\w.]+)')
FROM_IMPORT = re.compile(r"^\s*from (attention_grader[\w.]*) import ([\w, ]+)", re.M)


@pytest.mark.parametrize("name", sorted(plugins.NAMES))
def test_each_facade_name_is_its_modules_object(name):
    module = importlib.import_module(plugins.NAMES[name])
    assert getattr(plugins, name) is getattr(module, name)
    assert import_item(f"attention_grader.plugins.{name}") is getattr(module, name)


def test_an_unknown_facade_name_says_which_names_there_are():
    with pytest.raises(AttributeError, match="SharePerDay"):
        plugins.NoSuchPlugin  # noqa: B018 -- the lookup is the test


@pytest.mark.parametrize("config", CONFIGS)
def test_configs_name_only_the_facade(config):
    text = (ROOT / config).read_text()
    paths = CLASS_PATH.findall(text)
    imports = FROM_IMPORT.findall(text)
    assert paths or imports, f"{config} names nothing of the grader: update CONFIGS"
    for path in paths:
        assert path.startswith("attention_grader.plugins."), f"{config}: {path}"
        assert import_item(path) is not None
    for module, names in imports:
        assert module == "attention_grader.plugins", f"{config}: from {module} import {names}"
        assert all(n.strip() in plugins.NAMES for n in names.split(","))


def test_the_server_extensions_enabled_are_the_facades():
    settings = ROOT / "jupyter-settings" / "jupyter_server_config.d" / "attention_grader.json"
    enabled = json.loads(settings.read_text())["ServerApp"]["jpserver_extensions"]
    hub = (ROOT / "autograder" / "jupyterhub" / "install.py").read_text()
    named = set(enabled) | set(re.findall(r'"(attention_grader\.[\w.]+)"', hub))
    assert named <= set(plugins.SERVER_EXTENSIONS)
    for name in plugins.SERVER_EXTENSIONS:
        module = importlib.import_module(name)
        assert callable(module._load_jupyter_server_extension), name
        assert module._jupyter_server_extension_points() == [{"module": name}]


@pytest.fixture
def old_names(monkeypatch):
    """A made-up former package and a moved module, to see the finder work in any layout."""
    monkeypatch.setitem(renamed.FORMER_PACKAGES, "attention_grader.gone_for_test", "its new place")
    monkeypatch.setitem(
        renamed.MOVED, "attention_grader.gone_for_test.texts", "attention_grader.common.safe_text"
    )
    monkeypatch.setitem(
        renamed.MOVED, "attention_grader.old_for_test", "attention_grader.common.safe_text"
    )
    yield
    for name in ("attention_grader.gone_for_test.texts", "attention_grader.gone_for_test",
                 "attention_grader.old_for_test"):  # fmt: skip
        sys.modules.pop(name, None)


def test_an_old_module_path_imports_the_new_module_and_warns(old_names):
    from attention_grader.common import safe_text

    with pytest.warns(
        FutureWarning, match=r"old_for_test is now attention_grader\.common\.safe_text"
    ):
        old = importlib.import_module("attention_grader.old_for_test")
    assert old is safe_text
    with mock.patch("attention_grader.old_for_test.html_text", lambda s: "patched"):
        assert safe_text.html_text("x") == "patched"  # patching the old path patches the module
    assert safe_text.html_text("<") == "&lt;"


def test_a_class_path_under_an_emptied_package_still_resolves(old_names):
    from attention_grader.common import safe_text

    with pytest.warns(FutureWarning) as caught:
        found = import_item("attention_grader.gone_for_test.texts.html_text")
    assert found is safe_text.html_text
    said = [str(w.message) for w in caught]
    assert any("gone_for_test is now its new place" in s for s in said)
    assert any("gone_for_test.texts is now attention_grader.common.safe_text" in s for s in said)


@pytest.mark.parametrize("old", sorted(renamed.MOVED))
def test_each_old_name_of_this_release_imports(old):
    """Where a module is now (``MOVED``'s value) the old name is an alias; until the move is
    applied, the old name is the module itself.
    """
    new = renamed.MOVED[old]
    if importlib.util.find_spec(new.rpartition(".")[0]) is None:  # not moved here yet
        assert importlib.import_module(old).__name__ == old
        return
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert importlib.import_module(old) is importlib.import_module(new)
    assert any(f"{old} is now {new}" in str(w.message) for w in caught)
