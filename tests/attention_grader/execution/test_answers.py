"""The answer channel (attention_grader.execution.answers): only plain data crosses from a kernel.

The kernel side is tested by running ``_kernel_side.py``'s text as the kernel would (exec with a
namespace), and the grader side by decoding hostile replies.
"""

from __future__ import annotations

import collections
import json

import numpy as np
import pytest
from attention_grader.execution import answers
from attention_grader.execution.answers import (
    AnswerChannel,
    AnswerLimits,
    StudentCodeError,
    UnreadableAnswer,
    UnsupportedAnswer,
    decode,
    encode,
)
from attention_grader.execution.needs_teacher import CannotGrade
from attention_grader.execution.object_handles import ObjectHandle
from nbformat import NotebookNode


def kernel(namespace: dict):
    """A stand-in kernel: runs each request's code on ``namespace`` and returns its outputs."""

    def run(source: str) -> list:
        shown = []
        import IPython.display

        real = IPython.display.display
        IPython.display.display = lambda data, raw=False: shown.append(data)
        try:
            exec(source, {"globals": lambda: namespace})
        except Exception as exc:  # as a kernel reports an error
            return [NotebookNode(output_type="error", ename=type(exc).__name__, evalue=str(exc))]
        finally:
            IPython.display.display = real
        return [NotebookNode(output_type="display_data", data=d, metadata={}) for d in shown]

    return run


def test_plain_answers_come_back_as_the_same_plain_data():
    ns = {
        "scores": np.array([0.0, 0.707, 1.414]),
        "weights": [0.2, 0.4, 0.4],
        "pair": (np.float32(1.5), True),
        "names": {"query", "key"},
        "table": {"a": 1, 2: None},
        "text": "k3",
        "flag": np.bool_(False),
        "mask": np.tril(np.ones((2, 2), dtype=bool)),
    }
    got = AnswerChannel(kernel(ns)).get(sorted(ns) + ["undefined"])
    assert set(got) == set(ns)  # a missing name is simply absent (NameError in the test)
    assert got["scores"].dtype == np.float64 and np.array_equal(got["scores"], ns["scores"])
    assert got["weights"] == [0.2, 0.4, 0.4]
    assert got["pair"] == (np.float32(1.5), True) and type(got["pair"][0]) is np.float32
    assert got["names"] == {"query", "key"} and got["table"] == {"a": 1, 2: None}
    assert got["text"] == "k3" and type(got["flag"]) is np.bool_
    assert got["mask"].dtype == bool and got["mask"].shape == (2, 2)


def test_objects_that_fake_equality_arrive_as_plain_values_or_placeholders():
    class Anything:
        def __eq__(self, other):
            return True

    class Sneaky(np.ndarray):
        def __eq__(self, other):
            return np.ones(self.shape, dtype=bool)

    class Weird(str):
        def __eq__(self, other):
            return True

    ns = {
        "a": Anything(),
        "b": np.zeros(3).view(Sneaky),
        "c": Weird("nope"),
        "d": np.array([object()]),
        "e": 1 + 2j,
        "f": np,
    }
    got = AnswerChannel(kernel(ns)).get(sorted(ns))
    # An object stays in the kernel: its __eq__ never decides a comparison with the grader's data
    # (the cell needs a teacher instead), and never runs here.
    assert isinstance(got["a"], ObjectHandle)
    for value in (1, "values"):
        with pytest.raises(CannotGrade, match="__eq__"):
            got["a"] != value  # noqa: B015
    with pytest.raises((TypeError, ValueError)):
        np.asarray(got["a"], dtype=float)
    assert type(got["b"]) is np.ndarray and not (got["b"] == 1).any()
    assert type(got["c"]) is str and got["c"] != "yes"
    assert type(got["e"]) is complex and got["e"] == 1 + 2j  # carried as the number it is
    for name in "df":
        assert isinstance(got[name], UnsupportedAnswer), name
        with pytest.raises((TypeError, ValueError)):
            np.asarray(got[name], dtype=float)


def test_functions_are_called_in_the_kernel_by_the_name_asked_for():
    ns = {
        "softmax": lambda x: np.exp(x) / np.exp(x).sum(),
        "alias": print,  # `softmax = print`: called back as `alias`, not as `print`
        "broken": lambda x: 1 / 0,
        "stub": lambda x: (_ for _ in ()).throw(NotImplementedError("write me")),
    }
    channel = AnswerChannel(
        kernel(ns), library_use=lambda name: "scipy" if name == "stub" else None
    )
    got = channel.get(sorted(ns))
    out = got["softmax"](np.array([0.0, 0.0]))
    assert type(out) is np.ndarray and np.allclose(out, [0.5, 0.5])
    assert got["alias"]("hello") is None
    with pytest.raises(ZeroDivisionError) as err:  # the kernel's error, as its builtin type here
        got["broken"](1)
    assert isinstance(err.value, StudentCodeError) and "division by zero" in str(err.value)
    with pytest.raises(NotImplementedError, match="write me"):
        got["stub"](1)
    assert got["stub"].attention_library_use == "scipy"
    assert got["softmax"].attention_library_use is None


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
        return [NotebookNode(output_type="display_data", data={answers.MIME: json.dumps(reply)})]

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
        return [NotebookNode(output_type="display_data", data={answers.MIME: text})]

    with pytest.raises(UnreadableAnswer, match="too large"):
        AnswerChannel(huge, limits).get(["x"])

    def bomb(source):  # nesting that would overflow the JSON parser's stack
        text = '{"x": {"value": ' + "[" * 100_000 + "]" * 100_000 + "}}"
        return [NotebookNode(output_type="display_data", data={answers.MIME: text})]

    with pytest.raises(UnreadableAnswer):
        AnswerChannel(bomb).get(["x"])


def test_a_kernel_that_answers_nothing_is_unreadable_and_one_that_errs_says_so():
    with pytest.raises(UnreadableAnswer, match="no answer"):
        AnswerChannel(lambda source: []).get(["x"])
    err = [NotebookNode(output_type="error", ename="CellTimeoutError", evalue="")]
    with pytest.raises(StudentCodeError, match="loop that never ends"):
        AnswerChannel(lambda source: err).get(["x"])


def test_grader_arguments_round_trip_through_the_wire_format():
    value = {"q": np.arange(6.0).reshape(2, 3), "m": np.eye(2, dtype=bool), "n": (None, 1, "a")}
    side = {"_USER_NS": {}, "_REQUEST": "{}"}
    # the kernel side's decoder on what the grader encodes
    exec(answers.KERNEL_SIDE.replace("_answer()\n", ""), side)
    back = side["_decode"](json.loads(json.dumps(encode(value))))
    assert np.array_equal(back["q"], value["q"]) and back["m"].dtype == bool
    assert back["n"] == (None, 1, "a")
    with pytest.raises(TypeError, match="cannot send"):
        encode(object())


# --- sets and dict keys: what rebuilding them may cost (attention_grader.execution.answer_sets) ----------

#: Every one of these ints hashes to 0 (CPython hashes ints modulo the Mersenne prime 2**61 - 1).
COLLIDING = [k * (2**61 - 1) for k in range(1, 2_000_001)]


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


def test_within_the_caps_collisions_cost_at_most_the_documented_bound():
    """Worst case at the caps: every hash equal. The equality tests stay under
    max_set_items * max_hashed_items, and a set over the caps hashes nothing.
    """
    from attention_grader.execution.answer_sets import HashBudget

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


def test_the_hashing_budget_is_shared_by_every_answer_of_one_reply():
    """Many names, each a set at the per-set cap: the reply as a whole is refused."""
    limits = AnswerLimits(max_set_items=1000, max_hashed_items=3000)
    reply = {f"s{i}": {"value": {"set": COLLIDING[i * 1000 : (i + 1) * 1000]}} for i in range(4)}

    def run(source):
        return [NotebookNode(output_type="display_data", data={answers.MIME: json.dumps(reply)})]

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
        return [NotebookNode(output_type="display_data", data={answers.MIME: json.dumps(reply)})]

    with pytest.raises(UnreadableAnswer, match="1000 keys"):
        AnswerChannel(run).get(["name0"])
