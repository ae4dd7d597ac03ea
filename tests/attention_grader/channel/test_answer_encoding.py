"""Encoding the grader's arguments (attention_grader.channel.answer_encoding) for the kernel side."""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import json

import numpy as np
import pytest
from attention_grader.channel.answer_encoding import CODEC_SOURCE, KERNEL_SIDE, encode


def test_grader_arguments_round_trip_through_the_wire_format():
    value = {"q": np.arange(6.0).reshape(2, 3), "m": np.eye(2, dtype=bool), "n": (None, 1, "a")}
    kinds = [
        2 - 3j,
        datetime.datetime(2026, 12, 1, 17, 30),
        datetime.date(2026, 12, 1),
        datetime.time(17, 30, 5),
        datetime.timedelta(days=2, seconds=5),
        decimal.Decimal("0.610"),
        fractions.Fraction(3, 7),
        collections.Counter("abca"),
    ]
    side = {"_USER_NS": {}, "_REQUEST": "{}", "_CODEC": CODEC_SOURCE}
    # the kernel side's decoder on what the grader encodes
    exec(KERNEL_SIDE.replace("_answer()\n", ""), side)
    back = side["_decode"](json.loads(json.dumps(encode(value))))
    assert np.array_equal(back["q"], value["q"]) and back["m"].dtype == bool
    assert back["n"] == (None, 1, "a")
    for kind in kinds:
        again = side["_decode"](json.loads(json.dumps(encode(kind))))
        assert again == kind and type(again) is type(kind), kind
    with pytest.raises(TypeError, match="cannot send"):
        encode(object())
