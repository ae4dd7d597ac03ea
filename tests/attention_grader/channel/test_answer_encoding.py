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


def test_the_agent_is_sent_once_per_kernel_and_sent_again_when_her_code_removed_it(capsys):
    """The first request keeps the agent in the kernel's ``sys.modules``; later ones are a short
    call of it, answered alike; one that finds no agent (or something else in its place) says
    so, and the grader sends the agent again.
    """
    import sys

    from attention_grader.channel.answer_encoding import (
        AGENT_MODULE,
        agent_missing,
        request_call,
        request_source,
    )
    from nbformat.v4 import new_output

    def missing_after(code: str) -> bool:
        with pytest.raises(KeyError) as raised:
            exec(code, kernel)
        error = new_output("error", ename="KeyError", evalue=str(raised.value), traceback=[])
        return agent_missing([error])

    request = {"op": "get", "names": ["x"]}
    kernel = {"x": 3}  # the student's namespace
    sys.modules.pop(AGENT_MODULE, None)
    try:
        assert missing_after(request_call(request))
        exec(request_source(request), kernel)  # the answer is displayed (printed, outside IPython)
        sent = capsys.readouterr().out
        assert '"x"' in sent and AGENT_MODULE in sys.modules
        exec(request_call(request), kernel)
        assert capsys.readouterr().out == sent
        assert len(request_call(request)) < 1_000 < 30_000 < len(request_source(request))
        sys.modules[AGENT_MODULE] = None  # something else under its name
        assert missing_after(request_call(request))
    finally:
        sys.modules.pop(AGENT_MODULE, None)
    other = new_output("error", ename="KeyError", evalue="'x'", traceback=[])
    assert not agent_missing([other])  # her own KeyError is hers
