"""attention_lab as a student's kernel sees it while an implement-it exercise is graded.

The real package is not mounted in that kernel (bubblewrap binds this folder over it), so no
spelling of an import, no ``importlib`` call and no ``open(...)`` of its files reaches a working
softmax or attention. ``from attention_lab import checks`` still works (the read-only cells
import it); the checks themselves run in the grader, so here they do nothing. Anything else
raises :class:`LibraryHidden`, whose message the grader looks for to flag the attempt.
"""

import importlib.abc
import sys

MARKER = "attention_lab is not available while an implement-it exercise is graded"
MESSAGE = f"{MARKER}: write it yourself with numpy (np.exp, np.max, np.sum, @, np.where ...)"


class LibraryHidden(ImportError):
    """Raised for any use of attention_lab beyond its (inert) checks."""


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name == "checks":
        import importlib

        return importlib.import_module("attention_lab.checks")
    raise LibraryHidden(f"{MESSAGE} (attention_lab.{name})")


class _HiddenSubmodules(importlib.abc.MetaPathFinder):
    """``import attention_lab.core`` (or any submodule but checks) raises LibraryHidden."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("attention_lab.") and fullname != "attention_lab.checks":
            raise LibraryHidden(f"{MESSAGE} ({fullname})")
        return None


sys.meta_path.insert(0, _HiddenSubmodules())
