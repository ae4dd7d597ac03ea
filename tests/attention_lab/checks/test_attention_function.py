"""The implement-it check of attention (attention_lab.checks.attention_function).

The checks' shared helpers and the student functions with one bug each are
tests/attention_lab/checks/test_checks.py's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_lab import checks
from attention_lab.checks import AnswerFormatError

from .test_checks import Proxy, _raises, global_max, looped_float32, naive, stable


def _attention(scale="sqrt", mask_mode="inf", axis=-1, blend="V", scores_with="K", hard=False):
    """An attention implementation with one switchable bug."""

    def fn(Q, K, V, mask=None):
        other = {"K": K, "V": V}[scores_with]
        scores = Q @ other.T
        scores = {"sqrt": scores / np.sqrt(K.shape[1]), "d": scores / K.shape[1], "none": scores}[
            scale
        ]
        if mask is not None and mask_mode == "inf":
            scores = np.where(mask, scores, -np.inf)
        elif mask is not None and mask_mode == "zero":
            scores = np.where(mask, scores, 0.0)
        elif mask is not None and mask_mode == "inverted":
            scores = np.where(mask, -np.inf, scores)
        weights = stable(scores, axis=axis)
        if mask is not None and mask_mode == "after":
            weights = weights * mask
        if hard:
            weights = np.eye(K.shape[0])[np.argmax(scores, axis=-1)]
        return weights @ {"K": K, "V": V}[blend], weights

    return fn


def attention_loops(Q, K, V, mask=None):
    output, weights = [], []
    for i, q in enumerate(np.asarray(Q).tolist()):
        row = [
            sum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(len(k))
            if mask is None or mask[i][j]
            else -math.inf
            for j, k in enumerate(np.asarray(K).tolist())
        ]
        w = looped_float32(np.array(row))
        weights.append(w)
        output.append(list(np.asarray(w) @ V))
    return output, weights


def test_correct_attention_implementations_pass():
    checks.check_attention_function(_attention())
    checks.check_attention_function(attention_loops)


@pytest.mark.parametrize(
    ("kwargs", "slug"),
    [
        ({"scale": "none"}, "forgot_scaling"),
        ({"scale": "d"}, "divided_by_dk"),
        ({"axis": 0}, "softmax_wrong_axis"),
        ({"blend": "K"}, "keys_as_values"),
        ({"scores_with": "V"}, "query_dot_values"),
        ({"hard": True}, "hard_attention"),
        ({"mask_mode": "after"}, "mask_after_softmax"),
        ({"mask_mode": "zero"}, "mask_zero_not_inf"),
        ({"mask_mode": "inverted"}, "mask_inverted"),
    ],
)
def test_attention_misconceptions_are_named(kwargs, slug):
    _raises(slug, checks.check_attention_function, _attention(**kwargs))


def test_attention_with_naive_softmax_overflows():
    def fn(Q, K, V, mask=None):
        scores = Q @ K.T / np.sqrt(K.shape[1])
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        weights = naive(scores)
        return weights @ V, weights

    _raises("naive_softmax_overflow", checks.check_attention_function, fn)


def test_attention_returning_weights_first_gets_a_format_message():
    def swapped(Q, K, V, mask=None):
        out, w = _attention()(Q, K, V, mask)
        return w, out

    message = _raises(AnswerFormatError, checks.check_attention_function, swapped)
    assert "(output, weights)" in message


@pytest.mark.parametrize(
    ("kwargs", "slug", "behaviours"),
    [
        ({"scale": "tokens"}, "divided_by_n_tokens", set(checks.ATTENTION_BEHAVIOURS)),
        ({"softmax": "whole"}, "softmax_whole_matrix", set(checks.ATTENTION_BEHAVIOURS)),
        ({"softmax": "global"}, "global_max_softmax", {"large"}),
        ({"softmax": "naive"}, "naive_softmax_overflow", {"large"}),
        ({"softmax": "uniform"}, "uniform_average", set(checks.ATTENTION_BEHAVIOURS)),
        ({"softmax": "none"}, "scores_not_weights", set(checks.ATTENTION_BEHAVIOURS)),
        ({"scale": "none"}, "forgot_scaling", set(checks.ATTENTION_BEHAVIOURS)),
        ({"mask_mode": "zero"}, "mask_zero_not_inf", {"masked"}),
    ],
)
def test_each_attention_mistake_costs_only_its_behaviours(kwargs, slug, behaviours):
    fn = _attention2(**kwargs)
    for behaviour in checks.ATTENTION_BEHAVIOURS:
        if behaviour in behaviours:
            _raises(slug, checks.check_attention_function, fn, behaviour=behaviour)
        else:
            checks.check_attention_function(fn, behaviour=behaviour)


def _attention2(scale="sqrt", softmax="rows", mask_mode="inf"):
    def fn(Q, K, V, mask=None):
        s = Q @ K.T
        s = {"sqrt": s / np.sqrt(K.shape[1]), "tokens": s / K.shape[0], "none": s}[scale]
        if mask is not None:
            s = np.where(mask, s, -np.inf if mask_mode == "inf" else 0.0)
        with np.errstate(all="ignore"):
            w = {
                "rows": lambda: stable(s),
                "whole": lambda: np.exp(s - s.max()) / np.exp(s - s.max()).sum(),
                "global": lambda: global_max(s),
                "naive": lambda: naive(s),
                "uniform": lambda: np.full(s.shape, 1 / s.shape[1]),
                "none": lambda: s,
            }[softmax]()
        return w @ V, w

    return fn


NOTEBOOK = """
import numpy as np


def stable_softmax(x, axis=-1):
    e = np.exp(x)  # naive: overflows on large scores
    return e / e.sum(axis=axis, keepdims=True)


def scaled_dot_product_attention(Q, K, V, mask=None):
    s = Q @ K.T / np.sqrt(K.shape[1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = stable_softmax(s, axis=-1)
    return w @ V, w
"""


def test_a_broken_softmax_is_charged_once():
    """The attention check runs the student's attention with a correct softmax in its place."""
    namespace = {}
    exec(NOTEBOOK, namespace)  # the notebook's globals, as in a kernel
    own = namespace["stable_softmax"]
    _raises("naive_softmax_overflow", checks.check_softmax_function, own, behaviour="large")
    checks.check_attention_function(namespace["scaled_dot_product_attention"])
    assert namespace["stable_softmax"] is own  # restored
    _raises(
        "naive_softmax_overflow",
        checks.check_attention_function,
        namespace["scaled_dot_product_attention"],
        behaviour="large",
        softmax_name=None,
    )


def test_a_library_softmax_is_not_charged_to_attention():
    namespace = {}
    exec(
        NOTEBOOK.replace(
            "    e = np.exp(x)", "    from scipy.special import softmax\n    e = np.exp(x)"
        ),
        namespace,
    )
    _raises("used_library", checks.check_softmax_function, namespace["stable_softmax"])
    checks.check_attention_function(namespace["scaled_dot_product_attention"])


def test_a_proxy_is_asked_to_substitute_the_softmax():
    proxy = Proxy(_attention())
    checks.check_attention_function(proxy, behaviour="example")
    assert proxy.substitutions and proxy.substitutions[0][0] == "stable_softmax"
    assert proxy.substitutions[0][1] == "attention_lab._steps.softmax"
