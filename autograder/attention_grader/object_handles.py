"""A student's object, seen from the grader: a handle whose every use is a request to the kernel.

An object of a student's class (``s = Stack()``), a bound method or a function a student's code
returns stays in the student's kernel. The grader gets an :class:`ObjectHandle` holding only a
number; reading a public attribute, calling it, ``len``, iterating, indexing and ``bool`` become
requests (``{"op": "handle", ...}``) whose replies are data or another handle. Nothing of the
student's runs in the grader: attributes starting with ``_`` are refused here without asking the
kernel (so numpy's ``__array_interface__`` and the like never reach it), and ``==`` is identity,
so a student's ``__eq__`` never decides a comparison.
"""

from __future__ import annotations

__all__ = ["ObjectHandle"]


class ObjectHandle:
    """Stands in for one object living in the student's kernel.

    Parameters
    ----------
    channel : AnswerChannel
        Sends the requests (``channel.handle_op``).
    key : int
        The object's number in the kernel's table of handles.
    type_name : str
        The object's class name (for messages only).
    """

    __slots__ = ("_channel", "_key", "_type_name")

    def __init__(self, channel, key: int, type_name: str):
        object.__setattr__(self, "_channel", channel)
        object.__setattr__(self, "_key", int(key))
        object.__setattr__(self, "_type_name", str(type_name)[:80])

    def _op(self, action: str, **fields):
        return self._channel.handle_op(self._key, action, **fields)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._op("attr", name=name)

    def __setattr__(self, name: str, value) -> None:
        from .needs_teacher import CannotGrade

        cause = f"the test sets `.{name}` on a {self._type_name} object that stays in the kernel"
        self._channel.uncarried.append(cause)
        raise CannotGrade(cause)

    def __call__(self, *args, **kwargs):
        return self._op("call", args=args, kwargs=kwargs)

    def __len__(self) -> int:
        value = self._op("len")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise TypeError("len() of the student's object is not a count")
        return value

    def __iter__(self):
        values = self._op("iter")
        return iter(values if isinstance(values, list) else [])

    def __getitem__(self, key):
        return self._op("item", key=key)

    def __bool__(self) -> bool:
        return self._op("bool") is True

    def __eq__(self, other) -> bool:
        return self is other

    def __hash__(self) -> int:
        return hash((id(self._channel), self._key))

    def __repr__(self) -> str:
        return f"<{self._type_name} object in the student's kernel>"
