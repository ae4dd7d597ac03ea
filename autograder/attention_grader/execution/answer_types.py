"""More kinds of plain data both ways through the answer channel, one small function each.

The wire format of :mod:`attention_grader.execution.answer_channel` is extended here (and in ``_kernel_side.py``'s
``_encode_more`` / ``_decode_more``) with values that are data, not code, so rebuilding them in
the grader runs nothing of the student's:

* ``{"complex": [re, im]}``;
* ``{"date": "2024-03-01"}``, ``{"datetime": iso}``, ``{"time": iso}``,
  ``{"timedelta": [days, seconds, microseconds]}``;
* ``{"decimal": "0.1"}``, ``{"fraction": [numerator, denominator]}`` (integers);
* ``{"counter": [[key, count], ...]}``: a :class:`collections.Counter`;
* ``{"generator": [items]}``: what a generator yields (at most a cap of items), rebuilt as a
  generator over them;
* ``{"axes": {...}}``, ``{"figure": {...}}``: a matplotlib Axes or Figure as a read-only
  snapshot (:mod:`attention_grader.execution.figure_snapshot`).
"""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
from collections.abc import Callable, Generator
from typing import Any, TypeAlias

from attention_grader.execution.figure_snapshot import (
    AxesSnapshot,
    FigureSnapshot,
    axes_from,
    figure_from,
)

__all__ = ["MORE_KINDS", "Wire", "decode_more", "encode_more"]

#: A value of the wire format as ``json.loads`` made it: its shape is checked where it is read
#: (Any because JSON from the kernel is whatever the student's kernel sent).
Wire: TypeAlias = Any
#: Decodes a nested value of the wire format (a Counter's keys, a generator's items).
_Item: TypeAlias = Callable[[Wire], object]

MORE_KINDS = ("complex", "date", "datetime", "time", "timedelta", "decimal", "fraction", "counter",
              "generator")  # fmt: skip
_MAX_DIGITS = 4000


class _Bad(ValueError):
    pass


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad("not a number")
    return value


def _integer(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad("not an integer")
    return value


def _text(value: object, limit: int = 64) -> str:
    if not isinstance(value, str) or len(value) > limit:
        raise _Bad("not a short text")
    return value


def _complex(data: Wire, _item: _Item) -> complex:
    real, imag = data
    return complex(_number(real), _number(imag))


def _timedelta(data: Wire, _item: _Item) -> datetime.timedelta:
    days, seconds, micro = (_integer(v) for v in data)
    return datetime.timedelta(days=days, seconds=seconds, microseconds=micro)


def _decimal(data: Wire, _item: _Item) -> decimal.Decimal:
    try:
        return decimal.Decimal(_text(data, _MAX_DIGITS))
    except decimal.InvalidOperation:
        raise _Bad("not a decimal") from None


def _fraction(data: Wire, _item: _Item) -> fractions.Fraction:
    numerator, denominator = (_integer(v) for v in data)
    if denominator == 0:
        raise _Bad("a zero denominator")
    return fractions.Fraction(numerator, denominator)


def _counter(data: Wire, item: _Item) -> collections.Counter[object]:
    if not isinstance(data, list):
        raise _Bad("not a list of pairs")
    counts: collections.Counter[object] = collections.Counter()
    for pair in data:
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad("not a pair")
        # a Counter keeps whatever counts the student's held (floats too), as sent
        counts[item(pair[0])] = item(pair[1])  # type: ignore[assignment]
    return counts


def _snapshot(
    build: Callable[[object, list[str]], AxesSnapshot | FigureSnapshot],
) -> Callable[[Wire, _Item, list[str]], object]:
    def decode(data: Wire, item: _Item, notes: list[str]) -> object:
        snapshot = build(item(data), notes)
        notes.append(f"a matplotlib {snapshot._kind} arrives as a read-only snapshot")
        return snapshot

    return decode


def _generator(data: Wire, item: _Item) -> Generator[object, None, None]:
    if not isinstance(data, list):
        raise _Bad("not a list")
    values = [item(v) for v in data]
    return (v for v in values)


_DECODERS: dict[str, Callable[..., object]] = {
    "complex": _complex,
    "date": lambda d, _: datetime.date.fromisoformat(_text(d)),
    "datetime": lambda d, _: datetime.datetime.fromisoformat(_text(d)),
    "time": lambda d, _: datetime.time.fromisoformat(_text(d)),
    "timedelta": _timedelta,
    "decimal": _decimal,
    "fraction": _fraction,
    "counter": _counter,
    "generator": _generator,
    "axes": _snapshot(axes_from),
    "figure": _snapshot(figure_from),
}
_NOTES = ("axes", "figure")  # decoders that also take the list of notes


def decode_more(data: dict[str, Wire], item: _Item, notes: list[str]) -> object:
    """Rebuild one of :data:`MORE_KINDS` from its encoding, or return None if ``data`` is none.

    ``item(encoded)`` decodes a nested value (a Counter's keys, a generator's items); ``notes``
    collects what was carried only in part (a figure as a snapshot: a test failing on it needs a
    teacher). Raises ``ValueError`` for a malformed encoding (the caller makes it an unreadable
    answer).
    """
    for kind, decoder in _DECODERS.items():
        if kind in data:
            try:
                if kind in _NOTES:
                    return decoder(data[kind], item, notes)
                return decoder(data[kind], item)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ValueError(f"a malformed {kind}: {exc}") from None
    return None


def encode_more(value: object, item: Callable[[object], Wire]) -> dict[str, Wire] | None:
    """Encode a grader-chosen argument of one of these kinds; None for other kinds."""
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, datetime.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"date": value.isoformat()}
    if isinstance(value, datetime.time):
        return {"time": value.isoformat()}
    if isinstance(value, datetime.timedelta):
        return {"timedelta": [value.days, value.seconds, value.microseconds]}
    if isinstance(value, decimal.Decimal):
        return {"decimal": str(value)}
    if isinstance(value, fractions.Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, collections.Counter):
        return {"counter": [[item(k), item(v)] for k, v in value.items()]}
    return None
