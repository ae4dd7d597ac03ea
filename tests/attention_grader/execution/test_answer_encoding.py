"""Encoding the grader's arguments (attention_grader.execution.answer_encoding) for the kernel side."""

from __future__ import annotations

import json

import numpy as np
import pytest
from attention_grader.execution.answer_encoding import KERNEL_SIDE, encode


def test_grader_arguments_round_trip_through_the_wire_format():
    value = {"q": np.arange(6.0).reshape(2, 3), "m": np.eye(2, dtype=bool), "n": (None, 1, "a")}
    side = {"_USER_NS": {}, "_REQUEST": "{}"}
    # the kernel side's decoder on what the grader encodes
    exec(KERNEL_SIDE.replace("_answer()\n", ""), side)
    back = side["_decode"](json.loads(json.dumps(encode(value))))
    assert np.array_equal(back["q"], value["q"]) and back["m"].dtype == bool
    assert back["n"] == (None, 1, "a")
    with pytest.raises(TypeError, match="cannot send"):
        encode(object())
