"""Which tests share a pytest-xdist worker (tests/conftest.py's scheduler reads it).

Its own module, not conftest.py: tests/hub has a conftest.py too, so ``from conftest import``
in a test found whichever was imported first.
"""

from __future__ import annotations

#: ``make test`` runs the tests on two cores (pytest-xdist, ``--dist loadgroup``), one group of
#: modules at a time per worker: each module is its own group (a module-scoped fixture is built
#: once), tests/hub is one (never two hubs at once), and the modules that read something built
#: once per process share one, so it is built once: the attack batches (tests/attacks/batch.py,
#: cached) and a class of tests/graded_classes.py (the ``shared_class`` fixture).
#: tests/test_xdist_groups.py checks that every reader of those is listed here.
SHARED_GROUPS = {
    "attack-batch": (
        "tests/test_attacks.py",
        "tests/browser/test_attack_pages.py",
        "tests/attention_grader/sandbox/test_sandbox.py",
    ),
    "standard-class": (
        "tests/attention_grader/term/test_grade.py",
        "tests/attention_grader/test_postgres.py",
    ),
}
_GROUP_OF_MODULE = {module: group for group, modules in SHARED_GROUPS.items() for module in modules}


def xdist_group(nodeid: str) -> str:
    """The group a test runs in under ``--dist loadgroup``: shared, the hub's, or its module."""
    module = nodeid.split("::", 1)[0]
    if module.startswith("tests/hub/"):
        return "tests/hub"
    return _GROUP_OF_MODULE.get(module, module)
