"""The answer channel: a student's answers leave the kernel as plain data, and only as that.

During autograde the hidden tests never run in the student's kernel (see
:mod:`attention_grader.execution.trusted`). When a test needs an answer, :class:`AnswerChannel` runs one
small request in the kernel (``_kernel_side.py``) that encodes the named values as JSON, or calls
a student's function on arguments the grader chose and encodes what it returns. Here the reply
is decoded strictly: numbers, booleans, strings, None, numeric numpy arrays and scalars, and
lists, tuples, sets and dicts of those. Anything else becomes an :class:`UnsupportedAnswer`
(which every check rejects as "not numbers"), and a reply that is not valid plain data raises
:class:`UnreadableAnswer`. No object made by student code ever reaches the grader's process, so
no ``__eq__``, ``__array_function__`` or patched module of the student's can touch a check.
"""

from __future__ import annotations

import collections
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeGuard

import numpy as np

from attention_grader.common.settings import AnswerLimits
from attention_grader.execution.answer_sets import HashBudget, small_object
from attention_grader.execution.answer_types import decode_more, encode_more
from attention_grader.execution.needs_teacher import CannotGrade
from attention_grader.execution.object_handles import HandleTable, ObjectHandle, StudentClass

__all__ = [
    "MIME",
    "AnswerChannel",
    "AnswerLimits",
    "KernelGone",
    "StudentCodeError",
    "UnreadableAnswer",
    "UnsupportedAnswer",
    "decode",
    "encode",
    "student_error",
    "request_source",
]

KERNEL_SIDE = Path(__file__).with_name("_kernel_side.py").read_text()
MIME = "application/vnd.attention-grader.answer"
#: Most uses of student objects (handles) one test may make.
MAX_HANDLE_OPS = 2000


class UnreadableAnswer(Exception):
    """The kernel's reply was missing or not valid plain data."""


class KernelGone(Exception):
    """The student's kernel died or stopped answering while the grader asked it for answers."""


class StudentCodeError(Exception):
    """The student's function raised, or ran out of time; ``str()`` is ``"Name: message"``.

    Made by :func:`student_error`, which also makes it an instance of the builtin exception of
    the same name (a ``NotImplementedError`` in the kernel is one here too), so checks that
    catch a particular error keep working.
    """

    def __init__(self, ename: str, message: str = ""):
        self.ename = ename
        self.message = message
        super().__init__(f"{ename}: {message}" if message else ename)


_BUILTIN_ERRORS = (
    ArithmeticError, AssertionError, AttributeError, FloatingPointError, IndexError, KeyError,
    LookupError, MemoryError, NameError, NotImplementedError, OverflowError, RecursionError,
    RuntimeError, StopIteration, TypeError, ValueError, ZeroDivisionError,
)  # fmt: skip
_ERROR_CLASSES = {
    e.__name__: type(e.__name__, (StudentCodeError, e), {"__module__": "student"})
    for e in _BUILTIN_ERRORS
}


def student_error(ename: str, message: str, bases=(), classes=None) -> StudentCodeError:
    """Return the error a student's function raised in the kernel, as an exception here.

    Parameters
    ----------
    ename, message : str
        The exception's class name and text, from the kernel.
    bases : sequence of str
        The names of its classes, most derived first (``type(exc).__mro__`` in the kernel), so a
        student's own ``class Oops(ValueError)`` is caught by ``except ValueError``.
    classes : callable, optional
        ``classes(name) -> type | None``: an exception class of the teacher's read-only cells of
        that name (``NegativeInputError``), which the error then also is.
    """
    ename, message = str(ename)[:80], str(message)[:2000]
    if ename == "CellTimeoutError":
        ename, message = (
            "Timeout",
            "it ran longer than the time limit: is there a loop that never ends?",
        )
    names = [ename, *(str(b)[:80] for b in list(bases)[:20])]
    for name in names:
        teacher = classes(name) if classes else None
        if isinstance(teacher, type) and issubclass(teacher, StudentCodeError):
            return teacher(ename, message)  # a student's own exception class, as the test saw it
        if teacher is not None:
            made = _teacher_error(ename, message, teacher)
            if made is not None:
                return made
        if name in _ERROR_CLASSES:
            return _ERROR_CLASSES[name](ename, message)
    return StudentCodeError(ename, message)


def _teacher_error(ename: str, message: str, teacher: type) -> StudentCodeError | None:
    """Make a StudentCodeError that is also the teacher's exception class (None if they cannot)."""
    try:
        cls = type(ename, (StudentCodeError, teacher), {"__module__": "student"})
        return cls(ename, message)
    except TypeError:  # a layout conflict or an __init__ with other arguments
        return None


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

    def __getattribute__(self, name: str):
        if name not in ("what", "_touch", "_used", "__class__"):
            object.__getattribute__(self, "_used")()
        return object.__getattribute__(self, name)

    def __repr__(self) -> str:
        self._used()
        return f"<{self.what}: not numbers, text or a list>"

    def __eq__(self, other):
        self._used()
        return NotImplemented

    def __ne__(self, other):
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


def _placeholder_use(name: str):
    def method(self, *args, **kwargs):
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


# --------------------------------------------------------------------------- grader -> kernel


def encode(value, depth: int = 0):  # noqa: C901 -- one branch per kind of value on the wire
    """Encode a grader-chosen argument in the wire format (numpy arrays keep dtype and shape)."""
    if depth > 20:
        raise ValueError("argument nested too deeply")
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.ndarray):
        return {"array": value.tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, np.generic):
        return {"scalar": value.item(), "dtype": value.dtype.str}
    more = encode_more(value, lambda v: encode(v, depth + 1))
    if more is not None:
        return more
    if isinstance(value, ObjectHandle):
        return {"handle": value._ag_key}
    if isinstance(value, StudentClass):
        return {"handle": value._ag_class_key}
    if isinstance(value, StudentFunction):
        if value._key is not None:
            return {"handle": value._key}
        return {"global": value.__name__}
    if isinstance(value, int | float):
        return value
    if isinstance(value, list | tuple | set | frozenset):
        kind = "list" if isinstance(value, list) else "tuple" if isinstance(value, tuple) else "set"
        return {kind: [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    what = "a function" if callable(value) else f"a {type(value).__name__}"
    raise TypeError(
        f"cannot send {what} ({getattr(value, '__name__', '?')}) to a student's function"
    )


def request_source(request: dict) -> str:
    """Return the code of one hidden request cell: the kernel-side helper run on ``request``."""
    globals_ = f"{{'_USER_NS': globals(), '_REQUEST': {json.dumps(request)!r}}}"
    return f"exec(compile({KERNEL_SIDE!r}, '<attention-grader>', 'exec'), {globals_})"


# --------------------------------------------------------------------------- kernel -> grader


def _dtype(text) -> np.dtype:
    try:
        dtype = np.dtype(str(text))
    except TypeError:
        raise UnreadableAnswer(f"unknown dtype {str(text)[:20]!r}") from None
    if dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None:
        raise UnreadableAnswer(f"dtype {dtype} is not numeric")
    return dtype


def _numbers_only(nested, depth: int, limits: AnswerLimits, count: list[int]) -> None:
    """Raise unless ``nested`` is a (nested) list of numbers and booleans."""
    if depth > 32:
        raise UnreadableAnswer("array nested too deeply")
    if isinstance(nested, list):
        for item in nested:
            _numbers_only(item, depth + 1, limits, count)
        return
    count[0] += 1
    if count[0] > limits.max_items:
        raise UnreadableAnswer("too many values")
    if not isinstance(nested, bool | int | float):
        raise UnreadableAnswer("an array holds something that is not a number")


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class _Decoder:
    def __init__(
        self,
        limits: AnswerLimits,
        function: Callable[[str], object] | None,
        notes=None,
        handle: Callable[[int | None, dict], object] | None = None,
        hashed: HashBudget | None = None,
        touch: Callable[[str], None] | None = None,
    ):
        self.touch = touch
        self.limits = limits
        self.function = function
        self.handle = handle
        self.count = [0]
        self.unsupported: list[str] = []  # what arrived as a placeholder (not carried)
        self.notes: list[str] = notes if notes is not None else []  # carried only in part
        self.hashed = hashed or hash_budget(limits)

    def __call__(self, data, depth: int = 0):  # noqa: C901 -- one branch per wire kind, each capped
        self.count[0] += 1
        if depth > self.limits.max_depth or self.count[0] > self.limits.max_items:
            raise UnreadableAnswer("the answer is nested too deeply or too large")
        if data is None or isinstance(data, bool | int | float | str):
            return data
        if not isinstance(data, dict) or not data:
            raise UnreadableAnswer(f"unexpected {type(data).__name__} in the reply")
        if "array" in data:
            return self._array(data)
        if "scalar" in data:
            value = data["scalar"]
            if not isinstance(value, bool | int | float):
                raise UnreadableAnswer("a scalar that is not a number")
            return _dtype(data.get("dtype")).type(value)
        if "counter" in data and isinstance(data["counter"], list):  # keys are hashed: capped
            self.hashed.admit(len(data["counter"]), "Counter")
            pairs = [self._pair(p, depth) for p in data["counter"]]
            return collections.Counter(self.hashed.build_dict(pairs))
        more = self._more(data, depth)
        if more is not None:
            return more
        # Sets and dict keys are hashed: only within the caps (see answer_sets).
        for kind, build in (("list", list), ("tuple", tuple), ("set", self.hashed.build_set)):
            if kind in data and isinstance(data[kind], list):
                if kind == "set":
                    self.hashed.admit(len(data[kind]), "set")
                return build([self(v, depth + 1) for v in data[kind]])
        if "dict" in data and isinstance(data["dict"], list):
            self.hashed.admit(len(data["dict"]), "dict")
            return self.hashed.build_dict([self._pair(p, depth) for p in data["dict"]])
        if ("handle" in data or "class" in data) and "callable" not in data:
            return self._handle(data)
        if "callable" in data:
            name = str(data["callable"])[:80]
            if depth == 0 and self.function is not None:
                return self.function(name)
            return self._placeholder(f"a function ({name}) inside a container")
        if "unsupported" in data:
            return self._placeholder(f"a {str(data['unsupported'])[:80]}")
        raise UnreadableAnswer("unknown value encoding")

    def _placeholder(self, what: str) -> UnsupportedAnswer:
        self.unsupported.append(what)
        return UnsupportedAnswer(what, self.touch)

    def _handle(self, data: dict):
        """Decode an object (``{"handle": n, "class": info}``) or a class (``{"class": info}``)."""
        info = data.get("class")
        key = data.get("handle")
        if not isinstance(info, dict) or key is not None and not _is_count(key):
            raise UnreadableAnswer("a handle that is not a number")
        name = str(info.get("name", "object"))[:80] or "object"
        if not _is_count(info.get("key")) or not isinstance(info.get("caps"), list):
            raise UnreadableAnswer("a class without its number")
        if self.handle is None:
            return self._placeholder(f"a {name} {'class' if key is None else 'object'}")
        return self.handle(key, info)

    def _more(self, data: dict, depth: int):
        try:
            return decode_more(data, lambda v: self(v, depth + 1), self.notes)
        except ValueError as exc:
            raise UnreadableAnswer(str(exc)[:200]) from None

    def _pair(self, pair, depth: int):
        if not isinstance(pair, list) or len(pair) != 2:
            raise UnreadableAnswer("a dict entry that is not a pair")
        return self(pair[0], depth + 1), self(pair[1], depth + 1)

    def _array(self, data: dict) -> np.ndarray:
        dtype = _dtype(data.get("dtype"))
        shape = data.get("shape")
        if not isinstance(shape, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
        ):
            raise UnreadableAnswer("an array without a valid shape")
        _numbers_only(data["array"], 0, self.limits, self.count)
        try:
            arr = np.array(data["array"], dtype=dtype)
        except (ValueError, OverflowError, TypeError):
            raise UnreadableAnswer("an array whose values do not fit its dtype") from None
        if arr.shape != tuple(shape):
            raise UnreadableAnswer("an array whose values do not match its shape")
        return arr


def hash_budget(limits: AnswerLimits) -> HashBudget:
    """Return the caps on sets and dict keys for one reply (shared by every value it holds)."""
    return HashBudget(limits.max_set_items, limits.max_hashed_items, UnreadableAnswer)


def decode(
    data,
    limits: AnswerLimits | None = None,
    function=None,
    unsupported=None,
    notes=None,
    handle=None,
    hashed=None,
    touch=None,
):
    """One encoded value -> plain Python/numpy data; raises :class:`UnreadableAnswer`.

    ``function(name)`` makes the stand-in for a top-level function (a call proxy). What arrived
    only as a placeholder (:class:`UnsupportedAnswer`) is appended to the list ``unsupported``,
    and what was carried only in part (a figure snapshot) to ``notes``. ``handle(key, type)``
    makes the stand-in for an object that stays in the kernel (an ObjectHandle). ``hashed``
    (:func:`hash_budget`) is shared by the values of one reply. ``touch(what)`` is called
    when a placeholder is used.
    """
    limits = limits or AnswerLimits()
    decoder = _Decoder(limits, function, notes, handle, hashed, touch)
    value = decoder(data)
    if unsupported is not None:
        unsupported += decoder.unsupported
    return value


def _small_object(pairs):
    return small_object(pairs, UnreadableAnswer)


def update_in_place(target, new) -> None:
    """Make the mutable ``target`` hold ``new`` (a list, dict, set or array of the same shape)."""
    if isinstance(target, list) and isinstance(new, list):
        target[:] = new
    elif isinstance(target, dict) and isinstance(new, dict):
        target.clear()
        target.update(new)
    elif isinstance(target, set) and isinstance(new, set):
        target.clear()
        target.update(new)
    elif isinstance(target, np.ndarray) and isinstance(new, np.ndarray):
        if target.shape == new.shape and target.flags.writeable:
            with contextlib.suppress(TypeError, ValueError):
                np.copyto(target, new, casting="unsafe")


def read_reply(outputs: list, limits: AnswerLimits) -> dict:
    """Return the JSON object of the last answer display in a request cell's outputs."""
    texts = [
        o.get("data", {}).get(MIME)
        for o in outputs
        if o.get("output_type") == "display_data" and MIME in o.get("data", {})
    ]
    if not texts:
        errors = [o for o in outputs if o.get("output_type") == "error"]
        if errors:
            raise student_error(errors[-1].get("ename", ""), errors[-1].get("evalue", ""))
        raise UnreadableAnswer("the kernel sent no answer")
    text = texts[-1]
    if not isinstance(text, str) or len(text) > limits.max_reply_chars:
        raise UnreadableAnswer("the kernel's answer is too large or not text")
    try:
        reply = json.loads(text, object_pairs_hook=_small_object)
    except (ValueError, RecursionError):
        raise UnreadableAnswer("the kernel's answer is not valid JSON") from None
    if not isinstance(reply, dict):
        raise UnreadableAnswer("the kernel's answer is not an object")
    return reply


# --------------------------------------------------------------------------- the channel


class StudentFunction:
    """A student's function, seen from the grader: calling it runs it in the student's kernel.

    Arguments go in as plain data; what comes back is decoded like any answer. If the student's
    code raises, :class:`StudentCodeError` is raised here. ``attention_library_use`` says
    whether the student's source calls a library the exercise forbids (found statically from
    the submitted cells by :func:`attention_grader.execution.trusted.library_use`), since the function's
    code object never leaves the kernel.
    """

    def __init__(self, name: str, channel: AnswerChannel, library_use: str | None = None):
        self.__name__ = name
        self._channel = channel
        self._key: int | None = None  # its number in the kernel's table, when it has one
        self.attention_library_use = library_use

    def __call__(self, *args, **kwargs):
        request = None
        if self._key is not None:
            request = {"op": "handle", "handle": self._key, "action": "call"}
        return self._channel.call(self.__name__, args, kwargs, request)

    @contextlib.contextmanager
    def substituting(self, global_name: str, reference_path: str):
        """Bind ``global_name`` in the student's kernel to the grader's reference while inside.

        The reference is a function such as ``"attention_lab._steps.softmax"``, so checking this
        function is not charged
        for a mistake in another graded function it calls (see ``checks._library.substituted``).
        """
        request = {"op": "substitute", "name": global_name, "path": reference_path}
        # Its code, not its path: an implement-it kernel has no attention_lab to import from.
        request["source"] = reference_source(reference_path)
        self._channel.request(request)
        try:
            yield
        finally:
            with contextlib.suppress(KernelGone, UnreadableAnswer, StudentCodeError):
                self._channel.request({"op": "restore", "name": global_name})

    def __repr__(self) -> str:
        return f"<student function {self.__name__}>"


def reference_source(path: str) -> str:
    """Return the source of the grader's reference function ``path`` (in ``attention_lab``)."""
    import importlib
    import inspect
    import textwrap

    module, _, attr = path.rpartition(".")
    if module.split(".")[0] != "attention_lab":
        raise ValueError(f"only attention_lab functions are substituted, not {path!r}")
    return textwrap.dedent(inspect.getsource(getattr(importlib.import_module(module), attr)))


class AnswerChannel:
    """Asks one student's kernel for answers.

    Parameters
    ----------
    run_request : callable
        ``f(source) -> outputs``: run a hidden request cell in the student's kernel and return
        its outputs; raises :class:`KernelGone` when the kernel is dead or stuck.
    limits : AnswerLimits
    library_use : callable, optional
        ``f(function_name) -> str | None`` (see :class:`StudentFunction`).
    """

    def __init__(self, run_request, limits: AnswerLimits | None = None, library_use=None):
        self._run = run_request
        self.limits = limits or AnswerLimits()
        self._library_use = library_use or (lambda name: None)
        self.broken: str | None = None
        #: Why values the current test received could not be carried (set by the checker).
        self.uncarried: list[str] = []
        #: ``f(name) -> type | None``: the teacher's exception class of that name.
        self.exception_class: Callable[[str], type | None] | None = None
        #: ``f(text)``: what the student's function printed during a call, for the test.
        self.stdout_sink: Callable[[str], None] | None = None
        self.handle_ops = 0  # uses of objects in the kernel during the current test
        #: Why the current test's result says nothing, pass or fail (it used a placeholder).
        self.untrusted: list[str] = []
        #: The stand-ins of the kernel's objects and classes (one per object, one per class).
        self.handles = HandleTable(self)

    def bind(self, name: str, value) -> None:
        """Bind a student's ``name`` in the kernel too, as the test did (kernel_bindings)."""
        self.request({"op": "bind", "name": name, "value": self._encoded(value, f"`{name}`")})

    def unbind(self, name: str) -> None:
        """Delete a student's ``name`` in the kernel too, as the test did (kept aside)."""
        self.request({"op": "unbind", "name": name})

    def touched(self, cause: str) -> None:
        """Note that the test used a value that could not be carried: its result needs a teacher."""
        if cause not in self.untrusted:
            self.untrusted.append(cause)

    def _classes(self, name: str) -> type | None:
        teacher = self.exception_class(name) if self.exception_class else None
        return teacher or self.handles.exceptions.get(name)

    def _raised(self, reply: dict) -> StudentCodeError:
        bases = reply.get("bases") if isinstance(reply.get("bases"), list) else ()
        return student_error(reply["raised"], reply.get("message", ""), bases, self._classes)

    def request(self, request: dict) -> dict:
        """Send one request; raise what the student's code raised, return the reply."""
        reply = self._request(request)
        if "raised" in reply:
            raise self._raised(reply)
        return reply

    def _request(self, request: dict) -> dict:
        if self.broken:
            raise KernelGone(self.broken)
        try:
            return read_reply(self._run(request_source(request)), self.limits)
        except KernelGone as gone:
            self.broken = str(gone)
            raise

    def _function(self, name: str) -> StudentFunction:
        return StudentFunction(name, self, self._library_use(name))

    def get(self, names: list[str], read: set[str] | None = None) -> dict:
        """``{name: value}`` for the names the kernel defines (others are left out).

        A placeholder for a name in ``read`` (default: all) counts as used at once.
        """
        if not names:
            return {}
        reply = self._request({"op": "get", "names": list(names)})
        values, hashed = {}, hash_budget(self.limits)
        for name in names:
            entry = reply.get(name)
            if not isinstance(entry, dict) or entry.get("missing") or "value" not in entry:
                continue
            # A function is called back by the name it was asked for (``softmax = print``).
            function = lambda _own_name, name=name: self._function(name)  # noqa: E731
            touch = lambda what, name=name: self.touched(  # noqa: E731
                f"the test used `{name}`, {what} that could not be carried out of the "
                "student's kernel"
            )
            values[name] = decode(
                entry["value"],
                self.limits,
                function,
                None,
                self.uncarried,
                self.handles.stand_in,
                hashed,
                touch,
            )
            if isinstance(values[name], UnsupportedAnswer) and (read is None or name in read):
                values[name]._used()  # the test reads the name: it uses the placeholder
            key = entry["value"].get("handle") if isinstance(entry["value"], dict) else None
            if isinstance(values[name], StudentFunction) and _is_count(key):
                values[name]._key = key  # called as the object it was, whatever the name holds
        return values

    def handle_op(self, handle: int, action: str, *, args=(), kwargs=None, **fields):
        """One use of an object in the kernel (see :mod:`~attention_grader.execution.object_handles`).

        At most :data:`MAX_HANDLE_OPS` per test: numpy reading a student's "sequence" item by
        item must not spend the grader's time one request at a time.
        """
        self.handle_ops += 1
        if self.handle_ops > MAX_HANDLE_OPS:
            cause = f"the test uses a student's object more than {MAX_HANDLE_OPS} times"
            if cause not in self.uncarried:
                self.uncarried.append(cause)
            raise CannotGrade(cause)
        request = {"op": "handle", "handle": handle, "action": action, **fields}
        for field in ("key", "value", "other"):
            if field in fields:
                request[field] = self._encoded(fields[field], f"a {action} of a student's object")
        label = f"{fields.get('name') or 'an object'}"
        return self.call(label, tuple(args), kwargs or {}, request)

    def _encoded(self, value, where: str):
        try:
            return encode(value)
        except (TypeError, ValueError) as exc:
            what = str(exc).removeprefix("cannot send ").removesuffix(" to a student's function")
            cause = f"the test passes {what} to {where}, which runs in the student's kernel"
            self.uncarried.append(cause)
            raise CannotGrade(cause) from None

    def call(self, name: str, args: tuple, kwargs: dict, request: dict | None = None):
        """Call the student's function ``name`` on grader-chosen plain data; return its result."""
        try:
            request = dict(request or {"op": "call", "name": name})
            request["args"] = [encode(a) for a in args]
            request["kwargs"] = {str(k): encode(v) for k, v in kwargs.items()}
        except (TypeError, ValueError) as exc:
            what = str(exc).removeprefix("cannot send ").removesuffix(" to a student's function")
            cause = f"the test passes {what} to `{name}`, which runs in the student's kernel"
            self.uncarried.append(cause)
            raise CannotGrade(cause) from None
        try:
            reply = self._request(request)
        except KernelGone as gone:
            message = f"the kernel stopped while {name} ran ({gone})"
            raise student_error("KernelDied", message) from None
        self._replay(reply.get("stdout"))
        self._copy_back(args, reply.get("changed"))
        if "raised" in reply:
            raise self._raised(reply)
        if "value" not in reply:
            raise UnreadableAnswer(f"no result from {name}")
        same = reply.get("same_as")
        if _is_count(same) and same < len(args):
            return args[same]  # the function returned its argument itself (`result is xs`)
        touch = lambda what: self.touched(  # noqa: E731
            f"`{name}` returned {what}, which could not be carried out of the student's kernel"
        )
        value = decode(
            reply["value"], self.limits, None, None, self.uncarried, self.handles.stand_in,
            touch=touch,
        )  # fmt: skip
        if isinstance(value, UnsupportedAnswer):
            value._used()  # the test receives it: it uses the placeholder
        return value

    def _replay(self, text) -> None:
        """Send what the student's function printed to the test's stdout (``redirect_stdout``)."""
        if isinstance(text, str) and text and self.stdout_sink is not None:
            self.stdout_sink(text[: self.limits.max_reply_chars])

    def _copy_back(self, args: tuple, changed) -> None:
        """Arguments the student's function changed in place are changed here too."""
        if not isinstance(changed, list):
            return
        for entry in changed[: len(args)]:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)):
                continue
            index, encoded = entry
            if 0 <= index < len(args):
                update_in_place(args[index], decode(encoded, self.limits))
