"""A value that could not be carried (attention_grader.wire.unsupported_answer)."""

from __future__ import annotations

import pytest
from attention_grader.wire.unsupported_answer import UnsupportedAnswer


def test_every_use_of_a_placeholder_is_noted_and_none_gives_a_number():
    used: list[str] = []
    value = UnsupportedAnswer("a module", used.append)
    assert value.what == "a module" and used == []  # reading what it stands for is not a use
    assert (value == 3) is False and bool(value) is True
    for use in (len, float, lambda v: v + 1, lambda v: v[0], lambda v: list(v)):
        with pytest.raises(TypeError, match="could not be carried"):
            use(value)
    assert "not numbers" in repr(value)
    assert used and set(used) == {"a module"}
