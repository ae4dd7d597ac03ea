"""Lesson exercise checks: right answers pass; each known mistake is named; no expected value
ever appears in a message.
"""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import attention, checks, dot_product_scores, softmax
from attention_lab.checks.exercises import (
    check_hard_output,
    check_masked_output,
    check_masked_scores,
    check_masked_weights,
    check_parallel_key_beats,
    check_top_key,
)
from attention_lab.examples import ISRO, TIFFIN

Q = TIFFIN.query()  # "it" = (1, 1)
K, V = TIFFIN.K, TIFFIN.V
ROW = np.array([True, True, True, False])  # causal mask row of "it": "big" comes later
SCORES = dot_product_scores(Q, K, scale=False)


def _weights(scores):
    return softmax(np.where(ROW, scores, -np.inf))


def _slug(call):
    with pytest.raises(checks.CheckFailure) as info:
        call()
    return getattr(info.value, "id", type(info.value).__name__), str(info.value)


def test_masked_scores_accept_minus_inf_or_a_huge_negative():
    check_masked_scores([3, 1, 2, -np.inf], Q, K, ROW, scale=False)
    check_masked_scores([3, 1, 2, -1e9], Q, K, ROW, scale=False)


@pytest.mark.parametrize(
    ("answer", "slug"),
    [
        ([3, 1, 2, 0], "mask_zero_not_inf"),
        ([3, 1, 2, 1], "WrongAnswer"),  # unmasked
        ([-np.inf, -np.inf, -np.inf, 1], "mask_inverted"),
        ([3, 1, 2, -5], "WrongAnswer"),  # not small enough to vanish
        ([3 / np.sqrt(2), 1 / np.sqrt(2), 2 / np.sqrt(2), -np.inf], "scaled_when_not_asked"),
        ([3, 1, 2, None], "AnswerFormatError"),
        (None, "AnswerFormatError"),
    ],
)
def test_masked_scores_name_the_mistake(answer, slug):
    assert _slug(lambda: check_masked_scores(answer, Q, K, ROW, scale=False))[0] == slug


def test_masked_weights():
    right = _weights(SCORES)
    check_masked_weights(np.round(right, 3), Q, K, ROW, scale=False)
    mistakes = {
        "WrongAnswer": softmax(SCORES),
        "mask_zero_not_inf": softmax(np.where(ROW, SCORES, 0.0)),
        "mask_after_softmax": softmax(SCORES) * ROW,
        "scaled_when_not_asked": _weights(SCORES / np.sqrt(2)),
    }
    for slug, answer in mistakes.items():
        found, message = _slug(lambda a=answer: check_masked_weights(a, Q, K, ROW, scale=False))
        assert found == slug
        assert f"{right[0]:.3f}" not in message and f"{right[0]:.2f}" not in message


def test_masked_output_scaled():
    scores = dot_product_scores(Q, K, scale=True)
    right = _weights(scores) @ V
    check_masked_output(right, Q, K, V, ROW, scale=True)
    mistakes = {
        "forgot_scaling": _weights(SCORES) @ V,
        "mask_zero_not_inf": softmax(np.where(ROW, scores, 0.0)) @ V,
        "hard_attention": V[0],
        "WrongAnswer": attention(Q, K, V)[0],
    }
    for slug, answer in mistakes.items():
        found, message = _slug(lambda a=answer: check_masked_output(a, Q, K, V, ROW, scale=True))
        assert found == slug, (slug, message)
        assert f"{right[0]:.2f}" not in message


def test_hard_output():
    q = ISRO.query()
    check_hard_output([0, 4], q, ISRO.K, ISRO.V, scale=True)
    soft = attention(q, ISRO.K, ISRO.V)[0]
    found, message = _slug(lambda: check_hard_output(soft, q, ISRO.K, ISRO.V, scale=True))
    assert found == "WrongAnswer" and "soft blend" in message
    assert _slug(lambda: check_hard_output([1, 1], q, ISRO.K, ISRO.V, scale=True))[0] == (
        "keys_as_values"
    )
    found, message = _slug(lambda: check_hard_output(None, q, ISRO.K, ISRO.V, scale=True))
    assert found == "AnswerFormatError" and "placeholder" in message
    # X12: an unexplained answer gets a question back, not the recipe
    found, message = _slug(lambda: check_hard_output([9, 9], q, ISRO.K, ISRO.V, scale=True))
    assert found == "WrongAnswer" and message.endswith("?") and "give that" not in message
    assert "[0, 4]" not in message and "4.0" not in message


# --- what makes a score large: lengths and angle (lesson 2, issue 27 item 1) ---


def test_top_key_at_45_degrees_is_tiffin_not_the_parallel_it():
    # q = (1, 1) is parallel to the key of "it" (score 2) yet tiffin (2, 1) scores 3.
    check_top_key("tiffin", Q, K, TIFFIN.tokens)
    check_top_key(" Tiffin ", Q, K, TIFFIN.tokens)
    kind, message = _slug(lambda: check_top_key("it", Q, K, TIFFIN.tokens))
    assert kind == "dot_is_direction_only" and "length" in message and "|q| |k| cos" in message
    assert "(See lesson 02.)" in message
    kind, message = _slug(lambda: check_top_key("bag", Q, K, TIFFIN.tokens))
    assert kind == "WrongAnswer" and "length" not in message
    for bad in (None, "zebra", 2):
        assert _slug(lambda bad=bad: check_top_key(bad, Q, K, TIFFIN.tokens))[0] == (
            "AnswerFormatError"
        )


def test_top_key_messages_never_name_the_winner():
    for wrong in ("it", "bag", "big"):
        _, message = _slug(lambda wrong=wrong: check_top_key(wrong, Q, K, TIFFIN.tokens))
        assert "tiffin" not in message.split(":", 1)[1]


def test_a_parallel_key_beats_tiffin_only_when_it_is_long_enough():
    tiffin = K[0]
    for good in ([2, 2], [1.6, 1.6], np.array([10.0, 10.0])):
        check_parallel_key_beats(good, Q, tiffin)
    kind, message = _slug(lambda: check_parallel_key_beats([1, 1], Q, tiffin))  # it's own key: 2
    assert kind == "dot_is_direction_only" and "points the right way" in message
    _, message = _slug(lambda: check_parallel_key_beats([1.5, 1.5], Q, tiffin))  # exactly 3: a tie
    assert "points the right way" in message
    for crooked in ([3, 1], [-2, -2], [0, 0]):
        kind, message = _slug(lambda c=crooked: check_parallel_key_beats(c, Q, tiffin))
        assert kind == "WrongAnswer" and "points the right way" not in message


# --- lesson 6: predicting the pattern of a "copy the previous token" head ---------------------


def test_previous_token_pattern_prediction():
    from attention_lab.checks.exercises import check_previous_token_pattern

    check_previous_token_pattern([0, 0, 1, 2, 3, 4], 6)
    check_previous_token_pattern(np.array([0.0, 0.0, 1.0, 2.0]), 4)
    for wrong, says in [
        ([0, 1, 2, 3, 4, 5], "looks at itself"),
        ([0, 0, 0, 0, 0, 0], "first token"),
        ([0, 2, 3, 4, 5, 5], "later one"),
        ([0, 0, 0, 1, 2, 3], "not right yet"),
        ([0, 0, 1.5, 2, 3, 4], "whole number"),
    ]:
        with pytest.raises(checks.WrongAnswer, match=says):
            check_previous_token_pattern(wrong, 6)
    with pytest.raises(checks.AnswerFormatError):
        check_previous_token_pattern([0, 0, 1], 6)
