"""The code a doc page shows runs, and prints what its comments say it prints."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python_block(page: Path, heading: str) -> str:
    """The first ```python block after ``heading`` in ``page``."""
    text = page.read_text()
    after = text[text.index(heading) :]
    return re.search(r"```python\n(.*?)```", after, re.S).group(1)


def shown_results(code: str) -> list[tuple[str, str]]:
    """Lines that are a bare expression followed by ``# <its printed value>``."""
    pairs = []
    for line in code.splitlines():
        expr, sep, comment = line.partition("  # ")
        if sep and isinstance(ast.parse(expr.strip()).body[0], ast.Expr):
            pairs.append((expr.strip(), comment.strip()))
    return pairs


def test_students_page_your_own_cells_prints_what_it_says():
    code = python_block(ROOT / "docs" / "students.md", "## Trying things in your own cells")
    scope: dict = {}
    exec(compile(code, "docs/students.md", "exec"), scope)  # the whole block runs
    pairs = shown_results(code)
    assert pairs, "the block shows no result to check"
    for expr, shown in pairs:
        value = repr(eval(expr, scope))
        assert value.replace(" ", "") == shown.replace(" ", ""), f"{expr}: {value}, page: {shown}"
