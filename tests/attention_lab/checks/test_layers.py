"""attention_lab.checks.layers and the registry's lesson-6 entries (attention_lab._layer_steps)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import checks, misconceptions, positional_encoding
from attention_lab._layer_steps import LayerCase, WrongLayer, compute_layer
from attention_lab.heads import TIFFIN_HEADS
from attention_lab.projections import LESSON_W_K, LESSON_W_Q, LESSON_W_V, tiffin_embeddings

X = tiffin_embeddings()
PE = positional_encoding(4, 2)
H1, H2 = TIFFIN_HEADS
LAYER_IDS = ("heads_share_projection", "unprojected_scores", "positions_after_attention",
             "one_matrix_no_transpose")  # fmt: skip
#: Softmax mistakes of lessons 2-3 that the layer checks also name (issue 38, X12).
ROW_IDS = ("softmax_wrong_axis", "attention_symmetric")


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _right(X, W_Q, W_K, W_V, P=None):
    x = X if P is None else X + P
    w = _softmax((x @ W_Q) @ (x @ W_K).T / np.sqrt(W_Q.shape[1]))
    return w, w @ (x @ W_V)


def test_the_four_lesson_6_entries_are_in_the_registry_with_layer_computations():
    for slug in LAYER_IDS:
        entry = misconceptions.get(slug)
        assert entry.layer_wrong and not entry.wrong
    kinds = {k: dict(misconceptions.layer_entries_for(k)) for k in ("queries", "weights", "output")}
    assert set(kinds["queries"]) == {"heads_share_projection", "positions_after_attention"}
    assert set(kinds["output"]) == set(LAYER_IDS) | set(ROW_IDS)
    assert set(kinds["weights"]) == set(LAYER_IDS) | set(ROW_IDS)
    assert misconceptions.layer_entries_for("scores") == []


@pytest.mark.parametrize("slug", LAYER_IDS + ROW_IDS)
def test_every_layer_wrong_computation_really_is_wrong(slug):
    case = LayerCase.of(X, H2.W_Q, H2.W_K, LESSON_W_V, positions=PE, other_W_Q=H1.W_Q)
    right = compute_layer(case)
    for wrong in misconceptions.get(slug).layer_wrong:
        steps = compute_layer(case, wrong)
        assert steps is not None and not np.allclose(steps.output, right.output)


def test_compute_layer_without_a_wrong_stage_is_the_right_head():
    case = LayerCase.of(X, LESSON_W_Q, LESSON_W_K, LESSON_W_V, positions=PE)
    w, out = _right(X, LESSON_W_Q, LESSON_W_K, LESSON_W_V, PE)
    steps = compute_layer(case)
    assert np.allclose(steps.weights, w) and np.allclose(steps.output, out)
    assert compute_layer(LayerCase.of(X, H1.W_Q, H1.W_K), WrongLayer(inputs=lambda c: None)) is None


def test_projection_check_accepts_right_and_names_a_transposed_matrix():
    checks.check_projection(X @ LESSON_W_Q, X, LESSON_W_Q.tolist(), name="Q")
    checks.check_projection((X @ LESSON_W_Q)[2].round(3), X[2], LESSON_W_Q, name="q_it")
    with pytest.raises(checks.WrongAnswer, match="by rows where it should read it by columns"):
        checks.check_projection(X @ LESSON_W_Q.T, X, LESSON_W_Q, name="Q")
    with pytest.raises(checks.WrongAnswer, match="not right yet"):
        checks.check_projection(X @ LESSON_W_Q + 1, X, LESSON_W_Q, name="Q")
    with pytest.raises(checks.AnswerFormatError, match="shape"):
        checks.check_projection([1, 2], X, LESSON_W_Q, name="Q")


def _raises(slug, fn, *args, **kwargs):
    with pytest.raises(checks.Misconception, match=rf"^\[{slug}\] "):
        fn(*args, **kwargs)


def test_head_weights_check_names_each_mistake():
    it = 2
    w2, _ = _right(X, H2.W_Q, H2.W_K, np.eye(2))
    kwargs = dict(row=it, other_W_Q=H1.W_Q, name="w")
    checks.check_head_weights(w2[it].round(3), X, H2.W_Q, H2.W_K, **kwargs)
    shared, _ = _right(X, H1.W_Q, H2.W_K, np.eye(2))
    _raises(
        "heads_share_projection", checks.check_head_weights, shared[it], X, H2.W_Q, H2.W_K, **kwargs
    )
    raw = _softmax(X @ X.T / np.sqrt(2))
    _raises("unprojected_scores", checks.check_head_weights, raw[it], X, H2.W_Q, H2.W_K, **kwargs)
    merged = _softmax(X @ (H2.W_Q @ H2.W_K) @ X.T / np.sqrt(2))
    _raises(
        "one_matrix_no_transpose",
        checks.check_head_weights,
        merged[it],
        X,
        H2.W_Q,
        H2.W_K,
        **kwargs,
    )
    with pytest.raises(checks.WrongAnswer):
        checks.check_head_weights([0.1, 0.2, 0.3, 0.4], X, H2.W_Q, H2.W_K, **kwargs)


def test_head_weights_check_names_a_column_softmax_and_a_column_read_for_a_row():
    """X12: the column softmax got the generic fallback; a column read as a row is symmetry."""
    it, kwargs = 2, dict(row=2, name="w")
    s = (X @ H2.W_Q) @ (X @ H2.W_K).T / np.sqrt(2)
    columns = np.exp(s) / np.exp(s).sum(axis=0, keepdims=True)
    _raises("softmax_wrong_axis", checks.check_head_weights, columns[it], X, H2.W_Q, H2.W_K,
            **kwargs)  # fmt: skip
    _raises("softmax_wrong_axis", checks.check_head_weights, columns, X, H2.W_Q, H2.W_K, name="w")
    rows = _softmax(s)
    _raises("attention_symmetric", checks.check_head_weights, rows[:, it], X, H2.W_Q, H2.W_K,
            **kwargs)  # fmt: skip


def test_the_fallback_hints_ask_and_give_no_recipe():
    """X12: a wrong answer no misconception explains gets a question, not the steps."""
    for call in (
        lambda: checks.check_head_weights([0.1, 0.2, 0.3, 0.4], X, H2.W_Q, H2.W_K, row=2),
        lambda: checks.check_head_output([9.0, 9.0], X, H2.W_Q, H2.W_K, LESSON_W_V, row=2),
        lambda: checks.check_projection([9.0, 9.0], X[2], LESSON_W_Q),
    ):
        with pytest.raises(checks.WrongAnswer) as info:
            call()
        message = str(info.value)
        assert message.rstrip().endswith("?") and "then" not in message, message


def test_whole_weight_matrix_and_its_transpose():
    w, _ = _right(X, LESSON_W_Q, LESSON_W_K, np.eye(2))
    checks.check_head_weights(w, X, LESSON_W_Q, LESSON_W_K, name="weights")
    with pytest.raises(checks.WrongAnswer, match="wrong places"):
        checks.check_head_weights(w.T, X, LESSON_W_Q, LESSON_W_K, name="weights")


def test_head_output_check_names_positions_added_late():
    _, out = _right(X, LESSON_W_Q, LESSON_W_K, LESSON_W_V, PE)
    args = (X, LESSON_W_Q, LESSON_W_K, LESSON_W_V)
    checks.check_head_output(out[2], *args, row=2, positions=PE, name="o")
    _, plain = _right(X, LESSON_W_Q, LESSON_W_K, LESSON_W_V)
    _raises("positions_after_attention", checks.check_head_output, plain[2] + PE[2], *args,
            row=2, positions=PE, name="o")  # fmt: skip
    _raises("positions_after_attention", checks.check_head_output, plain[2], *args,
            row=2, positions=PE, name="o")  # fmt: skip
    with pytest.raises(checks.AnswerFormatError, match="still None"):
        checks.check_head_output(None, *args, row=2, positions=PE, name="o")


def test_messages_never_show_a_number():
    _, plain = _right(X, LESSON_W_Q, LESSON_W_K, LESSON_W_V)
    try:
        checks.check_head_output(plain[2], X, LESSON_W_Q, LESSON_W_K, LESSON_W_V, row=2,
                                 positions=PE, name="o")  # fmt: skip
    except checks.Misconception as err:  # the lesson to reread is the one number allowed
        said = str(err).replace("(See lesson 06.)", "")
        assert not any(ch.isdigit() for ch in said), said


@pytest.mark.parametrize(
    ("answer", "fails"),
    [((4, 4), None), ([4, 4], None), (np.array([4, 4]), None), ((8, 2), "below each other"),
     ((4, 2), "one head's output"), ((2, 4), "not right yet"), ("4, 4", "shape"),
     ((4.5, 4), "whole numbers")],
)  # fmt: skip
def test_concat_shape(answer, fails):
    if fails is None:
        checks.check_concat_shape(answer, 4, 2, 2, name="s")
    else:
        with pytest.raises(checks.CheckFailure, match=fails):
            checks.check_concat_shape(answer, 4, 2, 2, name="s")
