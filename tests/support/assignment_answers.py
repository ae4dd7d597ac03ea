"""The answers tests/test_assignments.py hands in for every assignment under source/.

Per assignment: the source itself, the released blank, answers written differently
(:data:`ALTERNATIVE`), buggy answers that carry the course map's misconceptions, several per
notebook in different questions (:data:`BUGGY`), and test cells dragged out of the teacher's
order (:data:`MOVED`). tests/support/source_class.py hands them in beside the accuracy suite's answers.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import nbformat

from tests.support.accuracy_answers import ATTENTION as PRACTICE_ATTENTION
from tests.support.accuracy_answers import SOFTMAX as PRACTICE_SOFTMAX

ROOT = Path(__file__).resolve().parents[2]
# The chapters' three assignments and lessons 6 and 7's (beyond the chapters).
CHAPTERS = (
    "intro_attention",
    "focus_in_the_noise",
    "practice_implement",
    "heads_and_positions",
    "transformer_block",
)
INVENTORY = ("inventory_pre", "inventory_post")  # the concept inventory's two parallel forms
ASSIGNMENTS = (*CHAPTERS, *INVENTORY)


def _hidden_choice(cell) -> dict | None:
    """The literal keywords of a choice test cell's hidden check_choice call (None: not one)."""
    if "### BEGIN HIDDEN TESTS" not in cell.source or '"abcd"' not in cell.source:
        return None
    hidden = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("###")[0]
    call = next(n for n in ast.walk(ast.parse(hidden)) if isinstance(n, ast.Call))
    return {k.arg: ast.literal_eval(k.value) for k in call.keywords}


def choice_keys(assignment: str) -> dict[str, dict]:
    """Test cell grade_id -> its hidden check_choice keywords (correct, misconceptions, name)."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", 4)
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}
    return {
        gid: kw for gid, c in cells.items() if gid.endswith("_choice") and (kw := _hidden_choice(c))
    }


# The inventory's answers, spelled as students do (as in the accuracy suite) ...
SPELLINGS = ("{}", " {} ", "({})", "{}.", "Option {}")


def _inventory_alternative(form: str) -> dict[str, str]:
    keys = choice_keys(form).values()
    return {
        kw[
            "name"
        ]: f"{kw['name']} = {SPELLINGS[i % len(SPELLINGS)].format(kw['correct'].upper())!r}"
        for i, kw in enumerate(keys)
    }


def _inventory_buggy(form: str, pick: int) -> tuple[dict, dict]:
    """Every item answered with its ``pick``-th wrong option; each must name its misconception."""
    overrides, expected = {}, {}
    for gid, kw in choice_keys(form).items():
        letter, slug = sorted(kw["misconceptions"].items())[pick]
        overrides[kw["name"]] = f"{kw['name']} = {letter!r}"
        expected[gid] = slug
    return overrides, expected


# ---------------------------------------------------------------------------------------------
# Submissions: solution grade_id -> replacement code. `EXPECT` says which test cells must fail
# and with which misconception slug (None: fails without one); every other test cell must get
# full points.
# ---------------------------------------------------------------------------------------------

ALTERNATIVE = {
    "intro_attention": {
        "answer_q1": "q1_scores = np.array([2.0, 0.0], dtype=np.float32)",
        "answer_q2": 'answer_q2 = " B "',
        "answer_q3": 'answer_q3 = "(d)"',
        "answer_q4": 'answer_q4 = "false"',
        "answer_q5": 'answer_q5 = ("values", "Keys", "query vector")',
    },
    "focus_in_the_noise": {
        "answer_q1": 'answer_q1 = "K3"',
        "answer_q2": 'answer_q2 = "A"',
        "answer_q3": (
            # worked by hand to 3 decimals, on the student's own numbers
            "s = K @ q_launched / np.sqrt(2)\n"
            "launched_scores = np.round(s, 3).tolist()\n"
            "launched_weights = np.round(np.exp(s) / np.exp(s).sum(), 3).tolist()\n"
            "launched_output = tuple(np.round(np.exp(s) / np.exp(s).sum() @ V, 3))"
        ),
        "answer_q4": "answer_q4 = np.True_",
    },
    "practice_implement": {
        # the float32 row-by-row softmax and the loops-over-lists attention of the accuracy suite
        "answer_stable_softmax": PRACTICE_SOFTMAX.correct[1],
        "answer_attention": PRACTICE_ATTENTION.correct[1],
        "answer_causal_mask": """
def causal_mask(n):
    return [[1 if j <= i else 0 for j in range(n)] for i in range(n)]
""",
    },
    "heads_and_positions": {
        "answer_q1": "Q_a = [[round(float(v), 1) for v in row] for row in X @ W_Q_a]",  # by hand, tenths
        "answer_q2": (
            "keys_b = [[round(float(v), 1) for v in row] for row in X @ W_K_b]\n"
            "q, k = X @ W_Q_b, X @ W_K_b\n"
            "e = np.exp(q @ k.T / np.sqrt(2))\n"
            "weights_b_chandrayaan = list((e / e.sum(axis=1, keepdims=True)).round(3)[2])"
        ),
        "answer_q3": "concat_shape = [3, 4]",
        "answer_q4": (
            "from attention_lab.projections import projected_attention\n\n"
            "head = projected_attention(X, W_Q_a, W_K_a, W_V_a, positions=PE)\n"
            "output_a_chandrayaan = head.output[2]"
        ),
        "answer_q5": 'answer_q5 = " C "',
        "answer_q6": 'answer_q6 = "false"',
    },
    "transformer_block": {
        "answer_q1": "x_norm = [(r - r.mean()) / np.sqrt(r.var() + 1e-5) for r in X]",
        "answer_q2": (
            "s = X + A\n"
            "block_middle = ((s.T - s.mean(axis=1)) / s.std(axis=1)).T.astype(np.float32)"
        ),
        "answer_q3": "probs_all = np.exp(2 * LOGITS) / np.exp(2 * LOGITS).sum(axis=-1)[:, None]",
        "answer_q5": (
            "next_probs = list(np.round(np.exp(LOGITS[1] / 2) / np.exp(LOGITS[1] / 2).sum(), 3))"
        ),
        "answer_q6": (
            "e = np.exp(S) * np.tril(np.ones((3, 3)))\n"
            "gen_weights = e / e.sum(axis=1, keepdims=True)"
        ),
        "answer_q7": "n_attention = 4 * 256 ** 2\nn_block = 788736.0",
    },
    **{form: _inventory_alternative(form) for form in INVENTORY},
}

NAIVE = "    e = np.exp(x)\n    return e / e.sum(axis=axis, keepdims=True)"
STABLE = (
    "    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
    "    return e / e.sum(axis=axis, keepdims=True)"
)


def _softmax(body: str) -> str:
    return f"def stable_softmax(x, axis=-1):\n    x = np.asarray(x, dtype=float)\n{body}\n"


def _attention(scores: str, mask: str, weights: str, output: str = "weights @ V", after: str = ""):
    """A complete attention answer cell with its own row softmax (bugs stay independent)."""
    return (
        "def _row_softmax(s, axis=-1):\n"
        "    e = np.exp(s - s.max(axis=axis, keepdims=True))\n"
        "    return e / e.sum(axis=axis, keepdims=True)\n\n\n"
        "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
        f"    scores = {scores}\n"
        f"    if mask is not None:\n        {mask}\n"
        f"    weights = {weights}\n"
        f"{after}"
        f"    return {output}, weights\n"
    )


SCALED = "Q @ K.T / np.sqrt(K.shape[1])"
MASK_INF = "scores = np.where(mask, scores, -np.inf)"
SOFTMAX_ROWS = "_row_softmax(scores)"
AFTER_SOFTMAX = "    if mask is not None:\n        weights = weights * mask\n"
GOOD_MASK = "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool))\n"

# Each exercise of practice_implement is graded behaviour by behaviour, one test cell each.
SOFTMAX = (
    "stable_softmax_example",
    "stable_softmax_large_scores",
    "stable_softmax_shapes_and_masks",
)
ATTENTION = ("attention_example", "attention_random_shapes", "attention_masked_rows",
             "attention_large_scores")  # fmt: skip
CAUSAL_MASK = ("causal_mask_example", "causal_mask_sizes")


def _each(cells, slug):
    """The same expected misconception in every behaviour cell of one exercise."""
    return dict.fromkeys(cells, slug)


# student -> (solution overrides, {test grade_id: expected misconception slug or None})
BUGGY = {
    "intro_attention": {
        "bugs_1": (
            {
                "answer_q1": "q1_scores = [2 / np.sqrt(2), 0]",
                "answer_q2": 'answer_q2 = "d"',
                "answer_q3": 'answer_q3 = "a"',
                "answer_q4": "answer_q4 = True",
                "answer_q5": 'answer_q5 = ["query", "key", "weight"]',
            },
            {
                "dot_products_query_2_0": "scaled_when_not_asked",
                "why_exponentiate_choice": "sum_normalised",
                "bag_weight_source_choice": "importance_is_programmed",
                "word_order_true_false": "order_aware_self_attention",
                "three_vectors_named": None,
            },
        ),
        "bugs_2": (
            {"answer_q1": "q1_scores = [2 / 2, 0]", "answer_q2": 'answer_q2 = "c"'},
            {
                "dot_products_query_2_0": "divided_by_dk",
                "why_exponentiate_choice": "hard_attention",
            },
        ),
        "bugs_3": (
            {"answer_q1": "q1_scores = np.exp([2, 0]) / np.exp([2, 0]).sum()"},
            {"dot_products_query_2_0": "weights_not_scores"},
        ),
        # Answer variables renamed: the test cells fail with a NameError, whose traceback would
        # quote the hidden lines below the failing one if feedback kept it.
        "renamed": (
            {"answer_q1": "scores = [2, 0]", "answer_q2": 'my_answer = "c"'},
            {"dot_products_query_2_0": None, "why_exponentiate_choice": None},
        ),
    },
    "focus_in_the_noise": {
        "bugs_1": (
            {
                "answer_q1": 'answer_q1 = "k1"',
                "answer_q2": 'answer_q2 = "b"',
                "answer_q3": (
                    "launched_scores = K @ q_launched\n"
                    "s = K @ q_launched / np.sqrt(2)\n"
                    "launched_weights = np.round(s / s.sum(), 3).tolist()\n"
                    "launched_output = V[np.argmax(K @ q_launched)]"
                ),
                "answer_q4": "answer_q4 = False",
            },
            {
                "highest_key_choice": None,
                "scaling_choice": "divided_by_dk",
                "launched_scores": "forgot_scaling",
                "launched_weights_sum_to_one": "sum_normalised",
                "launched_output": "hard_attention",
                "identical_keys_true_false": "values_change_weights",
            },
        ),
        "bugs_2": (
            {
                "answer_q2": 'answer_q2 = "c"',
                "answer_q3": (
                    "s = K @ q_launched\n"
                    "launched_scores = s / 2\n"
                    "launched_weights = np.exp(s) / np.exp(s).sum()\n"
                    "w = np.exp(s / np.sqrt(2)) / np.exp(s / np.sqrt(2)).sum()\n"
                    "launched_output = w @ K"
                ),
            },
            {
                "scaling_choice": "softmax_only_ranks",
                "launched_scores": "divided_by_dk",
                "launched_weights_sum_to_one": "forgot_scaling",
                "launched_output": "keys_as_values",
            },
        ),
        "bugs_3": (
            {
                "answer_q2": 'answer_q2 = "d"',
                "answer_q3": (
                    "s = K @ q_launched / np.sqrt(2)\n"
                    "launched_scores = np.exp(s) / np.exp(s).sum()\n"
                    "launched_weights = np.exp(s)\n"
                    "w = np.exp(V @ q_launched / np.sqrt(2))\n"
                    "launched_output = w / w.sum() @ V"
                ),
            },
            {
                "scaling_choice": "normalising_step_confused",
                "launched_scores": "weights_not_scores",
                "launched_weights_sum_to_one": "weights_not_normalised",
                "launched_output": "query_dot_values",
            },
        ),
    },
    "practice_implement": {
        "bugs_1": (
            {
                "answer_stable_softmax": _softmax(NAIVE),
                "answer_attention": _attention("Q @ K.T", MASK_INF, SOFTMAX_ROWS),
                "answer_causal_mask": GOOD_MASK.replace("tril", "triu"),
            },
            {
                "stable_softmax_large_scores": "naive_softmax_overflow",
                **_each(ATTENTION, "forgot_scaling"),
                **_each(CAUSAL_MASK, "mask_wrong_triangle"),
            },
        ),
        "bugs_2": (
            {
                "answer_stable_softmax": _softmax(STABLE.replace("axis=axis", "axis=0")),
                "answer_attention": _attention("Q @ K.T / K.shape[1]", MASK_INF, SOFTMAX_ROWS),
                "answer_causal_mask": GOOD_MASK.replace("dtype=bool))", "dtype=bool), k=-1)"),
            },
            {
                "stable_softmax_shapes_and_masks": "softmax_wrong_axis",
                **_each(ATTENTION, "divided_by_dk"),
                **_each(CAUSAL_MASK, "mask_no_diagonal"),
            },
        ),
        "bugs_3": (
            {
                "answer_stable_softmax": _softmax("    return x / x.sum(axis=axis, keepdims=True)"),
                "answer_attention": _attention(SCALED, "pass", SOFTMAX_ROWS, after=AFTER_SOFTMAX),
                "answer_causal_mask": GOOD_MASK.replace("np.tril(", "~np.tril("),
            },
            {
                **_each(SOFTMAX, "sum_normalised"),
                "attention_masked_rows": "mask_after_softmax",
                **_each(CAUSAL_MASK, "mask_convention"),
            },
        ),
        "bugs_4": (
            {
                "answer_stable_softmax": (
                    "import attention_lab\n\n\n"
                    "def stable_softmax(x, axis=-1):\n"
                    "    return attention_lab.softmax(x, axis=axis)\n"
                ),
                "answer_attention": _attention(
                    SCALED, "scores = np.where(mask, scores, 0.0)", SOFTMAX_ROWS
                ),
                "answer_causal_mask": (
                    "from attention_lab import causal_mask as finished_mask\n\n\n"
                    "def causal_mask(n):\n    return finished_mask(n)\n"
                ),
            },
            {
                **_each(SOFTMAX, "used_library"),
                "attention_masked_rows": "mask_zero_not_inf",
                **_each(CAUSAL_MASK, "used_library"),
            },
        ),
        "bugs_5": (
            {
                "answer_stable_softmax": _softmax("    return np.exp(x - x.max())"),
                "answer_attention": _attention(SCALED, MASK_INF, SOFTMAX_ROWS, "weights @ K"),
                "answer_causal_mask": GOOD_MASK,
            },
            {**_each(SOFTMAX, "weights_not_normalised"), **_each(ATTENTION, "keys_as_values")},
        ),
        "bugs_6": (
            {
                "answer_stable_softmax": (
                    "def stable_softmax(x, axis=-1):\n"
                    "    from scipy.special import softmax\n\n"
                    "    return softmax(x, axis=axis)\n"
                ),
                "answer_attention": (
                    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
                    "    scores = Q @ K.T\n"
                    "    if mask is not None:\n"
                    "        scores = np.where(mask, scores, -np.inf)\n"
                    "    weights = (scores == scores.max(axis=1, keepdims=True)).astype(float)\n"
                    "    return V[np.argmax(scores, axis=1)], weights\n"
                ),
            },
            {**_each(SOFTMAX, "used_library"), **_each(ATTENTION, "hard_attention")},
        ),
        "bugs_7": (
            {
                "answer_stable_softmax": (
                    "def stable_softmax(x, axis=-1):\n"
                    "    import torch\n\n"
                    "    return torch.softmax(torch.tensor(x), dim=axis).numpy()\n"
                ),
                "answer_attention": _attention(SCALED, MASK_INF, "_row_softmax(scores, axis=0)"),
            },
            {**_each(SOFTMAX, "used_library"), **_each(ATTENTION, "softmax_wrong_axis")},
        ),
        "bugs_8": (
            {
                "answer_stable_softmax": _softmax(STABLE),
                "answer_attention": _attention(
                    "Q @ V.T / np.sqrt(K.shape[1])", MASK_INF, SOFTMAX_ROWS
                ),
            },
            {
                "attention_example": "query_dot_values",
                "attention_random_shapes": "query_dot_values",
                # Q @ V.T cannot even run when the values are narrower than the keys
                "attention_masked_rows": None,
                "attention_large_scores": None,
            },
        ),
    },
    "heads_and_positions": {
        "bugs_1": (
            {
                "answer_q1": "Q_a = X @ W_Q_a.T",
                "answer_q2": (
                    "keys_b = X @ W_K_b\n"
                    "s = keys_b @ (X[2] @ W_Q_a) / np.sqrt(2)\n"
                    "weights_b_chandrayaan = np.exp(s) / np.exp(s).sum()"
                ),
                "answer_q3": "concat_shape = (6, 2)",
                "answer_q4": (
                    "s = (X @ W_K_a) @ (X[2] @ W_Q_a) / np.sqrt(2)\n"
                    "w = np.exp(s) / np.exp(s).sum()\n"
                    "output_a_chandrayaan = w @ (X @ W_V_a) + PE[2]"
                ),
                "answer_q5": 'answer_q5 = "a"',
                "answer_q6": "answer_q6 = True",
            },
            {
                "projected_queries": None,
                "head_b_chandrayaan_weights": "heads_share_projection",
                "concat_shape_value": None,
                "head_a_output_with_positions": "positions_after_attention",
                "positions_where_choice": "positions_after_attention",
                "heads_share_true_false": "heads_share_projection",
            },
        ),
        "bugs_2": (
            {
                "answer_q2": (
                    "keys_b = X @ W_K_b.T\n"
                    "s = X @ X[2] / np.sqrt(2)\n"
                    "weights_b_chandrayaan = np.exp(s) / np.exp(s).sum()"
                ),
                "answer_q4": (
                    "Xp = X + PE\n"
                    "s = Xp[2] @ W_Q_a @ W_K_a @ Xp.T / np.sqrt(2)\n"
                    "w = np.exp(s) / np.exp(s).sum()\n"
                    "output_a_chandrayaan = w @ (Xp @ W_V_a)"
                ),
                "answer_q5": 'answer_q5 = "d"',
            },
            {
                "head_b_keys": None,
                "head_b_chandrayaan_weights": "unprojected_scores",
                "head_a_output_with_positions": "one_matrix_no_transpose",
                "positions_where_choice": "order_aware_self_attention",
            },
        ),
    },
    "transformer_block": {
        "bugs_1": (
            {
                "answer_q1": "x_norm = (X - X.mean(axis=0)) / np.sqrt(X.var(axis=0) + 1e-5)",
                "answer_q2": (
                    "n = (A - A.mean(axis=1, keepdims=True)) / np.sqrt(A.var(axis=1, keepdims=True))\n"
                    "block_middle = n + X"
                ),
                "answer_q3": (
                    "z = LOGITS / 0.5\nprobs_all = np.exp(z) / np.exp(z).sum(axis=0, keepdims=True)"
                ),
                "answer_q5": "z = LOGITS[-1] * 2\nnext_probs = np.exp(z) / np.exp(z).sum()",
                "answer_q6": "gen_weights = np.exp(S) / np.exp(S).sum(axis=1, keepdims=True)",
                "answer_q7": (
                    "n_attention = 4 * 4 * 256 * 256\n"
                    "n_block = n_attention + 2 * 256 * 1024 + 1024 + 256 + 4 * 256"
                ),
            },
            {
                "layer_norm_values": "norm_wrong_axis",
                "add_and_norm_values": "residual_after_norm",
                "probabilities_every_position": "vocab_softmax_wrong_axis",
                "next_token_probabilities": "temperature_inverted",
                "generation_weights_values": "mask_left_out_at_generation",
                "attention_parameter_count": "heads_full_width",
                "block_parameter_count": "heads_full_width",
            },
        ),
        "bugs_2": (
            {
                "answer_q1": "x_norm = X - X.mean(axis=1, keepdims=True)",
                "answer_q3": (
                    "z = LOGITS * 0.5\nprobs_all = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)"
                ),
                "answer_q5": "z = LOGITS / 2\nnext_probs = (np.exp(z) / np.exp(z).sum(axis=0))[-1]",
                "answer_q7": (
                    "n_attention = 4 * 256 * 256\nn_block = n_attention + 2 * 256 * 1024 + 4 * 256"
                ),
            },
            {
                "layer_norm_values": None,
                "probabilities_every_position": "temperature_inverted",
                "next_token_probabilities": "vocab_softmax_wrong_axis",
                "block_parameter_count": None,
            },
        ),
    },
    **{
        form: {f"bugs_{pick + 1}": _inventory_buggy(form, pick) for pick in range(3)}
        for form in INVENTORY
    },
}


# Attacks on the order of cells: student -> (solution overrides, [(test cell moved, the cell
# it is dragged below)], the test cells that must fail). The tests run in the teacher's order.
KEEPS_REFERENCE = (
    "_kept = []\n\n\n"
    "def stable_softmax(x, axis=-1):\n"
    "    if _kept:  # the grader's reference, kept while it was lent to her attention\n"
    "        return _kept[0](x, axis=axis)\n"
    "    return np.zeros_like(np.asarray(x, dtype=float))\n\n\n"
    "_own = stable_softmax\n"
)
ATTENTION_KEEPS = (
    "def scaled_dot_product_attention(Q, K, V, mask=None):\n"
    "    if stable_softmax is not _own and not _kept:\n"
    "        _kept.append(stable_softmax)\n"
    "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
    "    scores = Q @ K.T / np.sqrt(K.shape[-1])\n"
    "    if mask is not None:\n"
    "        scores = np.where(mask, scores, -np.inf)\n"
    "    weights = stable_softmax(scores, axis=-1)\n"
    "    return weights @ V, weights\n"
)
MOVED = {
    "practice_implement": {
        "kept_reference": (
            {"answer_stable_softmax": KEEPS_REFERENCE, "answer_attention": ATTENTION_KEEPS},
            [(gid, "attention_large_scores") for gid in reversed(SOFTMAX)],
            set(SOFTMAX),
        ),
    },
}


def moved(nb, moves):
    """``nb`` with each ``(moved, below)`` cell dragged to just below the other."""
    for moved, below in moves:
        cell = cells_by_id(nb)[moved]
        nb.cells.remove(cell)
        nb.cells.insert(nb.cells.index(cells_by_id(nb)[below]) + 1, cell)
    return nb


def cells_by_id(nb) -> dict:
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}


def submission(release, source, overrides: dict[str, str]):
    """The released notebook with every code answer filled in (from the source by default)."""
    nb = nbformat.from_dict(json.loads(json.dumps(release)))  # a deep copy
    source_cells = cells_by_id(source)
    for grade_id, cell in cells_by_id(nb).items():
        meta = cell.metadata["nbgrader"]
        if not meta.get("solution"):
            continue
        if cell.cell_type == "markdown":
            cell.source = "A written answer, marked by the teacher."
        elif grade_id in overrides:
            cell.source = overrides[grade_id].strip() + "\n"
        else:
            cell.source = source_cells[grade_id].source
    return nb
