"""attention_lab.checks: each misconception is recognised from the buggy computation itself.

The buggy answers below are computed the wrong way from the question's inputs (never typed in),
so the tests prove that the check recognises the computation, whatever the numbers are.
"""

from __future__ import annotations

import contextlib
import math
import re
import sys

import numpy as np
import pytest

import attention_lab
from attention_lab import checks
from attention_lab.checks import AnswerFormatError, Misconception, WrongAnswer

# Chapter B's worked example and the query of "launched" (active recall Q3).
K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 4.0]])
Q_LAUNCHED = np.array([0.0, 1.0])
# A second, random question (d_k = 4) so no test depends on the chapter's numbers alone.
RNG = np.random.default_rng(7)
K4, V4, Q4 = RNG.normal(size=(5, 4)), RNG.normal(size=(5, 3)), RNG.normal(size=4)


def softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _raises(slug_or_cls, fn, *args, **kwargs) -> str:
    """Run a check expecting a failure; return its message (asserting the slug if given)."""
    expected = Misconception if isinstance(slug_or_cls, str) else slug_or_cls
    with pytest.raises(expected) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    if isinstance(slug_or_cls, str):
        assert message.startswith(f"[{slug_or_cls}] "), message
        assert info.value.id == slug_or_cls
    # No expected value, no hidden input: messages carry no decimal numbers at all.
    assert not re.search(r"\d\.\d", message), message
    return message


# --- hand-computed answers --------------------------------------------------------------------


def _question(which):
    return (Q_LAUNCHED, K, V) if which == "launched" else (Q4, K4, V4)


@pytest.mark.parametrize("which", ["launched", "random"])
def test_correct_hand_answers_pass_in_any_form(which):
    q, k, v = _question(which)
    s = k @ q / np.sqrt(k.shape[1])
    w = softmax(s)
    checks.check_scores(list(s), q, k, scale=True)
    checks.check_scores(np.round(s, 3), q, k, scale=True)
    checks.check_weights(tuple(np.round(w, 3)), q, k, scale=True)
    checks.check_weights(w.astype(np.float32), q, k, scale=True)
    checks.check_output((w @ v).tolist(), q, k, v, scale=True)
    checks.check_weights_format(np.round(w, 3), len(k))


@pytest.mark.parametrize("which", ["launched", "random"])
@pytest.mark.parametrize(
    ("slug", "kind", "compute"),
    [
        ("forgot_scaling", "scores", lambda q, k, v: k @ q),
        ("divided_by_dk", "scores", lambda q, k, v: k @ q / k.shape[1]),
        ("weights_not_scores", "scores", lambda q, k, v: softmax(k @ q / np.sqrt(k.shape[1]))),
        ("forgot_scaling", "weights", lambda q, k, v: softmax(k @ q)),
        ("divided_by_dk", "weights", lambda q, k, v: softmax(k @ q / k.shape[1])),
        ("hard_attention", "weights", lambda q, k, v: np.eye(len(k))[np.argmax(k @ q)]),
        ("weights_not_normalised", "weights", lambda q, k, v: np.exp(k @ q / np.sqrt(k.shape[1]))),
        ("scores_not_weights", "weights", lambda q, k, v: k @ q / np.sqrt(k.shape[1])),
        ("uniform_average", "weights", lambda q, k, v: np.ones(len(k)) / len(k)),
        ("hard_attention", "output", lambda q, k, v: v[np.argmax(k @ q)]),
        ("forgot_scaling", "output", lambda q, k, v: softmax(k @ q) @ v),
        ("divided_by_dk", "output", lambda q, k, v: softmax(k @ q / k.shape[1]) @ v),
        ("uniform_average", "output", lambda q, k, v: v.mean(axis=0)),
    ],
)
def test_hand_misconceptions_are_named(which, slug, kind, compute):
    q, k, v = _question(which)
    answer = compute(q, k, v)
    if kind == "scores":
        _raises(slug, checks.check_scores, answer, q, k, scale=True)
    elif kind == "weights":
        _raises(slug, checks.check_weights, answer, q, k, scale=True)
    else:
        _raises(slug, checks.check_output, answer, q, k, v, scale=True)


def test_sum_normalised_weights_are_named():
    s = K @ Q_LAUNCHED / np.sqrt(2)  # non-negative scores: dividing by the sum is defined
    _raises("sum_normalised", checks.check_weights, s / s.sum(), Q_LAUNCHED, K, scale=True)
    _raises("sum_normalised", checks.check_output, s / s.sum() @ V, Q_LAUNCHED, K, V, scale=True)


def test_keys_as_values_and_query_dot_values_are_named():
    w = softmax(K @ Q_LAUNCHED / np.sqrt(2))
    _raises("keys_as_values", checks.check_output, w @ K, Q_LAUNCHED, K, V, scale=True)
    w_qv = softmax(V @ Q_LAUNCHED / np.sqrt(2))
    _raises("query_dot_values", checks.check_output, w_qv @ V, Q_LAUNCHED, K, V, scale=True)


def test_scaling_when_the_question_says_not_to_is_named():
    query, keys = np.array([2.0, 0.0]), np.array([[1.0, 1.0], [0.0, 3.0]])
    checks.check_scores(keys @ query, query, keys, scale=False)
    _raises(
        "scaled_when_not_asked", checks.check_scores, keys @ query / np.sqrt(2), query, keys, False
    )


def test_weights_format_catches_weights_that_do_not_sum_to_one():
    _raises("weights_not_normalised", checks.check_weights_format, [0.5, 0.5, 0.5], 3)
    _raises("scores_not_weights", checks.check_weights_format, [-0.5, 1.0, 0.5], 3)


def test_unknown_wrong_answer_is_wrong_answer_without_slug():
    message = _raises(WrongAnswer, checks.check_output, [9.0, -9.0], Q_LAUNCHED, K, V, True)
    assert not message.startswith("[")


@pytest.mark.parametrize(
    ("answer", "expected_words"),
    [
        (None, "still None"),
        ("1.4, 2.0", "numbers, not text"),
        ([1.0, 2.0, 3.0], "shape (3,)"),
        ({"x": 1}, "numbers"),
        ([1.0, float("nan")], "nan"),
        ([[1.0, 2.0], [3.0, 4.0]], "shape (2, 2)"),
    ],
)
def test_wrong_format_says_what_was_expected(answer, expected_words):
    message = _raises(AnswerFormatError, checks.check_output, answer, Q_LAUNCHED, K, V, True)
    assert expected_words in message
    assert "2 numbers" in message


# --- choices, true/false, names ---------------------------------------------------------------


def test_choice_accepts_any_spelling_of_the_right_letter():
    for spelling in ("c", "C", " c ", "(c)", "c."):
        checks.check_choice(spelling, "abcd", correct="c")


def test_choice_names_the_misconception_of_a_wrong_option():
    message = _raises(
        "hard_attention",
        checks.check_choice,
        "b",
        "abcd",
        correct="c",
        misconceptions={"b": "hard_attention"},
        name="answer_q2",
    )
    assert "answer_q2" in message and "'c'" not in message
    plain = _raises(WrongAnswer, checks.check_choice, "a", "abcd", correct="c")
    assert "'c'" not in plain


@pytest.mark.parametrize("answer", [None, 3, "e", ["a"]])
def test_choice_format_errors(answer):
    message = _raises(AnswerFormatError, checks.check_choice, answer, "abcd", name="answer_q2")
    assert '"a", "b", "c", "d"' in message


def test_true_false():
    for spelling in (False, np.False_, "false", " False "):
        checks.check_true_false(spelling, correct=False)
    _raises(
        "order_aware_self_attention",
        checks.check_true_false,
        True,
        correct=False,
        misconception="order_aware_self_attention",
    )
    for bad in (None, 0, "no"):
        _raises(AnswerFormatError, checks.check_true_false, bad)


def test_names_any_order_and_spelling():
    correct = ["query", "key", "value"]
    checks.check_names(("Values", "KEY", "query vector"), 3, correct=correct)
    message = _raises(WrongAnswer, checks.check_names, ["query", "key", "weight"], 3, correct)
    assert "'weight'" in message and "value" not in message
    _raises(AnswerFormatError, checks.check_names, "query key value", 3)
    _raises(AnswerFormatError, checks.check_names, ["query", "key"], 3)


# --- implement-it exercises -------------------------------------------------------------------


def stable(x, axis=-1):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def looped_float32(x, axis=-1):
    moved = np.moveaxis(np.asarray(x, dtype=np.float32), axis, -1)
    out = np.empty_like(moved)
    for idx in np.ndindex(moved.shape[:-1]):
        row = [float(v) for v in moved[idx]]
        exps = [math.exp(v - max(row)) for v in row]
        out[idx] = [e / sum(exps) for e in exps]
    return np.moveaxis(out, -1, axis).tolist()


def naive(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def naive_math(x, axis=-1):
    return [math.exp(v) / sum(math.exp(u) for u in x) for v in x]


def first_axis(x, axis=-1):
    return stable(x, axis=0)


def by_sum(x, axis=-1):
    return x / x.sum(axis=axis, keepdims=True)


def exps_only(x, axis=-1):
    return np.exp(x - np.max(x, axis=axis, keepdims=True))


def test_correct_softmax_implementations_pass():
    checks.check_softmax_function(stable)
    checks.check_softmax_function(looped_float32)


@pytest.mark.parametrize(
    ("fn", "slug"),
    [
        (naive, "naive_softmax_overflow"),
        (first_axis, "softmax_wrong_axis"),
        (by_sum, "sum_normalised"),
        (exps_only, "weights_not_normalised"),
    ],
)
def test_softmax_misconceptions_are_named(fn, slug):
    _raises(slug, checks.check_softmax_function, fn)


def test_naive_softmax_with_math_exp_overflow_is_named():
    _raises("naive_softmax_overflow", checks.check_softmax_function, naive_math)


def test_visible_softmax_check_runs_only_the_public_example():
    checks.check_softmax_function(naive, visible=True)  # right on small scores


def test_checks_write_nothing_to_stderr(capfd):
    with pytest.raises(Misconception):
        checks.check_softmax_function(naive)  # np.exp overflows: numpy would warn

    def noisy(x, axis=-1):
        print("debug", file=sys.stderr)
        return stable(x, axis)

    checks.check_softmax_function(noisy)
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize(
    ("fn", "slug"),
    [
        (lambda n: np.triu(np.ones((n, n), dtype=bool)), "mask_wrong_triangle"),
        (lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1), "mask_no_diagonal"),
        (lambda n: ~np.tril(np.ones((n, n), dtype=bool)), "mask_convention"),
    ],
)
def test_causal_mask_misconceptions_are_named(fn, slug):
    _raises(slug, checks.check_causal_mask_function, fn)


def test_causal_mask_accepts_lists_of_zeros_and_ones():
    checks.check_causal_mask_function(lambda n: [[int(j <= i) for j in range(n)] for i in range(n)])
    additive = lambda n: np.where(np.tril(np.ones((n, n))) > 0, 0.0, -np.inf)  # noqa: E731
    _raises(AnswerFormatError, checks.check_causal_mask_function, additive)


# --- calling a library is detected, and the tripwires are removed afterwards -----------------

uses_module = lambda x, axis=-1: attention_lab.softmax(x, axis=axis)  # noqa: E731
bound_softmax = attention_lab.softmax


def uses_bound_name(x, axis=-1):
    return bound_softmax(x, axis=axis)


def uses_scipy(x, axis=-1):
    from scipy.special import softmax as sp_softmax

    return sp_softmax(x, axis=axis)


def uses_torch(x, axis=-1):
    import torch

    return torch.softmax(torch.tensor(x), dim=axis).numpy()


def helper_calls_library(x, axis=-1):
    return uses_bound_name(x, axis)


def make_closure():
    finished = attention_lab.core.softmax

    def inner(x, axis=-1):
        return finished(x, axis=axis)

    return inner


@pytest.mark.parametrize(
    ("fn", "named"),
    [
        (uses_module, "attention_lab"),
        (uses_bound_name, "attention_lab.core.softmax"),
        (uses_scipy, "scipy.special"),
        (uses_torch, "torch"),
        (helper_calls_library, "attention_lab.core.softmax"),
        (make_closure(), "attention_lab.core.softmax"),
    ],
)
def test_library_use_is_detected_statically(fn, named):
    message = _raises("used_library", checks.check_softmax_function, fn)
    assert named in message


def test_library_call_hidden_from_the_code_trips_at_run_time():
    sneaky = {"fn": None}

    def indirect(x, axis=-1):
        try:
            return sneaky["fn"](x, axis=axis)
        except Exception:  # a student's broad except must not swallow the tripwire
            return stable(x, axis)

    sneaky["fn"] = lambda x, axis: sys.modules["attention_lab"].softmax(x, axis=axis)
    modules_before = set(sys.modules)
    message = _raises("used_library", checks.check_softmax_function, indirect)
    assert "attention_lab.softmax" in message
    assert attention_lab.softmax is attention_lab.core.softmax  # restored
    assert not {"scipy", "scipy.special", "torch"} & (set(sys.modules) - modules_before)


def test_student_exceptions_become_messages_not_tracebacks():
    def unfinished(x, axis=-1):
        raise NotImplementedError()

    message = _raises(WrongAnswer, checks.check_softmax_function, unfinished)
    assert "NotImplementedError" in message

    def broken(x, axis=-1):
        return x.no_such_method()

    assert "AttributeError" in _raises(WrongAnswer, checks.check_softmax_function, broken)
    _raises(AnswerFormatError, checks.check_softmax_function, 42)
    _raises(AnswerFormatError, checks.check_softmax_function, lambda x, axis=-1: None)


# --- the contract with the teacher's report ---------------------------------------------------


def test_every_slug_is_snake_case_and_has_a_lesson():
    for slug, title in checks.MISCONCEPTIONS.items():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", slug)
        assert title
        err = Misconception(slug, "x")
        assert isinstance(err, AssertionError)
        assert str(err).startswith(f"[{slug}] x: ")
    with pytest.raises(KeyError):
        Misconception("not_a_slug")


def test_failures_render_as_one_line_in_ipython():
    err = Misconception("hard_attention", "launched_output")
    assert err._render_traceback_() == [f"Misconception: {err}"]
    assert WrongAnswer("no")._render_traceback_() == ["WrongAnswer: no"]


# --- issue 15: more misconceptions, more correct forms, behaviours, proxies -------------------

ISRO_Q = K  # chapter B: every token's query equals its key


@pytest.mark.parametrize(
    ("slug", "kind", "compute"),
    [
        ("divided_by_n_tokens", "scores", lambda q, k, v: k @ q / len(k)),
        ("divided_by_n_tokens", "output", lambda q, k, v: softmax(k @ q / len(k)) @ v),
        ("query_dot_values", "scores", lambda q, k, v: v @ q / np.sqrt(2)),
        # the full self-attention matrix, softmax down the columns / over everything, row "launched"
        ("softmax_wrong_axis", "weights", lambda q, k, v: softmax(k @ k.T / np.sqrt(2), 0)[1]),
        ("softmax_wrong_axis", "output", lambda q, k, v: softmax(k @ k.T / np.sqrt(2), 0)[1] @ v),
        (
            "softmax_whole_matrix",
            "weights",
            lambda q, k, v: (np.exp(k @ k.T / np.sqrt(2)) / np.exp(k @ k.T / np.sqrt(2)).sum())[1],
        ),
        # k2 and k3 tie for "launched": hard attention through either tie is named
        ("hard_attention", "output", lambda q, k, v: v[1]),
        ("hard_attention", "output", lambda q, k, v: v[2]),
        ("hard_attention", "weights", lambda q, k, v: np.array([0.0, 0.0, 1.0])),
        ("scores_not_weights", "output", lambda q, k, v: (k @ q / np.sqrt(2)) @ v),
    ],
)
def test_more_hand_misconceptions_are_named(slug, kind, compute):
    answer = compute(Q_LAUNCHED, K, V)
    context = {"queries": ISRO_Q}
    if kind == "scores":
        _raises(slug, checks.check_scores, answer, Q_LAUNCHED, K, True, values=V, **context)
    elif kind == "weights":
        _raises(slug, checks.check_weights, answer, Q_LAUNCHED, K, True, values=V, **context)
    else:
        _raises(slug, checks.check_output, answer, Q_LAUNCHED, K, V, True, **context)


def test_the_same_numbers_as_a_row_or_a_column_are_accepted():
    s = K @ Q_LAUNCHED / np.sqrt(2)
    checks.check_scores(s[None, :], Q_LAUNCHED, K, True)
    checks.check_scores(s[:, None], Q_LAUNCHED, K, True)
    checks.check_numbers(s[None, :], (3,))
    checks.check_output(softmax(s)[None, :] @ V, Q_LAUNCHED, K, V, True)
    _raises(AnswerFormatError, checks.check_scores, np.tile(s, (2, 1)), Q_LAUNCHED, K, True)


def test_hand_checks_compare_with_their_own_data_only():
    """What a check compares with comes from its arguments: nothing of the caller's leaks in."""
    s = K @ Q_LAUNCHED / np.sqrt(2)
    out = softmax(s) @ V
    checks.check_output(out, [0, 1], K.tolist(), V.tolist(), True, queries=ISRO_Q.tolist())
    wrong_v = V.copy()
    wrong_v[2, 1] = 5
    _raises(WrongAnswer, checks.check_output, softmax(s) @ wrong_v, [0, 1], K, V, True)


def global_max(x, axis=-1):
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=axis, keepdims=True)


def clipped(x, axis=-1):
    e = np.exp(np.clip(x, -500, 500))
    return e / e.sum(axis=axis, keepdims=True)


def capped(x, axis=-1):
    e = np.exp(np.minimum(x, 700))
    return e / e.sum(axis=axis, keepdims=True)


def whole_sum(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum()


def one_hot(x, axis=-1):
    return (x == np.max(x, axis=axis, keepdims=True)).astype(float)


@pytest.mark.parametrize(
    ("fn", "slug", "behaviour"),
    [
        (naive, "naive_softmax_overflow", "large"),
        (first_axis, "softmax_wrong_axis", "shapes"),
        (global_max, "global_max_softmax", "shapes"),
        (clipped, "clipped_softmax", "large"),
        (capped, "clipped_softmax", "large"),
        (whole_sum, "softmax_whole_matrix", "shapes"),
        (one_hot, "hard_attention", "example"),
        (by_sum, "sum_normalised", "example"),
    ],
)
def test_each_softmax_mistake_costs_only_its_behaviours(fn, slug, behaviour):
    _raises(slug, checks.check_softmax_function, fn, behaviour=behaviour)
    _raises(slug, checks.check_softmax_function, fn)  # behaviour=None runs every group
    if behaviour != "example":
        checks.check_softmax_function(fn, behaviour="example")
    for other in set(checks.SOFTMAX_BEHAVIOURS) - {behaviour, "example"}:
        if fn not in (by_sum, one_hot):
            checks.check_softmax_function(fn, behaviour=other)


def test_visible_behaviour_without_a_public_case_is_a_format_check():
    checks.check_softmax_function(naive, visible=True, behaviour="large")
    _raises(
        "used_library", checks.check_softmax_function, uses_scipy, visible=True, behaviour="large"
    )
    with pytest.raises(ValueError, match="behaviour"):
        checks.check_softmax_function(stable, behaviour="everything")


class Proxy:
    """What the grader hands a check for a student function in another process (issue 13)."""

    def __init__(self, fn, library=None):
        self._fn, self.attention_library_use = fn, library
        self.substitutions = []

    def __call__(self, *args, **kwargs):
        try:
            return self._fn(*args, **kwargs)
        except Exception as err:
            raise RuntimeError(f"{type(err).__name__}: {err}") from None

    @contextlib.contextmanager
    def substituting(self, name, reference_path):
        self.substitutions.append((name, reference_path))
        yield


def test_proxies_are_checked_by_what_they_return_and_report():
    assert not hasattr(Proxy(stable), "__code__")
    checks.check_softmax_function(Proxy(stable))
    _raises("softmax_wrong_axis", checks.check_softmax_function, Proxy(first_axis))
    message = _raises(
        "used_library", checks.check_softmax_function, Proxy(stable, "scipy.special.softmax")
    )
    assert "scipy.special.softmax" in message
    # the grader's finding is honoured over this process's own reading of the code
    _raises("used_library", checks.check_softmax_function, names_a_library)
    checks.check_softmax_function(Proxy(names_a_library, None))


def names_a_library(x, axis=-1):
    if x is None:  # never true: the name is there, the call never happens
        return attention_lab.softmax(x)
    return stable(x, axis)


def test_proxy_errors_keep_their_meaning():
    _raises("naive_softmax_overflow", checks.check_softmax_function, Proxy(naive_math))

    def unfinished(x, axis=-1):
        raise NotImplementedError()

    assert "NotImplementedError" in _raises(
        WrongAnswer, checks.check_softmax_function, Proxy(unfinished)
    )
    message = _raises(
        WrongAnswer, checks.check_softmax_function, Proxy(lambda x, axis=-1: x.nope())
    )
    assert "AttributeError: " in message and "RuntimeError" not in message


@pytest.mark.parametrize(
    "names",
    [
        ["Query (Q)", "Key (K)", "Value (V)"],
        ["Q", "K", "V"],
        ["the query vector", "keys", "Values."],
        ("QUERIES", "key-vector", "value vectors"),
    ],
)
def test_names_accept_reasonable_forms(names):
    checks.check_names(names, 3, correct=["query", "key", "value"])


def test_a_chosen_distractor_shows_its_registry_idea():
    from attention_lab import misconceptions

    message = _raises(
        "divided_by_dk",
        checks.check_choice,
        "b",
        "abcd",
        correct="a",
        misconceptions={"b": "divided_by_dk"},
        name="answer_q2",
    )
    assert misconceptions.get("divided_by_dk").idea in message


@pytest.mark.parametrize(
    ("answer", "options"),
    [
        ("Option B", "abcd"),
        ("b) Raw scores can be negative", "abcd"),
        ("answer: b", "abcd"),
        ("(B).", "abcd"),
        ("k3 because it points the same way", ["k1", "k2", "k3"]),
    ],
)
def test_choice_accepts_a_label_with_words_around_it(answer, options):
    correct = "k3" if "k3" in options else "b"
    checks.check_choice(answer, options, correct=correct)


def test_choice_does_not_read_the_word_a_as_option_a():
    _raises(AnswerFormatError, checks.check_choice, "a rule the programmers wrote", "abcd")


@pytest.mark.parametrize("spelling", ["False.", ' "false" ', "FALSE!"])
def test_true_false_ignores_punctuation_and_quotes(spelling):
    checks.check_true_false(spelling, correct=False)


def test_the_checks_package_ships_in_a_regular_install():
    """``pyproject.toml`` lists packages explicitly: a subpackage left out is missing from a wheel."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    listed = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    subpackages = {
        ".".join(p.parent.relative_to(root).parts)
        for p in (root / "attention_lab").rglob("__init__.py")
    }
    assert subpackages <= set(listed), sorted(subpackages - set(listed))


@pytest.mark.parametrize(
    ("raised", "named"),
    [
        ("LibraryHidden: attention_lab is not available while an implement-it exercise is "
         "graded: write it yourself (attention_lab.core.softmax)", "attention_lab"),
        ("ModuleNotFoundError: No module named 'scipy'", "scipy"),
    ],
)  # fmt: skip
def test_a_library_missing_where_the_function_is_graded_is_the_used_library_misconception(
    raised, named
):
    """In the graded kernel of an implement-it notebook the library is a stub (and scipy or
    torch are not installed): the error a student's function raises there names the misconception.
    """

    class Proxy:
        attention_library_use = None

        def __call__(self, *args, **kwargs):
            raise RuntimeError(raised)

    message = _raises("used_library", checks.check_softmax_function, Proxy())
    assert named in message


# --- issue 27: the three misconceptions the held-out run left unnamed, and consistent names ---


def test_splitting_a_tie_in_hard_attention_is_hard_attention():
    """Scores (1, 2, 2): the tie split (0, 1/2, 1/2) is not what dividing by the sum gives."""
    q, k = np.array([1.0, 1.0]), np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    s = k @ q
    split = (s == s.max()) / np.sum(s == s.max())
    _raises("hard_attention", checks.check_weights, split, q, k, scale=False)
    _raises("hard_attention", checks.check_output, split @ v, q, k, v, scale=False)

    def tie_split(Q, K, V, mask=None):  # row 3 of the ISRO example has no tie, rows 1-2 do
        w = stable(Q @ K.T / np.sqrt(K.shape[1]))
        top = w == w.max(axis=-1, keepdims=True)
        w = top / top.sum(axis=-1, keepdims=True)
        return w @ V, w

    _raises("hard_attention", checks.check_attention_function, tie_split, behaviour="example")


def test_minus_inf_turned_into_zero_is_the_masking_mistake_in_softmax_too():
    def zeroed(x, axis=-1):
        x = np.where(np.isneginf(x), 0.0, x)  # "to avoid nan"
        return stable(x, axis=axis)

    _raises("mask_zero_not_inf", checks.check_softmax_function, zeroed, behaviour="shapes")
    checks.check_softmax_function(zeroed, behaviour="example")


@pytest.mark.parametrize("limit", [300.0, 30.0])
def test_a_one_sided_cap_on_large_scores_is_named_wherever_it_shows(limit):
    def capped_at(x, axis=-1):
        e = np.exp(np.minimum(x, limit))
        return e / e.sum(axis=axis, keepdims=True)

    def attention(Q, K, V, mask=None):
        w = capped_at(Q @ K.T / np.sqrt(K.shape[1]))
        return w @ V, w

    _raises("clipped_softmax", checks.check_softmax_function, capped_at, behaviour="large")
    _raises(
        "clipped_softmax",
        checks.check_attention_function,
        attention,
        behaviour="large",
        softmax_name=None,
    )


def test_dividing_by_the_square_root_of_the_token_count_has_one_name_on_every_step():
    s = K @ Q_LAUNCHED / np.sqrt(len(K))
    w = softmax(s)
    for check, answer, args in (
        (checks.check_scores, s, (Q_LAUNCHED, K)),
        (checks.check_weights, w, (Q_LAUNCHED, K)),
        (checks.check_output, w @ V, (Q_LAUNCHED, K, V)),
    ):
        _raises("divided_by_n_tokens", check, answer, *args, scale=True, queries=K)


def test_a_scaled_softmax_on_an_unscaled_weights_question_is_not_told_to_stop_at_products():
    """Lesson 02, your turn 2: the diagnosis fits a question about weights."""
    q, k = np.array([1.0, -1.0]), np.array([[2.0, 1.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    message = _raises(
        "scaled_when_not_asked", checks.check_weights, softmax(k @ q / np.sqrt(2)), q, k, False
    )
    assert "add up" not in message and "stop there" not in message
    assert "Hint:" in message and "(See lesson" in message
