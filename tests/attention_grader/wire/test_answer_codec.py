"""The answer codec (attention_grader.wire.answer_codec): one module, run on both sides."""

from __future__ import annotations

import ast
import hashlib
import sys
from pathlib import Path

from attention_grader.wire import answer_codec

from tests.support.stand_in_kernel import kernel


def test_the_kernel_runs_the_very_codec_source_the_grader_imports():
    from attention_grader.channel.answer_channel import AnswerChannel

    sys.modules.pop("attention_grader_answer_codec", None)
    assert AnswerChannel(kernel({"x": [1, 2]})).get(["x"]) == {"x": [1, 2]}
    loaded = sys.modules["attention_grader_answer_codec"]  # compiled from the request's text
    imported = hashlib.sha256(Path(answer_codec.__file__).read_bytes()).hexdigest()
    assert loaded.SOURCE_SHA256 == imported
    assert loaded.Encoder.__call__.__code__.co_filename == "<attention-grader codec>"


def test_the_codec_imports_only_the_standard_library_and_numpy():
    tree = ast.parse(Path(answer_codec.__file__).read_text())
    names = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    tops = {name.split(".")[0] for name in names}
    assert tops and tops <= set(sys.stdlib_module_names) | {"numpy"}, tops


def test_numpy_scalars_keep_their_type_both_ways():
    """np.float64 is a float and np.str_ a str: the codec still carries the numpy scalar."""
    import json

    import numpy as np

    caps = answer_codec.Caps()
    for value in (np.float64(0.5), np.int64(3), np.bool_(True), np.float32(1.5)):
        back = answer_codec.Decoder(caps)(json.loads(json.dumps(answer_codec.Encoder(caps)(value))))
        assert type(back) is type(value) and back == value


def test_the_graders_own_text_arrays_are_carried_a_students_stay_placeholders():
    """A test may pass ``np.array(["kiwi", ...])`` to a student's function, as plain nbgrader does;
    a text array the student's code returns is still not read as data (it stays in her kernel).
    """
    import json

    import numpy as np
    import pytest

    words = np.array(["apple", "kiwi"])
    arguments = answer_codec.Caps().depth_only()
    wire = json.loads(json.dumps(answer_codec.Encoder(arguments)(words)))
    back = answer_codec.Decoder(arguments)(wire)
    assert isinstance(back, np.ndarray) and back.dtype == words.dtype
    assert back.tolist() == ["apple", "kiwi"]

    answers = answer_codec.Caps()
    with pytest.raises(answer_codec.WireError):  # each side's encoder makes it its placeholder
        answer_codec.Encoder(answers)(words)
    with pytest.raises(answer_codec.WireError):
        answer_codec.Decoder(answers)(wire)
    for lie in ({**wire, "array": [1, 2]}, {**wire, "dtype": "<U99999999", "shape": [1000]}):
        with pytest.raises(answer_codec.WireError):
            answer_codec.Decoder(arguments)(lie)


def test_the_codecs_fallback_caps_are_the_settings_defaults():
    """The codec (stdlib and numpy only) cannot import the settings, so it repeats their defaults
    for a request that carries no caps: keep the two equal.
    """
    from dataclasses import fields

    from attention_grader.config.settings import AnswerLimits
    from attention_grader.wire.answer_caps import answer_caps

    shared = {f.name for f in fields(answer_codec.Caps)} - {"text_arrays"}
    assert answer_caps(AnswerLimits()) == answer_caps() == answer_codec.Caps()
    assert shared <= {f.name for f in fields(AnswerLimits)}


def test_the_caps_travel_as_json_and_a_bad_value_is_the_default():
    """The kernel reads its caps from the request's JSON: what ``c.Answers`` set, each bad or
    missing value (a student cannot send caps, but a broken request must not lift one) its
    default.
    """
    import json

    from attention_grader.config.settings import AnswerLimits
    from attention_grader.wire.answer_caps import answer_caps, caps_wire

    caps = answer_caps(AnswerLimits(max_depth=5, max_text_chars=7))
    sent = json.loads(json.dumps(caps_wire(caps)))
    assert answer_codec.Caps.of(sent) == caps and (caps.max_depth, caps.max_text_chars) == (5, 7)
    odd = {"max_depth": True, "max_items": -1, "max_yields": "9", "max_printed_chars": 3}
    assert answer_codec.Caps.of(odd) == answer_codec.Caps(max_printed_chars=3)
