"""Sets, dict keys and JSON objects of a reply, rebuilt at a cost the grader bounds.

Building a ``set`` or a ``dict`` hashes its items, and CPython's hashes of numbers are public
arithmetic: every ``k * (2**61 - 1)`` hashes to 0, floats ``x`` and ``x * 2**61`` share a hash,
a tuple's hash is a known mix of its items' hashes. A student who makes every item of a set
collide turns its rebuilding into time quadratic in its size (a 2.6 MB reply held a grading
worker for over a minute), in the grader's own process where no kernel time limit applies.

So a reply's sets and dict keys are rebuilt only within two caps (:class:`HashBudget`, set from
:class:`~attention_grader.config.settings.AnswerLimits`): at most ``max_set_items`` items in one set or
dict, and at most ``max_hashed_items`` values hashed in one reply (the items of a tuple key
count one each). Even when every hash collides, rebuilding then costs fewer than
``max_set_items * max_hashed_items`` equality tests (10 million with the defaults; a tenth of a
second for ints), whatever the reply holds. A bigger set is not rebuilt at all: the answer is
unreadable (the test scores 0, flagged ``unreadable_answer``), with the cap in the message.

The items themselves are values the decoder made (numbers, strings, numpy scalars, tuples of
those, placeholders): no object of the student's ever has its ``__hash__`` called here.

JSON objects in a reply are small by construction (the wire format uses one-key objects and a
reply has one entry per requested name), so :func:`small_object` refuses any object with more
than :data:`MAX_OBJECT_KEYS` keys before a dict is built from its (string) keys.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["MAX_OBJECT_KEYS", "HashBudget", "small_object"]

#: Most keys in one JSON object of a reply (names asked for at once, wire-format fields).
MAX_OBJECT_KEYS = 256


class HashBudget:
    """Counts what one reply hashes; rebuilds its sets and dicts or refuses them.

    Parameters
    ----------
    max_set_items : int
        Most items in one set (or entries in one dict).
    max_hashed_items : int
        Most values hashed over the whole reply (tuple keys count each item).
    refuse : callable
        ``refuse(message)`` -> the exception to raise (the decoder's ``UnreadableAnswer``).
    """

    def __init__(
        self, max_set_items: int, max_hashed_items: int, refuse: Callable[[str], Exception]
    ):
        self.max_set_items = max_set_items
        self.max_hashed_items = max_hashed_items
        self.refuse = refuse
        self.hashed = 0

    def admit(self, size: int, what: str) -> None:
        """Refuse a set or dict of ``size`` items over the cap, before any item is decoded."""
        if size > self.max_set_items:
            raise self.refuse(
                f"a {what} of {size} items (the grader reads at most {self.max_set_items})"
            )

    def _charge(self, items: list[object], what: str) -> None:
        self.admit(len(items), what)
        self.hashed += sum(_weight(item) for item in items)
        if self.hashed > self.max_hashed_items:
            raise self.refuse(
                f"more than {self.max_hashed_items} values in sets and dict keys in one answer"
            )

    def build_set(self, items: list[object]) -> set[object]:
        """``set(items)``, once the caps allow it."""
        self._charge(items, "set")
        try:
            return set(items)
        except TypeError:  # a list or an array inside a set
            raise self.refuse("a set of unhashable items") from None

    def build_dict(self, pairs: list[tuple[object, object]]) -> dict[object, object]:
        """``dict(pairs)``, once the caps allow it (the keys are what is hashed)."""
        self._charge([key for key, _ in pairs], "dict")
        try:
            return dict(pairs)
        except TypeError:
            raise self.refuse("a dict with unhashable keys") from None


def _weight(item: object) -> int:
    """How many values hashing ``item`` hashes: a tuple hashes each of its items."""
    if type(item) is tuple:
        return 1 + sum(_weight(x) for x in item)
    return 1


def small_object(
    pairs: list[tuple[str, object]], refuse: Callable[[str], Exception]
) -> dict[str, object]:
    """``json.loads``'s ``object_pairs_hook``: a dict, unless the object has too many keys."""
    if len(pairs) > MAX_OBJECT_KEYS:
        raise refuse(f"a JSON object with {len(pairs)} keys in the reply")
    return dict(pairs)
