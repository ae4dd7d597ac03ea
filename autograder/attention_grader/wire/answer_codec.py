"""The answer codec: plain Python and numpy values to the wire format and back, both sides.

One module, written once: the grader imports it, and
:mod:`~attention_grader.channel.answer_encoding` sends its source text into the student's
kernel with every request, where ``_kernel_side.py`` (the kernel-side agent) compiles it. So it
imports only the standard library and numpy, and nothing of the grader's package.

The wire format (JSON, the same both ways; docs/design.md, "The answer codec's wire format")
is read by :meth:`Decoder.readers`. The caps (:class:`Caps`) come from the grader's config
(``c.Answers``: :mod:`attention_grader.wire.answer_caps`) with each request, so both sides cut
at the same depth and size.
"""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import math
import sys
from collections.abc import Callable, Generator
from dataclasses import dataclass, fields, replace
from typing import Any, TypeAlias

import numpy as np

__all__ = ["MIME", "Caps", "Decoder", "Encoder", "Wire", "WireError", "encode_kind"]

MIME = "application/vnd.attention-grader.answer"

#: A value of the wire format as ``json.loads`` made it: its shape is checked where it is read
#: (Any because JSON from the kernel is whatever the student's kernel sent).
Wire: TypeAlias = Any
#: Reads one wire object of a kind: ``read(data, depth) -> value``.
Reader: TypeAlias = Callable[[dict[str, Wire], int], object]

_MAX_DIGITS = 4000  # longest Decimal read
_MAX_ARRAY_DEPTH = 32  # numpy's own most dimensions
_NUMERIC = "biuf"
_MAX_TEXT_ARRAY_CHARS = 10_000_000  # a text array's cells x its widest text, read on either side


class WireError(ValueError):
    """A value that is not valid in the wire format, or over a cap."""


@dataclass(frozen=True)
class Caps:
    """The caps both sides apply to one value (set by ``c.Answers``, sent with each request).

    Depth, values, text length, a generator's items, what a call prints: their help is the
    ``c.Answers`` traitlets' (:class:`attention_grader.config.settings.Answers`).
    """

    max_depth: int = 20
    max_items: int = 2_000_000
    max_text_chars: int = 200_000
    max_yields: int = 10_000
    max_printed_chars: int = 1_000_000
    #: 1 on the grader's own arguments only: its text arrays (``np.array(["a", "b"])``) are
    #: carried as plain nbgrader passes them; a student's stay placeholders
    text_arrays: int = 0

    @classmethod
    def of(cls, sent: dict[str, object]) -> Caps:
        """Return the caps of a request's JSON object (a missing or bad value: the default)."""
        given = {f.name: sent.get(f.name) for f in fields(cls)}
        return cls(**{k: v for k, v in given.items() if type(v) is int and v >= 0})

    def depth_only(self) -> Caps:
        """Return the caps on the grader's own arguments: only the depth.

        The grader's data is trusted; the depth bounds the recursion on both sides.
        """
        return replace(self, max_items=sys.maxsize, max_text_chars=sys.maxsize, text_arrays=1)


def encode_kind(value: object, item: Callable[[object], Wire]) -> dict[str, Wire] | None:
    """Encode a complex number, date, time, Decimal, Fraction or Counter; None for others.

    ``item(value)`` encodes a nested value (a Counter's keys and counts).
    """
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, datetime.datetime):  # before date: a datetime is a date too
        return {"datetime": value.isoformat()}
    if isinstance(value, datetime.date | datetime.time):
        return {"date" if isinstance(value, datetime.date) else "time": value.isoformat()}
    if isinstance(value, datetime.timedelta):
        return {"timedelta": [value.days, value.seconds, value.microseconds]}
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value)}
    if isinstance(value, fractions.Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, collections.Counter):
        return {"counter": [[item(k), item(v)] for k, v in list(value.items())]}
    return None


class Encoder:
    """Python and numpy values -> the wire format, within :class:`Caps`.

    A side says what it does with what is not data by overriding :meth:`refuse` (over a cap),
    :meth:`special` (its own kinds, first) and :meth:`other` (anything else).
    """

    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.budget = caps.max_items
        self._parts = (self._numpy, self._kind, self.special, self._container)

    def refuse(self, what: str) -> Wire:
        """Return what a value over a cap becomes (here: raise :class:`WireError`)."""
        raise WireError(f"an argument {what}")

    def special(self, value: object, depth: int) -> Wire:
        """Return one of the side's own kinds of value encoded, or None for other values."""
        return None

    def other(self, value: object) -> Wire:
        """Return what a value that is not data becomes (here: raise ``TypeError``)."""
        what = "a function" if callable(value) else f"a {type(value).__name__}"
        raise TypeError(f"cannot send {what} ({getattr(value, '__name__', '?')})")

    def __call__(self, value: object, depth: int = 0) -> Wire:
        """Encode ``value``, found at nesting ``depth``."""
        if depth > self.caps.max_depth:
            return self.refuse("nested too deeply")
        self.budget -= 1
        if self.budget < 0:
            return self.refuse("too large")
        if value is None or type(value) is bool:
            return value
        if isinstance(value, np.generic):  # before float: np.float64 is a float, and keeps its type
            return self._scalar(value)
        wire = self._plain(value, depth)
        if wire is not None:
            return wire
        for part in self._parts:
            wire = part(value, depth)
            if wire is not None:
                return wire
        return self.other(value)

    def _plain(self, value: object, depth: int) -> Wire:
        # int(), float(), str.__str__: a student's subclass arrives as the plain value it holds
        if isinstance(value, bool | int):
            return int(value)
        if isinstance(value, float):
            return float(value)
        if isinstance(value, str):
            text = str.__str__(value)
            if len(text) > self.caps.max_text_chars:
                return self.refuse("text too long")
            return text
        return None

    def _scalar(self, value: np.generic) -> Wire:
        if value.dtype.kind in _NUMERIC:
            return {"scalar": value.item(), "dtype": value.dtype.str}
        return self.refuse(type(value).__name__)

    def _numpy(self, value: object, depth: int) -> Wire:
        if not isinstance(value, np.ndarray):
            return None
        arr = np.array(value, copy=True, subok=False)
        if arr.dtype.kind not in _NUMERIC and not (self.caps.text_arrays and arr.dtype.kind == "U"):
            return self.refuse(f"numpy array of {arr.dtype}")
        self.budget -= arr.size
        if self.budget < 0:
            return self.refuse("too large")
        return {"array": arr.tolist(), "dtype": arr.dtype.str, "shape": list(arr.shape)}

    def _kind(self, value: object, depth: int) -> Wire:
        return encode_kind(value, lambda item: self(item, depth + 1))

    def _container(self, value: object, depth: int) -> Wire:
        if isinstance(value, dict):
            pairs = list(value.items())
            return {"dict": [[self(k, depth + 1), self(v, depth + 1)] for k, v in pairs]}
        for kind, types in (("list", list), ("tuple", tuple), ("set", set | frozenset)):
            if isinstance(value, types):
                return {kind: [self(item, depth + 1) for item in list(value)]}
        return None


class _Bad(ValueError):
    pass


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad("not an integer")
    return value


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad("not a number")
    return value


def _text(value: object, limit: int = 64) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise _Bad("not a short text")
    return value


def _complex(data: Wire) -> complex:
    real, imag = data
    return complex(_number(real), _number(imag))


def _timedelta(data: Wire) -> datetime.timedelta:
    days, seconds, micro = (_integer(v) for v in data)
    return datetime.timedelta(days=days, seconds=seconds, microseconds=micro)


def _decimal(data: Wire) -> decimal.Decimal:
    try:
        return decimal.Decimal(_text(data, _MAX_DIGITS))
    except decimal.InvalidOperation:
        raise _Bad("not a decimal") from None


def _fraction(data: Wire) -> fractions.Fraction:
    numerator, denominator = (_integer(v) for v in data)
    if denominator == 0:
        raise _Bad("a zero denominator")
    return fractions.Fraction(numerator, denominator)


#: The kinds rebuilt from their own data alone (no nested value, nothing of the student's run).
_PLAIN_KINDS: dict[str, Callable[[Wire], object]] = {
    "complex": _complex,
    "date": lambda d: datetime.date.fromisoformat(_text(d)),
    "datetime": lambda d: datetime.datetime.fromisoformat(_text(d)),
    "time": lambda d: datetime.time.fromisoformat(_text(d)),
    "timedelta": _timedelta,
    "decimal": _decimal,
    "fraction": _fraction,
}


def _dtype(text: object, kinds: str = _NUMERIC) -> np.dtype[Any]:
    try:
        dtype = np.dtype(str(text))
    except TypeError:
        raise _Bad(f"unknown dtype {str(text)[:20]!r}") from None
    if dtype.kind not in kinds or dtype.fields is not None or dtype.subdtype is not None:
        raise _Bad(f"dtype {dtype} is not numeric")
    return dtype


class Decoder:
    """The wire format -> Python and numpy values, strictly and within :class:`Caps`.

    A side adds its own kinds by extending :meth:`readers`, bounds hashing by overriding
    :meth:`admit`, :meth:`build_set` and :meth:`build_dict`, and raises its own error
    (:attr:`error`).
    """

    error: type[Exception] = WireError

    def __init__(self, caps: Caps) -> None:
        self.caps = caps
        self.count = 0
        self._readers = self.readers()

    def readers(self) -> dict[str, Reader]:
        """``{kind: read}``: the first kind a wire object holds says how it is read."""
        plain = {kind: self._plain_kind(kind) for kind in _PLAIN_KINDS}
        return {
            "array": lambda data, depth: self._array(data),
            "scalar": lambda data, depth: self._scalar(data),
            "counter": self._counter,
            **plain,
            "generator": self._generator,
            "list": lambda data, depth: self._items(data, "list", depth),
            "tuple": lambda data, depth: tuple(self._items(data, "tuple", depth)),
            "set": self._set,
            "dict": self._dict,
        }

    def __call__(self, data: Wire, depth: int = 0) -> object:
        """Decode one wire value found at nesting ``depth``; raise :attr:`error` if invalid."""
        self.count += 1
        if depth > self.caps.max_depth or self.count > self.caps.max_items:
            raise self.error("the answer is nested too deeply or too large")
        if data is None or isinstance(data, bool | int | float | str):
            return data
        if not isinstance(data, dict) or not data:
            raise self.error(f"unexpected {type(data).__name__} in the reply")
        for kind, read in self._readers.items():
            if kind in data:
                try:
                    return read(data, depth)
                except _Bad as exc:
                    raise self.error(f"a malformed {kind}: {exc}"[:200]) from None
        raise self.error("unknown value encoding")

    def admit(self, size: int, what: str) -> None:
        """Refuse a set or dict of ``size`` items before any is decoded (here: any size)."""

    def build_set(self, items: list[object]) -> set[object]:
        """``set(items)``."""
        try:
            return set(items)
        except TypeError:
            raise self.error("a set of unhashable items") from None

    def build_dict(self, pairs: list[tuple[object, object]]) -> dict[object, object]:
        """``dict(pairs)``."""
        try:
            return dict(pairs)
        except TypeError:
            raise self.error("a dict with unhashable keys") from None

    def _plain_kind(self, kind: str) -> Reader:
        def read(data: dict[str, Wire], depth: int) -> object:
            try:
                return _PLAIN_KINDS[kind](data[kind])
            except (TypeError, ValueError, OverflowError) as exc:
                raise _Bad(str(exc)) from None

        return read

    def _items(self, data: dict[str, Wire], kind: str, depth: int) -> list[object]:
        items = data[kind]
        if not isinstance(items, list):
            raise _Bad("not a list")
        return [self(item, depth + 1) for item in items]

    def _pairs(self, data: dict[str, Wire], kind: str, depth: int) -> list[tuple[object, object]]:
        pairs = data[kind]
        if not isinstance(pairs, list):
            raise _Bad("not a list")
        self.admit(len(pairs), "Counter" if kind == "counter" else kind)
        return [self._pair(pair, depth) for pair in pairs]

    def _pair(self, pair: Wire, depth: int) -> tuple[object, object]:
        if not isinstance(pair, list) or len(pair) != 2:
            raise self.error("a dict entry that is not a pair")
        return self(pair[0], depth + 1), self(pair[1], depth + 1)

    def _set(self, data: dict[str, Wire], depth: int) -> set[object]:
        if isinstance(data["set"], list):
            self.admit(len(data["set"]), "set")
        return self.build_set(self._items(data, "set", depth))

    def _dict(self, data: dict[str, Wire], depth: int) -> dict[object, object]:
        return self.build_dict(self._pairs(data, "dict", depth))

    def _counter(self, data: dict[str, Wire], depth: int) -> collections.Counter[object]:
        # a Counter keeps whatever counts the student's held (floats too), as sent
        return collections.Counter(self.build_dict(self._pairs(data, "counter", depth)))

    def _generator(self, data: dict[str, Wire], depth: int) -> Generator[object, None, None]:
        return (v for v in self._items(data, "generator", depth))  # decoded before it is read

    def _scalar(self, data: dict[str, Wire]) -> np.generic:
        value = data["scalar"]
        if not isinstance(value, bool | int | float):
            raise self.error("a scalar that is not a number")
        scalar: np.generic = _dtype(data.get("dtype")).type(value)
        return scalar

    def _numbers_only(self, nested: Wire, depth: int, item: type | tuple[type, ...]) -> None:
        """Raise unless ``nested`` is a (nested) list of ``item`` values (numbers or text)."""
        if depth > _MAX_ARRAY_DEPTH:
            raise self.error("array nested too deeply")
        if isinstance(nested, list):
            for value in nested:
                self._numbers_only(value, depth + 1, item)
            return
        self.count += 1
        if self.count > self.caps.max_items:
            raise self.error("too many values")
        if not isinstance(nested, item):
            raise self.error("an array holds something that is not of its dtype")

    def _array(self, data: dict[str, Wire]) -> np.ndarray[Any, Any]:
        dtype = _dtype(data.get("dtype"), _NUMERIC + ("U" if self.caps.text_arrays else ""))
        shape = data.get("shape")
        if not isinstance(shape, list) or not all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
        ):
            raise self.error("an array without a valid shape")
        if dtype.kind == "U" and math.prod(shape) * dtype.itemsize > 4 * _MAX_TEXT_ARRAY_CHARS:
            raise self.error("a text array too large")  # its memory is size x widest text
        self._numbers_only(data["array"], 0, str if dtype.kind == "U" else (bool, int, float))
        try:
            arr = np.array(data["array"], dtype=dtype)
        except (ValueError, OverflowError, TypeError):
            raise self.error("an array whose values do not fit its dtype") from None
        if arr.shape != tuple(shape):
            raise self.error("an array whose values do not match its shape")
        return arr
