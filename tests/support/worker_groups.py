"""Which tests share a pytest-xdist worker (tests/conftest.py's scheduler reads it).

Its own module, not conftest.py: tests/hub has a conftest.py too, so ``from conftest import``
in a test found whichever was imported first.
"""

from __future__ import annotations

#: ``make test`` runs the tests in one pytest-xdist worker more than cores (``--dist
#: loadgroup``), one group of modules at a time per worker: each module is its own group (a module-scoped fixture is built
#: once), tests/hub is one (never two hubs at once) and tests/browser is one (one JupyterLab, one
#: Chromium and one ``make html`` in the background: tests/browser/conftest.py's package
#: fixtures). What several modules read is built once per run for every worker (the lessons,
#: the attack batches and the graded classes: tests/support/run_cache.py), so it needs no group.
WHOLE_FOLDERS = ("tests/hub/", "tests/browser/")
#: The two long groups (a real hub's tests one after another; JupyterLab, Chromium and the
#: pages of the lessons and of the attack batches): started first, one on each worker, so that
#: neither is what one worker still runs at the end while the other has nothing left (the
#: modules, smaller, fill in around them). Then pytest-xdist's order: most tests first.
FIRST_GROUPS = ("tests/hub", "tests/browser")


def xdist_group(nodeid: str) -> str:
    """The group a test runs in under ``--dist loadgroup``: a whole folder's, or its module."""
    module = nodeid.split("::", 1)[0]
    for folder in WHOLE_FOLDERS:
        if module.startswith(folder):
            return folder.rstrip("/")
    return module
