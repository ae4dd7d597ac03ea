"""A code cell's source read as Python: IPython syntax turned into plain Python, then parsed.

Every static reading of a cell (the names a test needs, the names a student rebinds, the
libraries code imports) parses it here, so ``%magic`` and ``!cmd`` lines never hide the rest.
"""

from __future__ import annotations

import ast

__all__ = ["answer_names", "parse_cell", "python_code"]


def python_code(source: str) -> str:
    """IPython syntax (``%magic``, ``!cmd``) as plain Python, so ``exec`` can run it."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def parse_cell(source: str) -> ast.Module | None:
    """Return a cell's syntax tree (IPython syntax too), or None when it is not valid Python."""
    try:
        return ast.parse(python_code(source))
    except (SyntaxError, ValueError):
        return None


def answer_names(source: str) -> list[str]:
    """Names a cell reads but does not define itself (sorted): what it needs from elsewhere."""
    tree = parse_cell(source)
    if tree is None:
        return []
    loaded: set[str] = set()
    stored: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            stored.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stored.add(node.name)
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
    return sorted(loaded - stored)
