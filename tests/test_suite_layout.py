"""The test suite's own layout: every test module can be collected beside every other.

pytest imports a test module of a folder without ``__init__.py`` by its file name alone
(tests/attention_grader and tests/attention_hub have none: they would shadow the packages they
mirror), so two such modules of one name stop the whole suite's collection ("import file
mismatch"): tests/hub/test_course.py beside tests/attention_grader/config/test_course.py did.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_no_two_test_modules_outside_a_package_share_a_name():
    by_name: dict[str, list[str]] = defaultdict(list)
    for module in TESTS.rglob("test_*.py"):
        if not (module.parent / "__init__.py").exists():
            by_name[module.name].append(str(module.relative_to(TESTS)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}
