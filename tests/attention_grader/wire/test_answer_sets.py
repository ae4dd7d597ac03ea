"""Sets and dict keys: what rebuilding them may cost (attention_grader.wire.answer_sets)."""

from __future__ import annotations

import pytest
from attention_grader.config.settings import AnswerLimits
from attention_grader.wire.answer_errors import UnreadableAnswer
from attention_grader.wire.answer_sets import HashBudget

from tests.support.hash_collisions import COLLIDING


class _Colliding:
    """A value whose hash always collides, counting the equality tests a set makes on it."""

    hashes = 0
    equals = 0

    def __init__(self, n):
        self.n = n

    def __hash__(self):
        type(self).hashes += 1
        return 0

    def __eq__(self, other):
        type(self).equals += 1
        return isinstance(other, _Colliding) and other.n == self.n


def test_the_colliding_ints_really_collide():
    assert {hash(x) for x in COLLIDING[:1000]} == {0}


def test_within_the_caps_collisions_cost_at_most_the_documented_bound():
    """Worst case at the caps: every hash equal. The equality tests stay under
    max_set_items * max_hashed_items, and a set over the caps hashes nothing.
    """
    limits = AnswerLimits(max_set_items=100, max_hashed_items=400)
    budget = HashBudget(limits.max_set_items, limits.max_hashed_items, UnreadableAnswer)
    _Colliding.hashes = _Colliding.equals = 0
    for start in range(0, 400, 100):  # four full sets: the reply's whole hashing budget
        built = budget.build_set([_Colliding(n) for n in range(start, start + 100)])
        assert len(built) == 100
    assert _Colliding.equals < limits.max_set_items * limits.max_hashed_items
    seen = _Colliding.hashes
    with pytest.raises(UnreadableAnswer, match="more than 400 values"):
        budget.build_set([_Colliding(-1)])
    with pytest.raises(UnreadableAnswer, match="at most 100"):
        HashBudget(100, 400, UnreadableAnswer).build_set([_Colliding(n) for n in range(101)])
    assert _Colliding.hashes == seen  # refused sets were never hashed
