"""The stand-ins of one student's kernel: one class per class there, one handle per object.

The answer channel decodes every object that stays in the kernel through its
:class:`HandleTable` (:mod:`~attention_grader.channel.object_handles` holds the handles
themselves), so the same object is the same handle here and a student's exception class is an
exception class the test can catch. Each notebook holds at most ``c.Answers.max_classes``
stand-in classes and ``c.Answers.max_handles`` handles.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from attention_grader.channel.object_handles import ObjectHandle, StudentClass, stand_in_class
from attention_grader.wire.answer_codec import Wire
from attention_grader.wire.answer_errors import ERROR_CLASSES, CannotGrade, StudentCodeError
from attention_grader.wire.kernel_requests import KernelRequests

__all__ = ["HandleTable"]


class HandleTable:
    """The stand-ins of one student's kernel: one class per class there, one handle per object.

    The same object in the kernel is the same handle here (``a is b`` holds as in plain
    nbgrader), and an exception class of the student's (``class EmptyStack(Exception)``)
    becomes an exception class here, so ``except EmptyStack`` catches what their code raises.

    Attributes
    ----------
    exceptions : dict of str to type
        The student's exception classes a test has read, by name.
    teacher_class : callable
        ``f(name) -> bool``: the teacher's read-only cells define a class of that name (set by
        the checker); an object of it stays in the kernel, so a test comparing it with the
        teacher's own objects cannot be followed.
    """

    def __init__(self, channel: KernelRequests) -> None:
        self.channel = channel
        self._classes: dict[int, StudentClass] = {}
        self._objects: dict[int, ObjectHandle] = {}
        self.exceptions: dict[str, type] = {}
        self.teacher_class: Callable[[str], bool] = lambda name: False

    def stand_in(self, key: int | None, info: dict[str, Wire]) -> object:
        """Return the handle of object ``key`` of class ``info`` (for ``key=None``, the class)."""
        name = str(info.get("name", "object"))[:80] or "object"
        module = str(info.get("module", ""))[:80]
        error = [str(b)[:80] for b in info.get("error", [])[:20]] if isinstance(
            info.get("error"), list
        ) else []  # fmt: skip
        if key is None and error:
            return self._exception(name, module, error)
        cls = self._classes.get(info["key"])
        if cls is None:
            self._room(len(self._classes) + len(self.exceptions), "max_classes", "classes")
            cls = stand_in_class(self.channel, info["key"], name, module, info["caps"][:40])
            self._classes[info["key"]] = cls
        self._note(name, module)
        if key is None:
            return cls
        handle = self._objects.get(key)
        if handle is None or type(handle) is not cls:
            self._room(len(self._objects), "max_handles", "objects")
            handle = object.__new__(
                cast("type[ObjectHandle]", cls)
            )  # a StudentClass makes ObjectHandles
            ObjectHandle.__init__(handle, self.channel, key, name)
            self._objects[key] = handle
        return handle

    def _room(self, held: int, limit: str, what: str) -> None:
        """Refuse one more stand-in past the notebook's cap (``c.Answers.<limit>``).

        Each is memory in the grader: fresh classes without end would grow it past any
        budget. The test needs a teacher, pass or fail.
        """
        cap = getattr(self.channel.limits, limit)
        if held >= cap:
            cause = f"the student's kernel handed the grader more than {cap} {what} to stand in for"
            self.channel.touched(cause)
            raise CannotGrade(cause)

    def _exception(self, name: str, module: str, mro: list[str]) -> type:
        if name not in self.exceptions:
            self._room(len(self._classes) + len(self.exceptions), "max_classes", "classes")
            base = next((ERROR_CLASSES[b] for b in mro if b in ERROR_CLASSES), StudentCodeError)
            self.exceptions[name] = type(name, (base,), {"__module__": module or "student"})
        return self.exceptions[name]

    def _note(self, name: str, module: str) -> None:
        """Note an object not of the student's own classes: a test failing on it needs a teacher."""
        if module.split(".")[0] == "pandas":
            cause = (
                f"cannot grade: the answer is a pandas {name}, and pandas objects are not carried "
                "out of the student's kernel (the grader follows only what the test reads of it: "
                "attributes, calls, items); a teacher grades the cell"
            )
        elif module not in ("__main__", "builtins") or self.teacher_class(name):
            cause = (
                f"the answer holds a {module}.{name} object, which stays in the student's "
                "kernel: the grader follows its attributes, calls and items, not a comparison "
                "with the teacher's own objects"
            )
        else:
            return
        if cause not in self.channel.uncarried:
            self.channel.uncarried.append(cause)
