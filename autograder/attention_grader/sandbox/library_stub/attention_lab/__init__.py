"""attention_lab as a student's kernel sees it while an implement-it exercise is graded.

The real package is not mounted in that kernel (bubblewrap binds this folder over it), so no
spelling of an import, no ``importlib`` call and no ``open(...)`` of its files reaches a working
softmax or attention. Imports still succeed, so a notebook runs as the student wrote it: ``from
attention_lab import checks`` gives checks that do nothing here (they run in the grader), and
every other name, in any submodule, is a stand-in that raises :class:`LibraryHidden` when it is
called or used. The grader's checks read that error as the ``used_library`` misconception.
"""

import importlib.abc
import importlib.machinery
import sys
import types

MARKER = "attention_lab is not available while an implement-it exercise is graded"
MESSAGE = f"{MARKER}: write it yourself with numpy (np.exp, np.max, np.sum, @, np.where ...)"


class LibraryHidden(ImportError):
    """Raised when anything of attention_lab but its (inert) checks is used."""


class _Hidden:
    """Stands for one attention_lab name: calling it raises, its attributes are stand-ins too."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Hidden(f"{self._name}.{attr}")

    def __call__(self, *args, **kwargs):
        raise LibraryHidden(f"{MESSAGE} ({self._name})")

    def __repr__(self):
        return f"<{self._name}: not available while graded>"


def _stand_ins(module_name):
    def __getattr__(attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if module_name == "attention_lab" and attr == "checks":
            import importlib

            return importlib.import_module("attention_lab.checks")
        return _Hidden(f"{module_name}.{attr}")

    return __getattr__


__getattr__ = _stand_ins("attention_lab")


class _HiddenSubmodules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import attention_lab.core`` (any submodule but checks) gives a module of stand-ins."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith("attention_lab.") and fullname != "attention_lab.checks":
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__getattr__ = _stand_ins(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        return None


sys.meta_path.insert(0, _HiddenSubmodules())
