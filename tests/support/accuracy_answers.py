"""Answers for the accuracy suite: correct variants and registry misconceptions per question.

Every autograded question of the five assignments (the chapters' three, lesson 6's and lesson 7's) has at least five correct answers written
the ways students write them (lists, tuples, float32, transposed products, pre-scaled keys,
extra prints and helper variables, loops) and one wrong answer per registry misconception that
applies to it, each computed the buggy way in code (never typed-in results). A wrong answer says
which test cells must lose their points and which misconception each must name (None: wrong
without a known misconception); every other test cell must keep its points.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Wrong:
    """A wrong answer: its code, and test cell -> expected misconception id (or None)."""

    code: str
    expect: dict[str, str | None]


@dataclass(frozen=True)
class Question:
    """One autograded question: its answer cell, its test cells and the answers to try."""

    answer_id: str
    cells: tuple[str, ...]
    correct: list[str]
    wrong: list[Wrong] = field(default_factory=list)


def _all(cells, slug):
    return dict.fromkeys(cells, slug)


def _choice(answer_id, cell, var, right, wrong: dict[str, str | None]) -> Question:
    spellings = [
        right,
        right.upper(),
        f" {right} ",
        f"({right})",
        f"{right}.",
        f"Option {right.upper()}",
    ]
    return Question(
        answer_id,
        (cell,),
        [f"{var} = {s!r}" for s in spellings],
        [Wrong(f"{var} = {letter!r}", {cell: slug}) for letter, slug in wrong.items()],
    )


# ---------------------------------------------------------------------------------------------
# intro_attention
# ---------------------------------------------------------------------------------------------

Q1 = ("dot_products_query_2_0",)
INTRO = [
    Question(
        "answer_q1",
        Q1,
        [
            "q1_scores = [2, 0]",
            "q1_scores = np.array([2.0, 0.0], dtype=np.float32)",
            "q1_scores = tuple(np.array([[1, 1], [0, 3]]) @ np.array([2, 0]))",
            "q = np.array([2, 0])\nkeys = np.array([[1, 1], [0, 3]])\nprint(q @ keys.T)\n"
            "q1_scores = q[None, :] @ keys.T",
            "q1_scores = [2 * 1 + 0 * 1, 2 * 0 + 0 * 3]\nprint('scores:', q1_scores)",
            "q1_scores = (np.array([[1, 1], [0, 3]]) @ np.array([[2], [0]])).tolist()",
        ],
        [
            Wrong(
                "q1_scores = np.array([[1, 1], [0, 3]]) @ np.array([2, 0]) / np.sqrt(2)",
                {Q1[0]: "scaled_when_not_asked"},
            ),
            Wrong(
                "s = np.array([[1, 1], [0, 3]]) @ np.array([2, 0])\nq1_scores = np.exp(s) / np.exp(s).sum()",
                {Q1[0]: "weights_not_scores"},
            ),
            Wrong(
                "q1_scores = np.array([[1, 1], [0, 3]]) @ np.array([2, 0]) / 2",
                {Q1[0]: "divided_by_dk"},
            ),
            Wrong("q1_scores = [2, 3]", {Q1[0]: None}),
        ],
    ),
    _choice(
        "answer_q2",
        "why_exponentiate_choice",
        "answer_q2",
        "b",
        {"a": "normalising_step_confused", "c": "hard_attention", "d": "sum_normalised"},
    ),
    _choice(
        "answer_q3",
        "bag_weight_source_choice",
        "answer_q3",
        "d",
        {
            "a": "importance_is_programmed",
            "b": "order_aware_self_attention",
            "c": "values_change_weights",
        },
    ),  # fmt: skip
    Question(
        "answer_q4",
        ("word_order_true_false",),
        [
            "answer_q4 = False",
            'answer_q4 = "false"',
            "answer_q4 = np.False_",
            'answer_q4 = " False "',
            "answer_q4 = 1 > 2",
        ],
        [
            Wrong("answer_q4 = True", {"word_order_true_false": "order_aware_self_attention"}),
            Wrong('answer_q4 = "TRUE"', {"word_order_true_false": "order_aware_self_attention"}),
        ],
    ),  # fmt: skip
    Question(
        "answer_q5",
        ("three_vectors_named",),
        [
            'answer_q5 = ["Query", "Key", "Value"]',
            'answer_q5 = ("values", "Keys", "query vector")',
            'answer_q5 = ["Query (Q)", "Key (K)", "Value (V)"]',
            'answer_q5 = ["Q", "K", "V"]',
            'answer_q5 = ["the query vector", "the key vector", "the value vector"]',
            'answer_q5 = ["QUERIES", "keys", "Values."]',
        ],
        [
            Wrong('answer_q5 = ["query", "key", "weight"]', {"three_vectors_named": None}),
            Wrong('answer_q5 = ["query", "score", "value"]', {"three_vectors_named": None}),
        ],
    ),
]

# ---------------------------------------------------------------------------------------------
# focus_in_the_noise
# ---------------------------------------------------------------------------------------------

Q3 = ("launched_scores", "launched_weights_sum_to_one", "launched_output")


def _q3(scores: str, weights: str = "", output: str = "", before: str = "") -> str:
    """A Q3 answer from three expressions (over K, V, q_launched, s = the scores, w)."""
    weights = weights or "np.exp(s) / np.exp(s).sum()"
    output = output or "w @ V"
    return (
        f"{before}s = {scores}\nw = {weights}\n"
        f"launched_scores = s\nlaunched_weights = w\nlaunched_output = {output}"
    )


SCALED = "K @ q_launched / np.sqrt(2)"
ALL_Q = "(Q @ K.T / np.sqrt(2))"  # every query of the student's variant, one row each

FOCUS = [
    Question(
        "answer_q1",
        ("highest_key_choice",),
        [
            'answer_q1 = "k3"',
            'answer_q1 = "K3"',
            'answer_q1 = " k3 "',
            'answer_q1 = "(k3)"',
            'answer_q1 = "k3."',
        ],
        [
            Wrong('answer_q1 = "k1"', {"highest_key_choice": None}),
            Wrong('answer_q1 = "k2"', {"highest_key_choice": None}),
        ],
    ),  # fmt: skip
    _choice(
        "answer_q2",
        "scaling_choice",
        "answer_q2",
        "a",
        {"b": "divided_by_dk", "c": "softmax_only_ranks", "d": "normalising_step_confused"},
    ),
    Question(
        "answer_q3",
        Q3,
        [
            _q3(SCALED),
            # worked by hand to 3 decimals, on the student's own numbers
            "s = K @ q_launched / np.sqrt(2)\nlaunched_scores = np.round(s, 3).tolist()\n"
            "launched_weights = np.round(np.exp(s) / np.exp(s).sum(), 3).tolist()\n"
            "launched_output = tuple(np.round(np.exp(s) / np.exp(s).sum() @ V, 3))",
            # pre-scaled keys (the chapter-B student of issue 15)
            _q3("K @ q_launched", before="K = K / np.sqrt(K.shape[1])\n"),
            _q3("q_launched / np.sqrt(2) @ K.T", output="(w[None, :] @ V).astype(np.float32)"),
            _q3(
                "q_launched[None, :] @ K.T / np.sqrt(2)",
                weights="np.exp(s) / np.sum(np.exp(s), axis=1, keepdims=True)",
            ),
            _q3(
                "np.array([sum(a * b for a, b in zip(q_launched, k)) / math.sqrt(2) for k in K])",
                weights="np.array([math.exp(x) for x in s]) / sum(math.exp(x) for x in s)",
                output="tuple(sum(w[i] * V[i][c] for i in range(3)) for c in range(2))",
                before="import math\nprint('keys', K)\nhelper = 42\n",
            ),
            _q3(
                SCALED,
                weights="(np.exp(s) / np.exp(s).sum()).astype(np.float32)",
                output="list(w @ V)",
            ),  # fmt: skip
            # a pre-scaled query
            _q3("K @ q", before="q = q_launched / np.sqrt(K.shape[1])\n"),
            # right answers, then the example's names reassigned: the tests do not read them
            _q3(SCALED) + "\nK, V, q_launched = None, 0, [9, 9]",
        ],
        [
            Wrong(_q3("K @ q_launched"), _all(Q3, "forgot_scaling")),
            Wrong(_q3("K @ q_launched / 2"), _all(Q3, "divided_by_dk")),
            Wrong(_q3("K @ q_launched / len(K)"), _all(Q3, "divided_by_n_tokens")),
            # issue 27: the square root of the token count, named the same on all three steps
            Wrong(_q3("K @ q_launched / np.sqrt(len(K))"), _all(Q3, "divided_by_n_tokens")),
            Wrong(_q3("V @ q_launched / np.sqrt(2)"), _all(Q3, "query_dot_values")),
            Wrong(
                _q3(SCALED) + "\nlaunched_scores = launched_weights",
                {"launched_scores": "weights_not_scores"},
            ),
            Wrong(_q3(SCALED, output="V[np.argmax(s)]"), {"launched_output": "hard_attention"}),
            Wrong(  # argmax from the other end (the variants have no ties: the same key)
                _q3(SCALED, output="V[len(s) - 1 - np.argmax(s[::-1])]"),
                {"launched_output": "hard_attention"},
            ),
            Wrong(
                _q3(SCALED, weights="np.eye(3)[np.argmax(s)]"),
                {
                    "launched_weights_sum_to_one": "hard_attention",
                    "launched_output": "hard_attention",
                },
            ),  # fmt: skip
            Wrong(
                _q3(SCALED, weights=f"(np.exp({ALL_Q}) / np.exp({ALL_Q}).sum(axis=0))[1]"),
                {
                    "launched_weights_sum_to_one": "softmax_wrong_axis",
                    "launched_output": "softmax_wrong_axis",
                },
            ),  # fmt: skip
            Wrong(
                _q3(SCALED, weights=f"(np.exp({ALL_Q}) / np.exp({ALL_Q}).sum())[1]"),
                {
                    "launched_weights_sum_to_one": "softmax_whole_matrix",
                    "launched_output": "softmax_whole_matrix",
                },
            ),  # fmt: skip
            Wrong(
                _q3(SCALED, weights="s / s.sum()"),
                {
                    "launched_weights_sum_to_one": "sum_normalised",
                    "launched_output": "sum_normalised",
                },
            ),  # fmt: skip
            Wrong(
                _q3(SCALED, weights="s"),
                {
                    "launched_weights_sum_to_one": "scores_not_weights",
                    "launched_output": "scores_not_weights",
                },
            ),  # fmt: skip
            Wrong(
                _q3(SCALED, weights="np.exp(s)"),
                {
                    "launched_weights_sum_to_one": "weights_not_normalised",
                    "launched_output": "weights_not_normalised",
                },
            ),  # fmt: skip
            Wrong(_q3(SCALED, output="w @ K"), {"launched_output": "keys_as_values"}),
            Wrong(_q3(SCALED, output="V.mean(axis=0)"), {"launched_output": "uniform_average"}),
            Wrong(  # retyped V wrongly: the hidden test's own data still says it is wrong
                _q3(SCALED, before="V = np.array([[1, 2], [3, 0], [0, 5]])\n"),
                {"launched_output": None},
            ),
        ],
    ),
    Question(
        "answer_q4",
        ("identical_keys_true_false",),
        [
            "answer_q4 = True",
            "answer_q4 = np.True_",
            'answer_q4 = "true"',
            'answer_q4 = "True"',
            "answer_q4 = 2 > 1",
        ],
        [Wrong("answer_q4 = False", {"identical_keys_true_false": "values_change_weights"})],
    ),  # fmt: skip
]

# ---------------------------------------------------------------------------------------------
# practice_implement
# ---------------------------------------------------------------------------------------------

SM = ("stable_softmax_example", "stable_softmax_large_scores", "stable_softmax_shapes_and_masks")
AT = ("attention_example", "attention_random_shapes", "attention_masked_rows",
      "attention_large_scores")  # fmt: skip
CM = ("causal_mask_example", "causal_mask_sizes")


def _softmax(body: str, head: str = "") -> str:
    return f"{head}def stable_softmax(x, axis=-1):\n    x = np.asarray(x, dtype=float)\n{body}\n"


def _ret(expr: str) -> str:
    return f"    e = {expr}\n    return e / e.sum(axis=axis, keepdims=True)"


STABLE = _ret("np.exp(x - x.max(axis=axis, keepdims=True))")

SOFTMAX = Question(
    "answer_stable_softmax",
    SM,
    [
        _softmax(STABLE),
        '''
import math


def stable_softmax(x, axis=-1):
    """Row by row with Python floats, stored as float32."""
    moved = np.moveaxis(np.asarray(x, dtype=np.float32), axis, -1)
    out = np.empty_like(moved)
    for idx in np.ndindex(moved.shape[:-1]):
        row = [float(v) for v in moved[idx]]
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        out[idx] = [e / sum(exps) for e in exps]
    return np.moveaxis(out, -1, axis)
''',
        _softmax(
            "    m = np.max(x, axis=axis, keepdims=True)\n"
            "    lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))\n"
            "    return np.exp(x - lse).tolist()"
        ),
        _softmax(
            "    shifted = _shift(x, axis)\n    print('softmax of', x.shape)\n"
            "    e = np.exp(shifted)\n    return e / np.sum(e, axis=axis, keepdims=True)",
            head="def _shift(x, axis):\n    return x - np.amax(x, axis=axis, keepdims=True)\n\n\n",
        ),
        _softmax(
            "    x = np.swapaxes(x, axis, -1)\n    e = np.exp(x - x.max(-1)[..., None])\n"
            "    return np.swapaxes(e / e.sum(-1)[..., None], axis, -1)"
        ),
    ],
    [
        Wrong(_softmax(_ret("np.exp(x)")), {SM[1]: "naive_softmax_overflow"}),
        Wrong(
            "import math\n\n\ndef stable_softmax(x, axis=-1):\n"
            "    return [math.exp(v) / sum(math.exp(u) for u in x) for v in x]\n",
            {SM[1]: "naive_softmax_overflow", SM[2]: None},
        ),
        Wrong(_softmax(_ret("np.exp(x - np.max(x))")), {SM[2]: "global_max_softmax"}),
        Wrong(_softmax(_ret("np.exp(np.clip(x, -500, 500))")), {SM[1]: "clipped_softmax"}),
        Wrong(_softmax(_ret("np.exp(np.minimum(x, 700))")), {SM[1]: "clipped_softmax"}),
        # issue 27: a one-sided cap at a limit of the student's own; -inf turned into 0
        Wrong(
            _softmax(_ret("np.exp(np.minimum(x, 250))")),
            {SM[1]: "clipped_softmax", SM[2]: "clipped_softmax"},
        ),
        Wrong(
            _softmax("    x = np.nan_to_num(x, neginf=0.0)  # no nan please\n" + STABLE),
            {SM[2]: "mask_zero_not_inf"},
        ),
        Wrong(
            _softmax(
                "    e = np.exp(x - x.max(axis=0, keepdims=True))\n"
                "    return e / e.sum(axis=0, keepdims=True)"
            ),
            {SM[2]: "softmax_wrong_axis"},
        ),  # fmt: skip
        Wrong(
            _softmax("    e = np.exp(x - x.max(axis=axis, keepdims=True))\n    return e / e.sum()"),
            {SM[2]: "softmax_whole_matrix"},
        ),
        Wrong(
            _softmax("    return x / x.sum(axis=axis, keepdims=True)"), _all(SM, "sum_normalised")
        ),
        Wrong(
            _softmax("    return (x == x.max(axis=axis, keepdims=True)).astype(float)"),
            _all(SM, "hard_attention"),
        ),
        Wrong(
            _softmax("    return np.exp(x - x.max(axis=axis, keepdims=True))"),
            _all(SM, "weights_not_normalised"),
        ),
        Wrong(
            "def stable_softmax(x, axis=-1):\n    from scipy.special import softmax\n\n"
            "    return softmax(x, axis=axis)\n",
            _all(SM, "used_library"),
        ),
        Wrong(
            "import attention_lab\n\n\ndef stable_softmax(x, axis=-1):\n"
            "    return attention_lab.softmax(x, axis=axis)\n",
            _all(SM, "used_library"),
        ),
    ],
)


def _attention(
    scores="Q @ K.T / np.sqrt(K.shape[1])",
    mask="np.where(mask, s, -np.inf)",
    weights="stable_softmax(s, axis=-1)",
    output="w @ V",
    after="",
) -> str:
    """An attention answer with one part swapped for a buggy (or just different) one."""
    return (
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
        f"    s = {scores}\n"
        f"    if mask is not None:\n        s = {mask}\n"
        f"    w = {weights}\n{after}"
        f"    return {output}, w\n"
    )  # fmt: skip


ROWS = "np.exp(s - s.max(axis=-1, keepdims=True))"
INLINE = f"{ROWS} / {ROWS}.sum(axis=-1, keepdims=True)"

ATTENTION = Question(
    "answer_attention",
    AT,
    [
        _attention(),
        '''
import math


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Loops over lists, returns lists."""
    Q, K, V = np.asarray(Q).tolist(), np.asarray(K).tolist(), np.asarray(V).tolist()
    output, weights = [], []
    for i, q in enumerate(Q):
        scores = []
        for j, k in enumerate(K):
            s = sum(a * b for a, b in zip(q, k)) / len(k) ** 0.5
            scores.append(s if mask is None or mask[i][j] else -math.inf)
        w = [float(v) for v in stable_softmax(np.array(scores))]
        weights.append(w)
        output.append([sum(w[j] * V[j][c] for j in range(len(V))) for c in range(len(V[0]))])
    return output, weights
''',
        _attention(scores="np.einsum('qd,kd->qk', Q / np.sqrt(Q.shape[1]), K)", weights=INLINE),
        _attention(
            scores="(K @ Q.T).T / math.sqrt(K.shape[-1])",
            mask="np.where(~mask, -1e9, s)",
            output="np.einsum('qk,kv->qv', w, V)",
        ).replace("def ", "import math\n\n\ndef ", 1),
        _attention(
            scores="(Q.astype(np.float32) @ K.T.astype(np.float32)) / np.float32(np.sqrt(K.shape[1]))",
            weights="stable_softmax(s)",
            output="(w @ V).astype(np.float32)",
        ),
        _attention(
            mask="s + np.where(mask, 0.0, -np.inf)",
            weights=INLINE,
            after="    print('weights shape', w.shape)\n",
        ),
    ],  # fmt: skip
    [
        Wrong(_attention(scores="Q @ K.T"), _all(AT, "forgot_scaling")),
        Wrong(_attention(scores="Q @ K.T / K.shape[1]"), _all(AT, "divided_by_dk")),
        Wrong(_attention(scores="Q @ K.T / K.shape[0]"), _all(AT, "divided_by_n_tokens")),
        Wrong(_attention(scores="Q @ K.T / np.sqrt(len(K))"), _all(AT, "divided_by_n_tokens")),
        Wrong(  # issue 27: hard attention that splits a tie between the best keys
            _attention(
                weights="(s == s.max(-1, keepdims=True)) / (s == s.max(-1)[:, None]).sum(-1, keepdims=True)"
            ),
            _all(AT, "hard_attention"),
        ),  # fmt: skip
        Wrong(
            _attention(
                weights="np.exp(np.minimum(s, 50)) / np.exp(np.minimum(s, 50)).sum(-1, keepdims=True)"
            ),
            {AT[3]: "clipped_softmax"},
        ),
        Wrong(
            _attention(weights="stable_softmax(s, axis=0)"),
            _all(AT, "softmax_wrong_axis"),
        ),
        Wrong(
            _attention(weights=f"{ROWS} / {ROWS}.sum()"),
            {
                AT[0]: "softmax_whole_matrix",
                AT[1]: "softmax_whole_matrix",
                AT[2]: "softmax_whole_matrix",
                AT[3]: "softmax_whole_matrix",
            },
        ),  # fmt: skip
        Wrong(
            _attention(output="w @ K"),
            {
                AT[0]: "keys_as_values",
                AT[1]: "keys_as_values",
                AT[2]: "keys_as_values",
                AT[3]: "keys_as_values",
            },
        ),
        Wrong(
            _attention(scores="Q @ V.T / np.sqrt(K.shape[1])"),
            {AT[0]: "query_dot_values", AT[1]: "query_dot_values", AT[2]: None, AT[3]: None},
        ),
        Wrong(
            _attention(weights="(s == s.max(axis=1, keepdims=True)).astype(float)"),
            _all(AT, "hard_attention"),
        ),
        Wrong(
            _attention(mask="s", after="    if mask is not None:\n        w = w * mask\n"),
            {AT[2]: "mask_after_softmax"},
        ),
        Wrong(_attention(mask="np.where(mask, s, 0.0)"), {AT[2]: "mask_zero_not_inf"}),
        Wrong(_attention(mask="np.where(mask, -np.inf, s)"), {AT[2]: "mask_inverted"}),
        Wrong(
            _attention(weights="s / s.sum(axis=-1, keepdims=True)", mask="np.where(mask, s, 0.0)"),
            _all(AT, "sum_normalised"),
        ),
        Wrong(
            _attention(weights="np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)"),
            {AT[3]: "naive_softmax_overflow"},
        ),  # fmt: skip
        Wrong(
            _attention(
                weights="np.exp(s - s.max())/ np.exp(s - s.max()).sum(axis=-1, keepdims=True)"
            ),
            {AT[3]: "global_max_softmax"},
        ),
        Wrong(_attention(weights="np.full(s.shape, 1 / s.shape[1])"), _all(AT, "uniform_average")),
        Wrong(_attention(weights="s"), _all(AT, "scores_not_weights")),
        Wrong(_attention(weights=ROWS), _all(AT, "weights_not_normalised")),
        Wrong(
            "import attention_lab\n\n\ndef scaled_dot_product_attention(Q, K, V, mask=None):\n"
            "    return attention_lab.attention(Q, K, V, mask=mask)\n",
            _all(AT, "used_library"),
        ),
    ],
)

CAUSAL = Question(
    "answer_causal_mask",
    CM,
    [
        "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool))\n",
        "def causal_mask(n):\n    return [[1 if j <= i else 0 for j in range(n)] for i in range(n)]\n",
        "def causal_mask(n):\n    return np.arange(n)[:, None] >= np.arange(n)[None, :]\n",
        "def causal_mask(n):\n    return ~np.triu(np.ones((n, n), dtype=bool), k=1)\n",
        "def causal_mask(n):\n    m = np.zeros((n, n), dtype=int)\n    for i in range(n):\n"
        "        m[i, : i + 1] = 1\n    print(m)\n    return m\n",
    ],
    [
        Wrong(
            "def causal_mask(n):\n    return np.triu(np.ones((n, n), dtype=bool))\n",
            _all(CM, "mask_wrong_triangle"),
        ),
        Wrong(
            "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool), k=-1)\n",
            _all(CM, "mask_no_diagonal"),
        ),
        Wrong(
            "def causal_mask(n):\n    return ~np.tril(np.ones((n, n), dtype=bool))\n",
            _all(CM, "mask_convention"),
        ),
        Wrong(
            "def causal_mask(n):\n    return np.where(np.tril(np.ones((n, n))) > 0, 0.0, -np.inf)\n",
            _all(CM, None),
        ),
    ],  # fmt: skip
)

PRACTICE = [SOFTMAX, ATTENTION, CAUSAL]

# ---------------------------------------------------------------------------------------------
# heads_and_positions (lesson 6)
# ---------------------------------------------------------------------------------------------

HB = ("head_b_keys", "head_b_chandrayaan_weights")
OA = "head_a_output_with_positions"


def _head_b(scores: str, keys: str = "X @ W_K_b", weights: str = "") -> str:
    """A Q2 answer: the keys, then the scores ``s`` of Chandrayaan (3,), then the weights."""
    weights = weights or "np.exp(s) / np.exp(s).sum()"
    return f"keys_b = {keys}\ns = {scores}\nweights_b_chandrayaan = {weights}"


def _head_a(scores: str, output: str = "w @ (Xp @ W_V_a)", inputs: str = "X + PE") -> str:
    """A Q4 answer from the inputs ``Xp``, Chandrayaan's scores ``s`` (3,) and its weights ``w``."""
    return (
        f"Xp = {inputs}\ns = {scores}\nw = np.exp(s) / np.exp(s).sum()\n"
        f"output_a_chandrayaan = {output}"
    )


RIGHT_B = "(X @ W_K_b) @ (X[2] @ W_Q_b) / np.sqrt(2)"
ALL_B = "((X @ W_Q_b) @ (X @ W_K_b).T / np.sqrt(2))"  # every word's scores, one row each
_ROWS_B = f"np.exp({ALL_B}) / np.exp({ALL_B}).sum(axis=1, keepdims=True)"
RIGHT_A = "(Xp @ W_K_a) @ (Xp[2] @ W_Q_a) / np.sqrt(2)"

HEADS = [
    Question(
        "answer_q1",
        ("projected_queries",),
        [
            "Q_a = X @ W_Q_a",
            "Q_a = [[round(float(v), 1) for v in row] for row in X @ W_Q_a]",  # by hand, tenths
            "Q_a = np.array([[x[0] * W_Q_a[0, j] + x[1] * W_Q_a[1, j] for j in range(2)] "
            "for x in X])",
            "Q_a = np.dot(X, W_Q_a).astype(np.float32)",
            "Q_a = (W_Q_a.T @ X.T).T\nprint(Q_a)",
            "Q_a = tuple(map(tuple, X @ W_Q_a))",
        ],
        [
            Wrong("Q_a = X @ W_Q_a.T", {"projected_queries": None}),
            Wrong("Q_a = X @ W_K_a", {"projected_queries": None}),
            Wrong("Q_a = X", {"projected_queries": None}),
        ],
    ),
    Question(
        "answer_q2",
        HB,
        [
            _head_b(RIGHT_B),
            "keys_b = [[round(float(v), 1) for v in row] for row in X @ W_K_b]\n"
            "s = (X @ W_K_b) @ (X[2] @ W_Q_b) / np.sqrt(2)\n"
            "weights_b_chandrayaan = np.round(np.exp(s) / np.exp(s).sum(), 3).tolist()",
            _head_b(
                "(X @ W_K_b / np.sqrt(2)) @ (X[2] @ W_Q_b)",
                keys="(W_K_b.T @ X.T).T",
                weights="np.exp(s - s.max()) / np.exp(s - s.max()).sum()",
            ),
            "from attention_lab.projections import projected_attention\n\n"
            "head = projected_attention(X, W_Q_b, W_K_b, np.eye(2))\n"
            "keys_b = head.K\nweights_b_chandrayaan = head.weights[-1].astype(np.float32)",
            "import math\n\nq = X[2] @ W_Q_b\nkeys_b = [list(x @ W_K_b) for x in X]\n"
            "e = [math.exp(q @ np.array(k) / math.sqrt(2)) for k in keys_b]\n"
            "weights_b_chandrayaan = tuple(v / sum(e) for v in e)",
        ],  # fmt: skip
        [
            Wrong(
                _head_b("(X @ W_K_b) @ (X[2] @ W_Q_a) / np.sqrt(2)"),
                {"head_b_chandrayaan_weights": "heads_share_projection"},
            ),
            Wrong(
                _head_b("X @ X[2] / np.sqrt(2)"),
                {"head_b_chandrayaan_weights": "unprojected_scores"},
            ),
            Wrong(
                _head_b("X[2] @ (W_Q_b @ W_K_b) @ X.T / np.sqrt(2)"),
                {"head_b_chandrayaan_weights": "one_matrix_no_transpose"},
            ),
            # issue 38: each word's softmax taken down a column, and a column read as the row
            Wrong(
                _head_b(RIGHT_B, weights=f"(np.exp({ALL_B}) / np.exp({ALL_B}).sum(axis=0))[2]"),
                {"head_b_chandrayaan_weights": "softmax_wrong_axis"},
            ),
            Wrong(
                _head_b(RIGHT_B, weights=f"({_ROWS_B})[:, 2]"),
                {"head_b_chandrayaan_weights": "attention_symmetric"},
            ),
            # one part right, one wrong: only the wrong part loses its points
            Wrong(_head_b(RIGHT_B, keys="X @ W_K_b.T"), {"head_b_keys": None}),
            Wrong(_head_b("(X @ W_K_b) @ (X[2] @ W_Q_b)"), {"head_b_chandrayaan_weights": None}),
        ],  # fmt: skip
    ),
    Question(
        "answer_q3",
        ("concat_shape_value",),
        [
            "concat_shape = (3, 4)",
            "concat_shape = [3, 4]",
            "concat_shape = np.array([3, 4])",
            "concat_shape = (X.shape[0], 2 * 2)",
            "concat_shape = np.concatenate([X @ W_Q_a, X @ W_Q_b], axis=1).shape",
            "concat_shape = (3.0, 4.0)",
        ],
        [
            Wrong("concat_shape = (6, 2)", {"concat_shape_value": None}),
            Wrong("concat_shape = (3, 2)", {"concat_shape_value": None}),
            Wrong("concat_shape = (4, 3)", {"concat_shape_value": None}),
        ],
    ),
    Question(
        "answer_q4",
        (OA,),
        [
            _head_a(RIGHT_A),
            # worked by hand to 3 decimals, on the student's own matrices
            "Xp = X + PE\ns = (Xp @ W_K_a) @ (Xp[2] @ W_Q_a) / np.sqrt(2)\n"
            "output_a_chandrayaan = np.round(np.exp(s) / np.exp(s).sum() @ (Xp @ W_V_a), 3).tolist()",
            "from attention_lab.projections import projected_attention\n\n"
            "output_a_chandrayaan = projected_attention(X, W_Q_a, W_K_a, W_V_a, positions=PE).output[2]",
            _head_a(
                "(Xp @ W_K_a) @ (Xp[-1] @ W_Q_a) / np.sqrt(W_Q_a.shape[1])",
                output="(w @ Xp @ W_V_a).astype(np.float32)",
            ),
            _head_a(
                "np.array([(Xp[2] @ W_Q_a) @ (y @ W_K_a) for y in Xp]) / 2 ** 0.5",
                inputs="np.array(X, dtype=float) + np.array(PE)",
            ),
        ],  # fmt: skip
        [
            Wrong(
                _head_a(RIGHT_A, output="w @ (Xp @ W_V_a) + PE[2]", inputs="X"),
                {OA: "positions_after_attention"},
            ),
            Wrong(_head_a(RIGHT_A, inputs="X"), {OA: "positions_after_attention"}),
            Wrong(_head_a("Xp @ Xp[2] / np.sqrt(2)"), {OA: "unprojected_scores"}),
            Wrong(
                _head_a("Xp[2] @ (W_Q_a @ W_K_a) @ Xp.T / np.sqrt(2)"),
                {OA: "one_matrix_no_transpose"},
            ),
            Wrong(_head_a("(Xp @ W_K_a) @ (Xp[2] @ W_Q_a)"), {OA: None}),
        ],  # fmt: skip
    ),
    _choice(
        "answer_q5",
        "positions_where_choice",
        "answer_q5",
        "c",
        {
            "a": "positions_after_attention",
            "b": "positions_after_attention",
            "d": "order_aware_self_attention",
        },
    ),
    Question(
        "answer_q6",
        ("heads_share_true_false",),
        [
            "answer_q6 = False",
            'answer_q6 = "false"',
            "answer_q6 = np.False_",
            'answer_q6 = " False "',
            "answer_q6 = 1 > 2",
        ],
        [
            Wrong("answer_q6 = True", {"heads_share_true_false": "heads_share_projection"}),
            Wrong('answer_q6 = "TRUE"', {"heads_share_true_false": "heads_share_projection"}),
        ],
    ),
]


# ---------------------------------------------------------------------------------------------
# transformer_block (lesson 7)
# ---------------------------------------------------------------------------------------------

LN = "layer_norm_values"
AN = "add_and_norm_values"
PA = "probabilities_every_position"
NP = "next_token_probabilities"
GW = "generation_weights_values"
PC = ("attention_parameter_count", "block_parameter_count")
ROW_NORM = "(v - v.mean(axis=1, keepdims=True)) / np.sqrt(v.var(axis=1, keepdims=True) + 1e-5)"
CAUSAL_S = "np.where(np.tril(np.ones((3, 3), dtype=bool)), S, -np.inf)"
FFN_AND_NORMS = "(256 * 1024 + 1024 + 1024 * 256 + 256) + 4 * 256"

TRANSFORMER = [
    Question(
        "answer_q1",
        (LN,),
        [
            f"v = X\nx_norm = {ROW_NORM}",
            "x_norm = [(r - r.mean()) / np.sqrt(r.var() + 1e-5) for r in X]",
            "from attention_lab.transformer import layer_norm\n\nx_norm = layer_norm(X)",
            "mu = X.sum(axis=1) / 4\nc = X - mu[:, None]\n"
            "x_norm = (c / np.sqrt((c**2).mean(axis=1) + 1e-5)[:, None]).astype(np.float32)",
            "x_norm = ((X.T - X.mean(axis=1)) / X.std(axis=1)).T\nprint(x_norm.round(3))",
            "import statistics\n\nx_norm = [[(a - statistics.fmean(r)) / statistics.pstdev(r) "
            "for a in r] for r in X.tolist()]",
        ],
        [
            Wrong(
                "x_norm = (X - X.mean(axis=0)) / np.sqrt(X.var(axis=0) + 1e-5)",
                {LN: "norm_wrong_axis"},
            ),
            Wrong("x_norm = X - X.mean(axis=1, keepdims=True)", {LN: None}),
            Wrong("x_norm = (X - X.mean()) / X.std()", {LN: None}),
        ],
    ),
    Question(
        "answer_q2",
        (AN,),
        [
            f"v = X + A\nblock_middle = {ROW_NORM}",
            "s = X + A\nblock_middle = ((s.T - s.mean(axis=1)) / s.std(axis=1)).T.astype(np.float32)",
            "from attention_lab.transformer import layer_norm\n\nblock_middle = layer_norm(A + X)",
            "rows = []\nfor x, a in zip(X, A):\n    s = x + a\n"
            "    rows.append((s - s.mean()) / np.sqrt(s.var() + 1e-5))\nblock_middle = np.array(rows)",
            f"v = np.add(X, A)\nblock_middle = tuple(map(tuple, {ROW_NORM}))",
        ],
        [
            Wrong(f"v = A\nblock_middle = {ROW_NORM} + X", {AN: "residual_after_norm"}),
            Wrong(
                "v = X + A\nblock_middle = (v - v.mean(axis=0)) / np.sqrt(v.var(axis=0) + 1e-5)",
                {AN: "norm_wrong_axis"},
            ),
            Wrong(f"v = A\nblock_middle = {ROW_NORM}", {AN: None}),
            Wrong("block_middle = X + A", {AN: None}),
        ],
    ),
    Question(
        "answer_q3",
        (PA,),
        [
            "z = LOGITS / 0.5\nprobs_all = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)",
            "probs_all = np.exp(2 * LOGITS) / np.exp(2 * LOGITS).sum(axis=-1)[:, None]",
            "from attention_lab.transformer import softmax_with_temperature\n\n"
            "probs_all = softmax_with_temperature(LOGITS, 0.5)",
            "z = LOGITS / 0.5\nz = z - z.max(axis=1, keepdims=True)\n"
            "probs_all = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)).round(3)",
            "probs_all = [list(np.exp(r / 0.5) / sum(np.exp(r / 0.5))) for r in LOGITS]",
        ],
        [
            Wrong(
                "z = LOGITS / 0.5\nprobs_all = np.exp(z) / np.exp(z).sum(axis=0, keepdims=True)",
                {PA: "vocab_softmax_wrong_axis"},
            ),
            Wrong(
                "z = LOGITS * 0.5\nprobs_all = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)",
                {PA: "temperature_inverted"},
            ),
            Wrong(
                "probs_all = np.exp(LOGITS) / np.exp(LOGITS).sum(axis=1, keepdims=True)",
                {PA: None},
            ),
        ],
    ),
    Question(
        "answer_q5",
        (NP,),
        [
            "z = LOGITS[-1] / 2\nnext_probs = np.exp(z) / np.exp(z).sum()",
            "next_probs = list(np.round(np.exp(LOGITS[1] / 2) / np.exp(LOGITS[1] / 2).sum(), 3))",
            "from attention_lab.transformer import softmax_with_temperature\n\n"
            "next_probs = softmax_with_temperature(LOGITS, 2)[-1]",
            "z = LOGITS / 2\nnext_probs = (np.exp(z) / np.exp(z).sum(axis=1, keepdims=True))[-1:]",
            "import math\n\ne = [math.exp(v / 2) for v in LOGITS[-1]]\n"
            "next_probs = tuple(v / sum(e) for v in e)",
        ],
        [
            Wrong(
                "z = LOGITS[-1] * 2\nnext_probs = np.exp(z) / np.exp(z).sum()",
                {NP: "temperature_inverted"},
            ),
            Wrong(
                "z = LOGITS / 2\nnext_probs = (np.exp(z) / np.exp(z).sum(axis=0))[-1]",
                {NP: "vocab_softmax_wrong_axis"},
            ),
            Wrong("z = LOGITS[0] / 2\nnext_probs = np.exp(z) / np.exp(z).sum()", {NP: None}),
        ],
    ),
    Question(
        "answer_q6",
        (GW,),
        [
            f"m = {CAUSAL_S}\ngen_weights = np.exp(m) / np.exp(m).sum(axis=1, keepdims=True)",
            "gen_weights = [[1, 0, 0], list(np.exp(S[1, :2]) / np.exp(S[1, :2]).sum()) + [0], "
            "list(np.exp(S[2]) / np.exp(S[2]).sum())]",
            "e = np.exp(S) * np.tril(np.ones((3, 3)))\ngen_weights = e / e.sum(axis=1, keepdims=True)",
            "from attention_lab import causal_mask, softmax\n\n"
            "gen_weights = softmax(np.where(causal_mask(3), S, -np.inf))",
            f"m = {CAUSAL_S}\ngen_weights = (np.exp(m) / np.exp(m).sum(axis=-1)[:, None])"
            ".astype(np.float32).round(3)",
        ],
        [
            Wrong(
                "gen_weights = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)",
                {GW: "mask_left_out_at_generation"},
            ),
            Wrong(
                "e = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)\n"
                "gen_weights = e * np.tril(np.ones((3, 3)))",
                {GW: "mask_after_softmax"},
            ),
            Wrong(
                "m = np.where(np.tril(np.ones((3, 3), dtype=bool)), S, 0)\n"
                "gen_weights = np.exp(m) / np.exp(m).sum(axis=1, keepdims=True)",
                {GW: "mask_zero_not_inf"},
            ),
            Wrong(
                "m = np.where(np.triu(np.ones((3, 3), dtype=bool)), S, -np.inf)\n"
                "gen_weights = np.exp(m) / np.exp(m).sum(axis=1, keepdims=True)",
                {GW: None},
            ),
        ],
    ),
    Question(
        "answer_q7",
        PC,
        [
            f"n_attention = 4 * 256 * 256\nn_block = n_attention + {FFN_AND_NORMS}",
            "n_attention = 262144\nn_block = 788736.0",
            "from attention_lab.transformer import count_parameters\n\n"
            "c = count_parameters(256, 4, 1024)\nn_attention = c.attention\nn_block = c.total",
            "d_k = 256 // 4\nn_attention = 3 * 4 * 256 * d_k + 4 * d_k * 256\n"
            f"n_block = int(n_attention + {FFN_AND_NORMS})",
            f"n_attention = np.int64(4 * 256**2)\nn_block = np.int64(n_attention + {FFN_AND_NORMS})",
        ],
        [
            Wrong(
                f"n_attention = 4 * 4 * 256 * 256\nn_block = n_attention + {FFN_AND_NORMS}",
                _all(PC, "heads_full_width"),
            ),
            Wrong(
                "n_attention = 4 * 256 * 256\nn_block = n_attention + 2 * 256 * 1024 + 4 * 256",
                {PC[1]: None},
            ),
            Wrong(
                f"n_attention = 3 * 256 * 256\nn_block = 4 * 256 * 256 + {FFN_AND_NORMS}",
                {PC[0]: None},
            ),
        ],
    ),
]

QUESTIONS = {
    "intro_attention": INTRO,
    "focus_in_the_noise": FOCUS,
    "practice_implement": PRACTICE,
    "heads_and_positions": HEADS,
    "transformer_block": TRANSFORMER,
}
