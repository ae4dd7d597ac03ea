"""attention_lab.checks.block: lesson 7's checks accept right answers and name each mistake."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import checks, misconceptions
from attention_lab._steps import softmax
from attention_lab.transformer.block import layer_norm
from attention_lab.transformer.mistakes import BLOCK_KINDS, BLOCK_WRONG, block_entries_for

X = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0], [2.0, -1.0, 1.0]])
F = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 2.0]])
LOGITS = np.array([[2.0, 1.0, 0.0, -1.0], [0.0, 1.0, 3.0, 0.5]])


def _named(check, answer, *args, **kwargs) -> str | None:
    try:
        check(answer, *args, **kwargs)
    except checks.Misconception as err:
        return err.id
    except checks.CheckFailure as err:
        return type(err).__name__
    return None


def test_every_lesson_7_entry_has_its_wrong_computation_and_back():
    lesson_7 = {e.id for e in misconceptions.REGISTRY.values() if e.lesson == "lesson 07"}
    assert lesson_7 <= set(BLOCK_WRONG) <= set(misconceptions.REGISTRY)
    assert {w.kind for ws in BLOCK_WRONG.values() for w in ws} == set(BLOCK_KINDS)
    with pytest.raises(ValueError, match="kind must be one of"):
        block_entries_for("logits")


def test_layer_norm_right_and_over_the_wrong_axis():
    assert _named(checks.check_layer_norm, layer_norm(X), X) is None
    assert _named(checks.check_layer_norm, np.round(layer_norm(X), 3), X) is None
    over_positions = (X - X.mean(axis=0)) / X.std(axis=0)
    assert _named(checks.check_layer_norm, over_positions, X) == "norm_wrong_axis"
    assert _named(checks.check_layer_norm, X - X.mean(axis=1, keepdims=True), X) == "WrongAnswer"
    assert _named(checks.check_layer_norm, None, X) == "AnswerFormatError"


def test_add_and_norm_names_the_residual_after_the_norm():
    assert _named(checks.check_add_and_norm, layer_norm(X + F), X, F) is None
    assert _named(checks.check_add_and_norm, layer_norm(F) + X, X, F) == "residual_after_norm"
    assert _named(checks.check_add_and_norm, layer_norm(F), X, F) == "WrongAnswer"


@pytest.mark.parametrize("t", [0.5, 2.0])
def test_probabilities_name_the_inverted_temperature_and_the_wrong_axis(t):
    right = softmax(LOGITS / t, axis=-1)
    check = checks.check_next_token_probabilities
    assert _named(check, right, LOGITS, t) is None
    assert _named(check, right[-1], LOGITS, t, row=-1) is None
    assert _named(check, softmax(LOGITS * t, axis=-1), LOGITS, t) == "temperature_inverted"
    assert _named(check, softmax(LOGITS / t, axis=0), LOGITS, t) == "vocab_softmax_wrong_axis"
    assert (
        _named(check, softmax(LOGITS / t, axis=0)[-1], LOGITS, t, row=-1)
        == "vocab_softmax_wrong_axis"
    )


def test_generation_weights_name_the_missing_mask():
    scores = np.array([[1.0, 2.0, 0.0], [0.5, 1.0, 3.0], [2.0, 0.0, 1.0]])
    masked = np.where(np.tril(np.ones((3, 3), dtype=bool)), scores, -np.inf)
    check = checks.check_generation_weights
    assert _named(check, softmax(masked), scores) is None
    assert _named(check, softmax(scores), scores) == "mask_left_out_at_generation"
    as_zero = softmax(np.where(np.tril(np.ones((3, 3), dtype=bool)), scores, 0.0))
    assert _named(check, as_zero, scores) == "mask_zero_not_inf"
    after = softmax(scores) * np.tril(np.ones((3, 3)))
    assert _named(check, after, scores) == "mask_after_softmax"


def test_parameter_counts_by_part_and_full_width_heads():
    check = checks.check_parameter_count
    assert _named(check, 4 * 512 * 512, 512, 8, 2048, part="attention") is None
    assert _named(check, 4 * 8 * 512 * 512, 512, 8, 2048, part="attention") == "heads_full_width"
    assert _named(check, 2 * 512 * 2048 + 2048 + 512, 512, 8, 2048, part="feed_forward") is None
    assert _named(check, 2 * 512 * 2048, 512, 8, 2048, part="feed_forward") == "WrongAnswer"
    assert _named(check, 2048, 512, 8, 2048, part="norms") is None
    assert _named(check, 3_150_336.0, 512, 8, 2048) is None
    assert _named(check, "3150336", 512, 8, 2048) == "AnswerFormatError"
    assert _named(check, True, 512, 8, 2048) == "AnswerFormatError"
    with pytest.raises(ValueError, match="part must be one of"):
        check(1, 512, 8, 2048, part="heads")
