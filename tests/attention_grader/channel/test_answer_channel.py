"""The answer channel (attention_grader.channel.answer_channel): only plain data crosses from a kernel.

The kernel side is tested by running ``_kernel_side.py``'s text as the kernel would (exec with a
namespace, tests/support/stand_in_kernel.py), and the grader side by what the channel hands a test.
"""

from __future__ import annotations

import numpy as np
import pytest
from attention_grader.channel.answer_channel import AnswerChannel
from attention_grader.channel.object_handles import ObjectHandle
from attention_grader.wire.answer_errors import CannotGrade, StudentCodeError
from attention_grader.wire.unsupported_answer import UnsupportedAnswer

from tests.support.stand_in_kernel import kernel


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


def _nested(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


def test_raising_answers_max_depth_takes_effect_in_the_kernel_and_the_grader():
    """``c.Answers.max_depth`` is sent with each request: the kernel cuts where the grader does."""
    from attention_grader.config.settings import answer_limits
    from attention_grader.wire.answer_errors import UnreadableAnswer
    from traitlets.config import Config

    deep = _nested(22)
    config = Config()
    config.Answers.max_depth = 25
    channel = AnswerChannel(kernel({"deep": deep, "same": lambda x: x}), answer_limits(config))
    got = channel.get(["deep", "same"])
    assert got["deep"] == deep  # kernel to grader
    assert got["same"](deep) == deep  # grader to kernel and back
    config.Answers.max_depth = 20
    channel = AnswerChannel(kernel({"deep": deep, "same": lambda x: x}), answer_limits(config))
    with pytest.raises(UnreadableAnswer, match="nested too deeply"):
        channel.get(["deep"])
    with pytest.raises(CannotGrade, match="nested too deeply"):
        channel.get(["same"])["same"](deep)


def test_the_kernels_text_and_generator_caps_come_from_the_config():
    from attention_grader.config.settings import AnswerLimits

    def ns():  # a map object is carried as its items (a generator's state stays in the kernel)
        return {"text": "attention", "squares": map(lambda i: i * i, range(5)), "echo": print}

    small = AnswerLimits(max_text_chars=4, max_yields=3, max_printed_chars=2)
    channel = AnswerChannel(kernel(ns()), small)
    printed: list[str] = []
    channel.stdout_sink = printed.append
    got = channel.get(["text", "squares", "echo"])
    assert isinstance(got["text"], UnsupportedAnswer) and "text too long" in got["text"].what
    assert isinstance(got["squares"], UnsupportedAnswer) and "more than 3" in got["squares"].what
    got["echo"]("hello")
    assert printed == ["he"]  # what a call printed, cut by the kernel at max_printed_chars
    roomy = AnswerChannel(kernel(ns()))
    got = roomy.get(["text", "squares"])
    assert got["text"] == "attention" and list(got["squares"]) == [0, 1, 4, 9, 16]
