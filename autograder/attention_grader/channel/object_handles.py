"""A student's object, seen from the grader: a handle whose every use is a request to the kernel.

An object of a student's class (``s = Stack()``), a bound method or a function a student's code
returns stays in the student's kernel. The grader gets an :class:`ObjectHandle` holding only a
number; reading an attribute, calling it, ``len``, iterating, indexing, ``str``/``repr``,
operators between the student's objects (``v + w``, ``a < b``, ``p == q``), ``copy.deepcopy``
become requests whose replies are data or another handle. Nothing of the student's runs in the
grader: dunder attributes are refused here without asking the kernel (so numpy's
``__array_interface__`` and the like never reach it).

Each handle is an instance of a stand-in class made for its class in the kernel
(:func:`stand_in_class`): ``type(s).__name__`` is ``"Stack"``, ``type(s) is Stack`` and
``isinstance(s, Stack)`` hold as in plain nbgrader when the test's ``Stack`` is the student's
class (which arrives as that same stand-in, :class:`StudentClass`), and the stand-in has
``__len__``, ``__call__``, ``__next__``, ... only when the student's class has them (``callable(s)``,
``len(s)`` raise or answer as they would).

What cannot be followed faithfully says so (:class:`~attention_grader.wire.answer_errors.CannotGrade`,
the cell needs a teacher), never a silent grade: comparing a student's object with ``==``,
``<``, ... to the teacher's *data* when its class defines that comparison (the student's
``__eq__`` would decide, and may claim to equal anything), an arithmetic operator between it and
the teacher's data (``abs(f(x) - e) < tol``: her ``__sub__`` would decide, and would receive
``e``), pickling one, or setting a dunder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NoReturn, SupportsIndex, cast

from attention_grader.wire.answer_errors import CannotGrade
from attention_grader.wire.kernel_requests import KernelRequests

__all__ = ["ObjectHandle", "StudentClass", "stand_in_class"]

_BINARY = ("add sub mul truediv floordiv mod pow matmul and or xor lshift rshift").split()
_COMPARE = {"eq": "__eq__", "ne": "__eq__", "lt": "__lt__", "le": "__le__", "gt": "__gt__",
            "ge": "__ge__"}  # fmt: skip
_REFLECTED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def _cannot(cause: str) -> CannotGrade:
    return CannotGrade(cause)


def _op(
    handle: ObjectHandle,
    action: str,
    *,
    args: tuple[object, ...] = (),
    kwargs: dict[str, object] | None = None,
    **fields: object,
) -> object:
    channel = handle._ag_channel
    return channel.handle_op(handle._ag_key, action, args=args, kwargs=kwargs, **fields)


def _compare(handle: ObjectHandle, other: object, name: str) -> Any:
    """``handle <name> other``: in the kernel between two of the student's objects.

    Against anything else the student's comparison must not decide (it could claim to equal
    the teacher's expected value): a class without its own comparison compares as Python's
    default does (identity; ``<`` unsupported), one with it makes the cell need a teacher.
    Any: what the kernel's comparison returned, which need not be a bool (numpy's is not).
    """
    if isinstance(other, ObjectHandle | StudentClass):
        return _op(handle, "operator", operator=name, other=other)
    if _COMPARE[name] in type(handle)._ag_caps:
        raise _cannot(
            f"the test compares an object of the student's class {handle._ag_type} with `{name}` "
            f"to its own value (a {type(other).__name__}): the student's {_COMPARE[name]} would "
            "decide, which the grader does not let it do"
        )
    if handle is other and name in ("eq", "ne"):
        return name == "eq"
    return NotImplemented  # Python then tries the other side, then identity (== and !=)


def _operand(handle: ObjectHandle, name: str, other: object) -> CannotGrade:
    """Refuse an operator between the student's object and the test's own value (a comparison).

    ``abs(f(x) - expected) < tol``, ``np.isclose``, ``assert_almost_equal``: the student's
    ``__sub__``/``__rsub__`` would decide (returning 0 passes every such test), and the
    request would hand her kernel the teacher's operand (an expected value her object could
    keep and print later). Nothing is sent; the cell needs a teacher, pass or fail.
    """
    cause = (
        f"the test applies `{name}` to an object of the student's class {handle._ag_type} and "
        f"its own value (a {type(other).__name__}): the student's operator would decide, and "
        "the grader does not hand her code the test's value"
    )
    handle._ag_channel.touched(cause)
    return _cannot(cause)


def _binary(name: str, reflected: bool = False) -> Callable[[ObjectHandle, object], object]:
    def method(self: ObjectHandle, other: object) -> object:
        if not isinstance(other, ObjectHandle | StudentClass):
            raise _operand(self, name.strip("_"), other)
        return _op(self, "operator", operator=name, other=other, reflected=reflected)

    return method


class ObjectHandle:
    """Stands in for one object living in the student's kernel.

    Parameters
    ----------
    channel : KernelRequests
        Sends the requests (``channel.handle_op``).
    key : int
        The object's number in the kernel's table of handles.
    type_name : str
        The object's class name (for messages).
    """

    __slots__ = ("_ag_channel", "_ag_key", "_ag_type")
    _ag_channel: KernelRequests
    _ag_key: int
    _ag_type: str
    _ag_caps: frozenset[str] = frozenset()  # the dunders its class in the kernel defines

    def __init__(self, channel: KernelRequests, key: int, type_name: str) -> None:
        object.__setattr__(self, "_ag_channel", channel)
        object.__setattr__(self, "_ag_key", int(key))
        object.__setattr__(self, "_ag_type", str(type_name)[:80])

    def __getattr__(self, name: str) -> object:
        if name == "__dict__":
            return _op(self, "vars")
        if name.startswith("__"):
            raise AttributeError(name)
        return _op(self, "attr", name=name)

    def __setattr__(self, name: str, value: object) -> None:
        if name.startswith("__"):
            cause = f"the test sets `.{name}` on a {self._ag_type} object in the kernel"
            self._ag_channel.uncarried.append(cause)
            raise _cannot(cause)
        _op(self, "setattr", name=name, value=value)

    def __delattr__(self, name: str) -> None:
        if name.startswith("__"):
            raise AttributeError(name)
        _op(self, "delattr", name=name)

    def __bool__(self) -> bool:
        return _op(self, "bool") is True

    def __eq__(self, other: object) -> Any:
        return _compare(self, other, "eq")

    def __ne__(self, other: object) -> Any:
        return _compare(self, other, "ne")

    def __lt__(self, other: object) -> Any:
        return _compare(self, other, "lt")

    def __le__(self, other: object) -> Any:
        return _compare(self, other, "le")

    def __gt__(self, other: object) -> Any:
        return _compare(self, other, "gt")

    def __ge__(self, other: object) -> Any:
        return _compare(self, other, "ge")

    def __hash__(self) -> int:
        if "__hash__" not in type(self)._ag_caps:
            return object.__hash__(self)  # identity, as Python's default (one handle per object)
        value = _op(self, "hash")
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError("__hash__ of the student's object is not an integer")
        return value

    def __str__(self) -> str:
        value = _op(self, "str")
        if not isinstance(value, str):
            raise TypeError("__str__ of the student's object did not give text")
        return value

    def __repr__(self) -> str:
        try:  # the grader shows a test's last value with repr: it must not fail here
            value = _op(self, "repr")
        except BaseException as exc:  # noqa: BLE001
            if isinstance(exc, KeyboardInterrupt):
                raise
            value = None
        return value if isinstance(value, str) else f"<{self._ag_type} object in the kernel>"

    def __format__(self, spec: str) -> str:
        value = _op(self, "format", spec=str(spec))
        if not isinstance(value, str):
            raise TypeError("__format__ of the student's object did not give text")
        return value

    def __dir__(self) -> list[str]:
        value = _op(self, "dir")
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def __copy__(self) -> object:
        return _op(self, "copy")

    def __deepcopy__(self, memo: dict[int, object]) -> object:
        return _op(self, "deepcopy")

    def __reduce_ex__(self, protocol: SupportsIndex) -> NoReturn:
        cause = f"the test pickles a {self._ag_type} object, which stays in the student's kernel"
        self._ag_channel.uncarried.append(cause)
        raise _cannot(cause)

    def __neg__(self) -> object:
        return _op(self, "operator", operator="neg")

    def __pos__(self) -> object:
        return _op(self, "operator", operator="pos")

    def __abs__(self) -> object:
        return _op(self, "operator", operator="abs")

    def __invert__(self) -> object:
        return _op(self, "operator", operator="invert")


for _name in _BINARY:
    _op_name = f"{_name}_" if _name in ("and", "or") else _name
    setattr(ObjectHandle, f"__{_name}__", _binary(_op_name))
    setattr(ObjectHandle, f"__r{_name}__", _binary(_op_name, reflected=True))
    setattr(ObjectHandle, f"__i{_name}__", _binary(f"i{_name}"))


# ----------------------------------------------------------- dunders only some classes have


def _call(self: ObjectHandle, *args: object, **kwargs: object) -> object:
    return _op(self, "call", args=args, kwargs=kwargs)


def _len(self: ObjectHandle) -> int:
    value = _op(self, "len")
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TypeError("len() of the student's object is not a count")
    return value


def _iter(self: ObjectHandle) -> object:
    if "__next__" in type(self)._ag_caps:
        return self  # an iterator: each next() is a request, its state stays in the kernel
    values = _op(self, "iter")
    if not isinstance(values, list):
        cause = f"the test iterates a {self._ag_type} object whose items could not be carried"
        self._ag_channel.uncarried.append(cause)
        raise _cannot(cause)
    return iter(values)


def _next(self: ObjectHandle) -> object:
    return _op(self, "next")


def _getitem(self: ObjectHandle, key: object) -> object:
    return _op(self, "item", key=key)


def _setitem(self: ObjectHandle, key: object, value: object) -> None:
    _op(self, "setitem", key=key, value=value)


def _delitem(self: ObjectHandle, key: object) -> None:
    _op(self, "delitem", key=key)


def _contains(self: ObjectHandle, item: object) -> bool:
    return _op(self, "operator", operator="contains", other=item) is True


def _number(kind: str) -> Callable[[ObjectHandle], int | float]:
    def method(self: ObjectHandle) -> int | float:
        value = _op(self, kind)
        wanted = float if kind == "float" else int
        if isinstance(value, bool) or not isinstance(value, wanted):
            raise TypeError(f"{kind}() of the student's object is not a number")
        return value

    return method


_OPTIONAL: dict[str, Callable[..., object]] = {
    "__call__": _call,
    "__len__": _len,
    "__iter__": _iter,
    "__next__": _next,
    "__getitem__": _getitem,
    "__setitem__": _setitem,
    "__delitem__": _delitem,
    "__contains__": _contains,
    "__float__": _number("float"),
    "__int__": _number("int"),
    "__index__": _number("index"),
}


class StudentClass(type):
    """The metaclass of stand-in classes: a class of the student's, living in the kernel.

    ``Stack()`` constructs an object in the kernel (a handle of this class comes back),
    ``Stack.attribute`` is read there, and ``isinstance`` / ``issubclass`` are asked of the
    kernel, so a student's subclass counts as it does in Python.
    """

    # set in each stand-in class's namespace by stand_in_class
    _ag_class_channel: KernelRequests
    _ag_class_key: int
    _ag_caps: frozenset[str]

    def __call__(cls, *args: object, **kwargs: object) -> object:
        return cls._ag_class_channel.handle_op(cls._ag_class_key, "call", args=args, kwargs=kwargs)

    def __getattr__(cls, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return cls._ag_class_channel.handle_op(cls._ag_class_key, "attr", name=name)

    def __instancecheck__(cls, obj: object) -> bool:
        if not isinstance(type(obj), StudentClass):
            return False
        if type(obj) is cls:
            return True
        handle = cast("ObjectHandle", obj)  # its class is a stand-in: it is a handle
        if handle._ag_channel is not cls._ag_class_channel:
            return False
        return _op(handle, "isinstance", of=cls._ag_class_key) is True

    def __subclasscheck__(cls, sub: type) -> bool:
        if sub is cls:
            return True
        if not isinstance(sub, StudentClass) or sub._ag_class_channel is not cls._ag_class_channel:
            return False
        channel = cls._ag_class_channel
        return channel.handle_op(sub._ag_class_key, "issubclass", of=cls._ag_class_key) is True

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__qualname__}'>"


def stand_in_class(
    channel: KernelRequests, key: int, name: str, module: str, caps: Iterable[object]
) -> StudentClass:
    """Make the grader's class for the kernel's class number ``key`` (see the module doc)."""
    dunders = frozenset(str(c) for c in caps)
    namespace: dict[str, object] = {
        "__slots__": (),
        "__module__": module,
        "__qualname__": name,
        "_ag_caps": dunders,
        "_ag_class_key": int(key),
        "_ag_class_channel": channel,
    }
    namespace.update({dunder: method for dunder, method in _OPTIONAL.items() if dunder in dunders})
    if "unhashable" in dunders:
        namespace["__hash__"] = None
    return StudentClass(name, (ObjectHandle,), namespace)
