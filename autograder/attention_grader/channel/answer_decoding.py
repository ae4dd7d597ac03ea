"""Kernel to grader: a reply decoded strictly into plain Python and numpy data.

Numbers, booleans, strings, None, numeric numpy arrays and scalars, and lists, tuples, sets and
dicts of those, and the other kinds of :mod:`~attention_grader.wire.answer_codec`. Anything else
becomes an :class:`~attention_grader.wire.unsupported_answer.UnsupportedAnswer`, an object
that stays in the kernel becomes a handle, and a reply that is not valid plain data (or is over
a cap of :class:`~attention_grader.config.settings.AnswerLimits`) raises
:class:`~attention_grader.wire.answer_errors.UnreadableAnswer`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TypeAlias, TypeGuard

from nbformat import NotebookNode

from attention_grader.config.settings import AnswerLimits
from attention_grader.wire.answer_caps import answer_caps
from attention_grader.wire.answer_codec import MIME, Decoder, Reader, Wire
from attention_grader.wire.answer_errors import UnreadableAnswer, student_error
from attention_grader.wire.answer_sets import HashBudget, small_object
from attention_grader.wire.figure_snapshot import (
    AxesSnapshot,
    FigureSnapshot,
    axes_from,
    figure_from,
)
from attention_grader.wire.unsupported_answer import UnsupportedAnswer

__all__ = ["Handle", "decode", "hash_budget", "is_count", "read_reply"]

#: ``handle(key, class_info)``: the stand-in of an object (or, key None, a class) in the kernel.
Handle: TypeAlias = Callable[[int | None, dict[str, Wire]], object]


def is_count(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a count or an index from the kernel: an int >= 0, not a bool."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class _Decoder(Decoder):
    """The codec's strict decoder, with what only the grader reads.

    Handles, placeholders, figure snapshots, and sets and dicts within the hashing caps of
    :mod:`~attention_grader.wire.answer_sets`.
    """

    error = UnreadableAnswer

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
        self.function = function
        self.handle = handle
        self.unsupported: list[str] = []  # what arrived as a placeholder (not carried)
        self.notes: list[str] = notes if notes is not None else []  # carried only in part
        self.hashed = hashed or hash_budget(limits)
        super().__init__(answer_caps(limits))

    def readers(self) -> dict[str, Reader]:
        return {
            **super().readers(),
            "axes": self._snapshot(axes_from),
            "figure": self._snapshot(figure_from),
            "callable": self._callable,
            "handle": lambda data, depth: self._handle(data),
            "class": lambda data, depth: self._handle(data),
            "unsupported": lambda data, depth: self._placeholder(
                f"a {str(data['unsupported'])[:80]}"
            ),
        }

    def admit(self, size: int, what: str) -> None:
        self.hashed.admit(size, what)

    def build_set(self, items: list[object]) -> set[object]:
        return self.hashed.build_set(items)

    def build_dict(self, pairs: list[tuple[object, object]]) -> dict[object, object]:
        return self.hashed.build_dict(pairs)

    def _callable(self, data: dict[str, Wire], depth: int) -> object:
        name = str(data["callable"])[:80]
        if depth == 0 and self.function is not None:
            return self.function(name)
        return self._placeholder(f"a function ({name}) inside a container")

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

    def _snapshot(
        self, build: Callable[[object, list[str]], AxesSnapshot | FigureSnapshot]
    ) -> Reader:
        def read(data: dict[str, Wire], depth: int) -> object:
            kind = "axes" if "axes" in data else "figure"
            try:
                snapshot = build(self(data[kind], depth + 1), self.notes)
            except (TypeError, ValueError) as exc:
                raise UnreadableAnswer(f"a malformed {kind}: {exc}"[:200]) from None
            self.notes.append(f"a matplotlib {snapshot._kind} arrives as a read-only snapshot")
            return snapshot

        return read


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
