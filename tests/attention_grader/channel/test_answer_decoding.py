"""Decoding a kernel's reply (attention_grader.channel.answer_decoding): hostile replies are refused.

Replies are decoded directly (:func:`decode`) or arrive through an :class:`AnswerChannel` whose
kernel returns them as they are.
"""

from __future__ import annotations

import collections
import json

import pytest
from attention_grader.channel.answer_channel import AnswerChannel
from attention_grader.channel.answer_decoding import decode
from attention_grader.channel.answer_encoding import MIME
from attention_grader.config.settings import AnswerLimits
from attention_grader.wire.answer_errors import StudentCodeError, UnreadableAnswer
from nbformat import NotebookNode

from tests.support.hash_collisions import COLLIDING


@pytest.mark.parametrize(
    "reply",
    [
        {"x": {"value": {"array": [["1", 2]], "dtype": "<f8", "shape": [1, 2]}}},  # text in array
        {"x": {"value": {"array": [1, 2, 3], "dtype": "<f8", "shape": [2]}}},  # shape lies
        {"x": {"value": {"array": [1], "dtype": "O", "shape": [1]}}},  # object dtype
        {"x": {"value": {"array": [1], "dtype": "V8", "shape": [1]}}},  # void dtype
        {"x": {"value": {"scalar": "1", "dtype": "<f8"}}},  # scalar that is text
        {"x": {"value": {"pickle": "gASV"}}},  # unknown encoding
        {"x": {"value": {"set": [{"list": [1]}]}}},  # unhashable set item
        {"x": {"value": {"dict": [[1, 2, 3]]}}},  # not a pair
    ],
)
def test_hostile_replies_are_unreadable_not_trusted(reply):
    def run(source):
        return [NotebookNode(output_type="display_data", data={MIME: json.dumps(reply)})]

    with pytest.raises(UnreadableAnswer):
        AnswerChannel(run).get(["x"])


def test_reply_size_depth_and_item_caps():
    limits = AnswerLimits(max_reply_chars=1000, max_depth=5, max_items=50)
    nested = {"list": [{"list": [{"list": [{"list": [{"list": [{"list": [1]}]}]}]}]}]}
    with pytest.raises(UnreadableAnswer, match="deep"):
        decode(nested, limits)
    with pytest.raises(UnreadableAnswer, match="too many|large"):
        decode({"list": list(range(100))}, limits)
    with pytest.raises(UnreadableAnswer, match="too many"):
        decode({"array": list(range(100)), "dtype": "<i8", "shape": [100]}, limits)

    def huge(source):
        text = json.dumps({"x": {"value": "a" * 2000}})
        return [NotebookNode(output_type="display_data", data={MIME: text})]

    with pytest.raises(UnreadableAnswer, match="too large"):
        AnswerChannel(huge, limits).get(["x"])

    def bomb(source):  # nesting that would overflow the JSON parser's stack
        text = '{"x": {"value": ' + "[" * 100_000 + "]" * 100_000 + "}}"
        return [NotebookNode(output_type="display_data", data={MIME: text})]

    with pytest.raises(UnreadableAnswer):
        AnswerChannel(bomb).get(["x"])


def test_a_kernel_that_answers_nothing_is_unreadable_and_one_that_errs_says_so():
    with pytest.raises(UnreadableAnswer, match="no answer"):
        AnswerChannel(lambda source: []).get(["x"])
    err = [NotebookNode(output_type="error", ename="CellTimeoutError", evalue="")]
    with pytest.raises(StudentCodeError, match="loop that never ends"):
        AnswerChannel(lambda source: err).get(["x"])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["set", "dict", "Counter"])
def test_a_full_size_colliding_set_or_dict_is_refused_before_anything_is_hashed(kind):
    """The issue's reply (millions of ints sharing one hash) is refused by its length alone;
    a Counter (carried since issue 26) hashes its keys too, so it is capped alike.
    """
    pairs = [[x, 0] for x in COLLIDING]
    value = {"set": {"set": COLLIDING}, "dict": {"dict": pairs}, "Counter": {"counter": pairs}}
    value = value[kind]
    with pytest.raises(UnreadableAnswer, match=f"a {kind} of 2000000 items .*at most 1000"):
        decode(value)


def test_the_hashing_budget_is_shared_by_every_answer_of_one_reply():
    """Many names, each a set at the per-set cap: the reply as a whole is refused."""
    limits = AnswerLimits(max_set_items=1000, max_hashed_items=3000)
    reply = {f"s{i}": {"value": {"set": COLLIDING[i * 1000 : (i + 1) * 1000]}} for i in range(4)}

    def run(source):
        return [NotebookNode(output_type="display_data", data={MIME: json.dumps(reply)})]

    with pytest.raises(UnreadableAnswer, match="more than 3000 values"):
        AnswerChannel(run, limits).get(sorted(reply))
    small = AnswerChannel(run, limits).get(["s0", "s1"])  # within the budget: real sets
    assert small["s0"] == set(COLLIDING[:1000]) and isinstance(small["s1"], set)


def test_a_counter_within_the_caps_is_a_counter_and_over_them_is_refused():
    limits = AnswerLimits(max_set_items=10, max_hashed_items=12)
    got = decode({"counter": [["a", 2], ["b", 1]]}, limits)
    assert isinstance(got, collections.Counter) and got == collections.Counter(a=2, b=1)
    with pytest.raises(UnreadableAnswer, match="at most 10"):
        decode({"counter": [[k, 1] for k in range(11)]}, limits)


def test_tuple_keys_count_each_item_against_the_budget():
    limits = AnswerLimits(max_set_items=10, max_hashed_items=12)
    keys = [[{"tuple": [k, k + 1, k + 2]}, 0] for k in range(4)]  # 4 tuples of 3: 16 values
    with pytest.raises(UnreadableAnswer, match="more than 12"):
        decode({"dict": keys}, limits)
    assert decode({"dict": keys[:3]}, limits) == {(k, k + 1, k + 2): 0 for k in range(3)}


def test_a_reply_object_with_too_many_keys_is_refused():
    reply = {f"name{i}": {"missing": True} for i in range(1000)}

    def run(source):
        return [NotebookNode(output_type="display_data", data={MIME: json.dumps(reply)})]

    with pytest.raises(UnreadableAnswer, match="1000 keys"):
        AnswerChannel(run).get(["name0"])
