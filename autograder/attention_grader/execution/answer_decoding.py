"""Kernel to grader: a reply decoded strictly into plain Python and numpy data.

Numbers, booleans, strings, None, numeric numpy arrays and scalars, and lists, tuples, sets and
dicts of those (plus what :mod:`~attention_grader.execution.answer_types` adds). Anything else
becomes an :class:`~attention_grader.execution.unsupported_answer.UnsupportedAnswer`, an object
that stays in the kernel becomes a handle, and a reply that is not valid plain data (or is over
a cap of :class:`~attention_grader.common.settings.AnswerLimits`) raises
:class:`~attention_grader.execution.answer_errors.UnreadableAnswer`.
"""

from __future__ import annotations

import collections
import json
from collections.abc import Callable
from typing import TypeAlias, TypeGuard

import numpy as np
from nbformat import NotebookNode

from attention_grader.common.settings import AnswerLimits
from attention_grader.execution.answer_encoding import MIME
from attention_grader.execution.answer_errors import UnreadableAnswer, student_error
from attention_grader.execution.answer_sets import HashBudget, small_object
from attention_grader.execution.answer_types import Wire, decode_more
from attention_grader.execution.unsupported_answer import UnsupportedAnswer

__all__ = ["Handle", "decode", "hash_budget", "is_count", "read_reply"]

#: ``handle(key, class_info)``: the stand-in of an object (or, key None, a class) in the kernel.
Handle: TypeAlias = Callable[[int | None, dict[str, Wire]], object]


def _dtype(text: object) -> np.dtype:
    try:
        dtype = np.dtype(str(text))
    except TypeError:
        raise UnreadableAnswer(f"unknown dtype {str(text)[:20]!r}") from None
    if dtype.kind not in "biuf" or dtype.fields is not None or dtype.subdtype is not None:
        raise UnreadableAnswer(f"dtype {dtype} is not numeric")
    return dtype


def _numbers_only(nested: Wire, depth: int, limits: AnswerLimits, count: list[int]) -> None:
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


def is_count(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a count or an index from the kernel: an int >= 0, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class _Decoder:
    def __init__(
        self,
        limits: AnswerLimits,
        function: Callable[[str], object] | None,
        notes: list[str] | None = None,
        handle: Handle | None = None,
        hashed: HashBudget | None = None,
        touch: Callable[[str], None] | None = None,
    ) -> None:
        self.touch = touch
        self.limits = limits
        self.function = function
        self.handle = handle
        self.count = [0]
        self.unsupported: list[str] = []  # what arrived as a placeholder (not carried)
        self.notes: list[str] = notes if notes is not None else []  # carried only in part
        self.hashed = hashed or hash_budget(limits)

    def __call__(self, data: Wire, depth: int = 0) -> object:  # noqa: C901 -- one branch per wire kind, each capped
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

    def _handle(self, data: dict[str, Wire]) -> object:
        """Decode an object (``{"handle": n, "class": info}``) or a class (``{"class": info}``)."""
        info = data.get("class")
        key = data.get("handle")
        if not isinstance(info, dict) or key is not None and not is_count(key):
            raise UnreadableAnswer("a handle that is not a number")
        name = str(info.get("name", "object"))[:80] or "object"
        if not is_count(info.get("key")) or not isinstance(info.get("caps"), list):
            raise UnreadableAnswer("a class without its number")
        if self.handle is None:
            return self._placeholder(f"a {name} {'class' if key is None else 'object'}")
        return self.handle(key, info)

    def _more(self, data: dict[str, Wire], depth: int) -> object:
        try:
            return decode_more(data, lambda v: self(v, depth + 1), self.notes)
        except ValueError as exc:
            raise UnreadableAnswer(str(exc)[:200]) from None

    def _pair(self, pair: Wire, depth: int) -> tuple[object, object]:
        if not isinstance(pair, list) or len(pair) != 2:
            raise UnreadableAnswer("a dict entry that is not a pair")
        return self(pair[0], depth + 1), self(pair[1], depth + 1)

    def _array(self, data: dict[str, Wire]) -> np.ndarray:
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
    data: Wire,
    limits: AnswerLimits | None = None,
    function: Callable[[str], object] | None = None,
    unsupported: list[str] | None = None,
    notes: list[str] | None = None,
    handle: Handle | None = None,
    hashed: HashBudget | None = None,
    touch: Callable[[str], None] | None = None,
) -> object:
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


def _small_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    return small_object(pairs, UnreadableAnswer)


def read_reply(outputs: list[NotebookNode], limits: AnswerLimits) -> dict[str, Wire]:
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
