"""The placeholder for an answer that could not be carried out of the student's kernel.

A module, a text array, an answer too large...: the reply names what it was and the grader
holds an :class:`UnsupportedAnswer` instead. Any use of it tells the channel (``touch``), since a
test that read a placeholder says nothing about the student, pass or fail.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

__all__ = ["UnsupportedAnswer"]


class UnsupportedAnswer:
    """Stands in for an answer that is not plain data (a module, a text array, too large...).

    Every use of it (an attribute, ``==``, ``len``, ``bool``, ``repr``, numpy reading it, ...)
    calls ``touch(what)``: a test that used a placeholder says nothing about the student,
    whether it failed or passed (``x != expected`` holds for any placeholder), so the cell needs
    a teacher (:meth:`AnswerChannel.touched`).
    """

    __slots__ = ("what", "_touch")

    def __init__(self, what: str, touch: Callable[[str], None] | None = None):
        object.__setattr__(self, "what", str(what)[:80])
        object.__setattr__(self, "_touch", touch)

    def _used(self) -> None:
        touch = object.__getattribute__(self, "_touch")
        if touch is not None:
            touch(object.__getattribute__(self, "what"))

    def __getattribute__(self, name: str) -> Any:
        if name not in ("what", "_touch", "_used", "__class__"):
            object.__getattribute__(self, "_used")()
        return object.__getattribute__(self, name)

    def __repr__(self) -> str:
        self._used()
        return f"<{self.what}: not numbers, text or a list>"

    def __eq__(self, other: object) -> bool:
        self._used()
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        self._used()
        return NotImplemented

    def __hash__(self) -> int:
        self._used()
        return object.__hash__(self)

    def __bool__(self) -> bool:
        self._used()
        return True

    def __format__(self, spec: str) -> str:
        return repr(self)


def _placeholder_use(name: str) -> Callable[..., NoReturn]:
    def method(self: UnsupportedAnswer, *args: object, **kwargs: object) -> NoReturn:
        self._used()
        raise TypeError(f"{self.what} could not be carried out of the student's kernel")

    method.__name__ = name
    return method


for _name in (
    "__len__ __iter__ __contains__ __getitem__ __call__ __lt__ __le__ __gt__ __ge__ __add__ "
    "__radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __float__ __int__ "
    "__index__ __neg__ __abs__ __array__"
).split():
    setattr(UnsupportedAnswer, _name, _placeholder_use(_name))
