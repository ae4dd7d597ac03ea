"""Which tests share a pytest-xdist worker (tests/conftest.py's scheduler reads it).

Its own module, not conftest.py: tests/hub has a conftest.py too, so ``from conftest import``
in a test found whichever was imported first.
"""

from __future__ import annotations

#: ``make test`` runs the tests on two cores (pytest-xdist, ``--dist loadgroup``), one group of
#: modules at a time per worker: each module is its own group (a module-scoped fixture is built
#: once), tests/hub is one (never two hubs at once), tests/browser is one (one JupyterLab, one
#: Chromium and one ``make html`` in the background: tests/browser/conftest.py's package
#: fixtures), and the modules that read a class of tests/graded_classes.py (the ``shared_class``
#: fixture, built once per process) share one, so it is graded once. What is built once per
#: run for every worker (the lessons, the attack batches: tests/run_cache.py) needs no group.
#: tests/test_xdist_groups.py checks that every reader of a shared class is listed here.
SHARED_GROUPS = {
    "standard-class": (
        "tests/attention_grader/term/test_grade.py",
        "tests/attention_grader/test_postgres.py",
    ),
}
_GROUP_OF_MODULE = {module: group for group, modules in SHARED_GROUPS.items() for module in modules}
#: Folders whose modules all run in one group, named by the folder.
WHOLE_FOLDERS = ("tests/hub/", "tests/browser/")


def xdist_group(nodeid: str) -> str:
    """The group a test runs in under ``--dist loadgroup``: shared, a whole folder's, or its module."""
    module = nodeid.split("::", 1)[0]
    for folder in WHOLE_FOLDERS:
        if module.startswith(folder):
            return folder.rstrip("/")
    return _GROUP_OF_MODULE.get(module, module)
