"""The nbgrader assignments under source/, generated, autograded and fed back on a course copy.

One module-scoped fixture copies ``nbgrader_config.py`` and ``source/`` to a temporary course,
generates the assignments (the three of the chapters and the two forms of the concept
inventory), writes a batch of submissions per assignment (the source itself, the released blank,
answers written differently, and buggy answers that carry the course map's misconceptions,
several per notebook in different questions) and autogrades and
feeds back every assignment in its own process, side by side. The tests then read the scores,
the feedback HTML and the released notebooks.
"""

from __future__ import annotations

import ast
import html
import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest
from accuracy_answers import ATTENTION as PRACTICE_ATTENTION
from accuracy_answers import SOFTMAX as PRACTICE_SOFTMAX
from graded_classes import finish_steps, start_steps

from attention_lab.checks import MISCONCEPTIONS

ROOT = Path(__file__).resolve().parents[1]
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


def _choice_keys(assignment: str) -> dict[str, dict]:
    """Test cell grade_id -> its hidden check_choice keywords (correct, misconceptions, name)."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", 4)
    cells = {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}
    return {
        gid: kw for gid, c in cells.items() if gid.endswith("_choice") and (kw := _hidden_choice(c))
    }


# The inventory's answers, spelled as students do (as in the accuracy suite) ...
SPELLINGS = ("{}", " {} ", "({})", "{}.", "Option {}")


def _inventory_alternative(form: str) -> dict[str, str]:
    keys = _choice_keys(form).values()
    return {
        kw[
            "name"
        ]: f"{kw['name']} = {SPELLINGS[i % len(SPELLINGS)].format(kw['correct'].upper())!r}"
        for i, kw in enumerate(keys)
    }


def _inventory_buggy(form: str, pick: int) -> tuple[dict, dict]:
    """Every item answered with its ``pick``-th wrong option; each must name its misconception."""
    overrides, expected = {}, {}
    for gid, kw in _choice_keys(form).items():
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
        "answer_q1": "Q_a = [[int(v) for v in row] for row in X @ W_Q_a]",  # by hand
        "answer_q2": (
            "keys_b = [[int(v) for v in row] for row in X @ W_K_b]\n"
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


def _moved(nb, moves):
    """``nb`` with each ``(moved, below)`` cell dragged to just below the other."""
    for moved, below in moves:
        cell = _cells_by_id(nb)[moved]
        nb.cells.remove(cell)
        nb.cells.insert(nb.cells.index(_cells_by_id(nb)[below]) + 1, cell)
    return nb


# ---------------------------------------------------------------------------------------------
# Building the course copy and its submissions
# ---------------------------------------------------------------------------------------------


def _cells_by_id(nb) -> dict:
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}


def _submission(release, source, overrides: dict[str, str]):
    """The released notebook with every code answer filled in (from the source by default)."""
    nb = nbformat.from_dict(json.loads(json.dumps(release)))  # a deep copy
    source_cells = _cells_by_id(source)
    for grade_id, cell in _cells_by_id(nb).items():
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


def _write_submission(course: Path, assignment: str, student: str, nb) -> None:
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{assignment}.ipynb")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Generate, autograde and feed back all three assignments on a copy of the course."""
    base = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", base)
    shutil.copytree(ROOT / "source", base / "source")
    sources = [f"source/{a}/{a}.ipynb" for a in ASSIGNMENTS]
    validating = start_steps(base, "validate", *sources)
    generated = finish_steps(start_steps(base, "generate", *ASSIGNMENTS))
    runs = {}
    for assignment in ASSIGNMENTS:
        copy = tmp_path_factory.mktemp(assignment)
        for item in ("nbgrader_config.py", "source", "release", "gradebook.db"):
            (shutil.copytree if (base / item).is_dir() else shutil.copy)(base / item, copy / item)
        source = nbformat.read(base / "source" / assignment / f"{assignment}.ipynb", 4)
        release = nbformat.read(base / "release" / assignment / f"{assignment}.ipynb", 4)
        _write_submission(copy, assignment, "source", source)
        _write_submission(copy, assignment, "blank", release)
        _write_submission(
            copy, assignment, "alternative", _submission(release, source, ALTERNATIVE[assignment])
        )
        for student, (overrides, _) in BUGGY[assignment].items():
            _write_submission(copy, assignment, student, _submission(release, source, overrides))
        for student, (overrides, moves, _) in MOVED.get(assignment, {}).items():
            moved = _moved(_submission(release, source, overrides), moves)
            _write_submission(copy, assignment, student, moved)
        runs[assignment] = (copy, start_steps(copy, "grade", assignment))
    graded = {a: (copy, finish_steps(proc)) for a, (copy, proc) in runs.items()}
    return {
        "base": base,
        "generated": generated,
        "validated": finish_steps(validating),
        "graded": graded,
    }


def _scores(course, assignment: str, student: str) -> dict:
    return course["graded"][assignment][1]["scores"][student]


def _feedback_text(course, assignment: str, student: str) -> str:
    """The feedback HTML as plain text (tags stripped), as a student reads it."""
    copy = course["graded"][assignment][0]
    page = (copy / "feedback" / student / assignment / f"{assignment}.html").read_text()
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _autograded(scores: dict) -> dict:
    return {gid: s for gid, s in scores.items() if s["type"] == "code"}


def _hidden_lines(nb) -> list[str]:
    """Every non-trivial line inside a hidden-test region of a source notebook."""
    found = []
    for cell in nb.cells:
        inside = False
        for line in cell.source.splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            elif inside and len(line.strip()) > 5:
                found.append(line.strip())
    return found


def _source_nb(assignment: str):
    return nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", 4)


# ---------------------------------------------------------------------------------------------
# The source notebooks themselves (fast: no nbgrader run)
# ---------------------------------------------------------------------------------------------


def _grade_cells(nb):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_sources_are_committed_clean(assignment):
    nb = _source_nb(assignment)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    text = "\n".join(cell.source for cell in nb.cells)
    for noisy in ("matplotlib", "ipywidgets", "ipympl", "plt.", "display("):
        assert noisy not in text, f"{assignment} uses {noisy}: no widgets or plots in grading"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_grade_cell_has_points_and_a_descriptive_id(assignment):
    nb = _source_nb(assignment)
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids))
    cells = _grade_cells(nb)
    assert cells
    for cell in cells:
        meta = cell.metadata["nbgrader"]
        assert meta["points"] > 0
        assert re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)+", meta["grade_id"]), meta["grade_id"]
        if cell.cell_type == "markdown":  # a written answer: model answer + rubric, source only
            assert meta["solution"] and "### BEGIN SOLUTION" in cell.source
            assert "Rubric (" in cell.source


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_test_cells_open_with_a_docstring_and_make_one_call_per_check(assignment):
    for cell in _grade_cells(_source_nb(assignment)):
        if cell.cell_type != "code":
            continue
        tree = ast.parse(cell.source)
        doc = ast.get_docstring(tree)
        assert doc and "\n" not in doc, f"{cell.metadata['nbgrader']['grade_id']}: no docstring"
        calls = tree.body[1:]
        assert 1 <= len(calls) <= 2  # the visible check, then the hidden one
        for stmt in calls:
            func = stmt.value.func
            assert isinstance(stmt, ast.Expr) and func.value.id == "checks"
            assert func.attr.startswith("check_")
        assert "### BEGIN HIDDEN TESTS" in cell.source


# ---------------------------------------------------------------------------------------------
# Generated, autograded and fed back (slow: nbgrader runs every submission)
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_generate_assignment_succeeds(course, assignment):
    result = course["generated"][assignment]
    assert result["success"], result.get("error") or result.get("log")
    assert (course["base"] / "release" / assignment / f"{assignment}.ipynb").exists()


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_validate_passes_on_every_source(course, assignment):
    result = course["validated"][f"source/{assignment}/{assignment}.ipynb"]
    assert result == {}, result


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_autograde_and_feedback_run_without_errors(course, assignment):
    result = course["graded"][assignment][1]
    assert result["autograde"]["success"], result["autograde"].get("error")
    assert result["feedback"]["success"], result["feedback"].get("error")
    assert "ERROR" not in result["autograde"]["log"], result["autograde"]["log"]
    # the course's nbgrader_config.py sandboxes plain `nbgrader autograde` (tamper.configure)
    assert "Sandbox protections for student kernels" in result["autograde"]["log"]
    assert "[OFF]" not in result["autograde"]["log"], "run `make sandbox-deps` as root"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
@pytest.mark.parametrize("student", ["source", "alternative"])
def test_correct_answers_get_full_autograded_marks(course, assignment, student):
    scores = _autograded(_scores(course, assignment, student))
    assert scores, "no autograded cells found"
    lost = {gid: s for gid, s in scores.items() if s["auto"] != s["max"]}
    feedback = _feedback_text(course, assignment, student) if lost else ""
    assert not lost, f"{student} lost points on {sorted(lost)}:\n{feedback[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_released_blank_scores_zero(course, assignment):
    scores = _autograded(_scores(course, assignment, "blank"))
    assert scores and all(s["auto"] == 0 for s in scores.values()), scores
    text = _feedback_text(course, assignment, "blank")
    assert "AnswerFormatError" in text or "WrongAnswer" in text


@pytest.mark.slow
@pytest.mark.parametrize(
    ("assignment", "student"),
    [(a, s) for a in ASSIGNMENTS for s in BUGGY[a]],
)
def test_each_misconception_loses_exactly_its_questions_points(course, assignment, student):
    _, expected = BUGGY[assignment][student]
    scores = _autograded(_scores(course, assignment, student))
    text = _feedback_text(course, assignment, student)
    for grade_id, score in scores.items():
        if grade_id in expected:
            assert score["auto"] == 0, f"{grade_id} should fail for {student}"
        else:
            assert score["auto"] == score["max"], f"{grade_id} lost points for {student}"
    for slug in expected.values():
        if slug is not None:
            assert f"Misconception: [{slug}]" in text, f"[{slug}] missing from the feedback"
            assert slug in MISCONCEPTIONS  # a slug the class report can name


@pytest.mark.slow
@pytest.mark.parametrize(("assignment", "student"), [(a, s) for a in MOVED for s in MOVED[a]])
def test_moved_tests_are_graded_in_the_teachers_order_and_keep_nothing_lent(
    course, assignment, student
):
    """Softmax tests dragged below the attention tests, whose check lends her kernel the
    reference softmax: her softmax must not pass by calling the reference it kept.
    """
    from attention_grader.common.flag_store import read_flags

    failing = MOVED[assignment][student][2]
    for grade_id, score in _autograded(_scores(course, assignment, student)).items():
        wanted = 0 if grade_id in failing else score["max"]
        assert score["auto"] == wanted, f"{grade_id}: {score} for {student}"
    copy = course["graded"][assignment][0]
    graded = nbformat.read(copy / "autograded" / student / assignment / f"{assignment}.ipynb", 4)
    assert "moved_cell" in {flag.kind for flag in read_flags(graded)}


def _released(course, assignment: str):
    return nbformat.read(course["base"] / "release" / assignment / f"{assignment}.ipynb", 4)


def _secret_lines(course, assignment: str) -> list[str]:
    """Hidden-test lines that are not also part of a visible line of the released notebook."""
    visible = [
        line for cell in _released(course, assignment).cells for line in cell.source.splitlines()
    ]
    hidden = _hidden_lines(_source_nb(assignment))
    return [line for line in hidden if not any(line in v for v in visible)]


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_released_notebook_reveals_no_answer(course, assignment):
    source = _source_nb(assignment)
    released = "\n".join(cell.source for cell in _released(course, assignment).cells)
    for marker in ("BEGIN SOLUTION", "BEGIN HIDDEN TESTS", "Model answer", "Rubric (", "correct="):
        assert marker not in released
    secret = _secret_lines(course, assignment)
    assert secret
    leaked = [line for line in secret if line in released]
    assert not leaked, f"hidden test code released: {leaked}"
    for cell in source.cells:
        for answer in re.findall(r"^(answer_q\d+ = .+)$", cell.source, flags=re.M):
            if "None" not in answer:
                assert answer not in released, f"answer key released: {answer}"


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_feedback_shows_no_hidden_test_code(course, assignment):
    secret = _secret_lines(course, assignment)
    for student in ("source", "blank", *BUGGY[assignment]):
        text = _feedback_text(course, assignment, student)
        assert "HIDDEN TESTS" not in text and "correct=" not in text
        leaked = [line for line in secret if line in text]
        assert not leaked, f"feedback for {student} shows hidden test code: {leaked}"


def test_installed_packages_hold_no_answer_key():
    import attention_grader

    import attention_lab

    files = [
        f
        for pkg in (attention_lab, attention_grader)
        for f in Path(pkg.__file__).parent.rglob("*")
        if f.is_file() and f.suffix in (".py", ".json", ".txt", ".csv", ".toml", ".yml", ".yaml")
    ]
    assert any(f.parent.name == "checks" and f.name == "hand.py" for f in files)
    # The chapter-B answers for "launched" and every choice/true-false key of the sources.
    keys = ["1.401", "0.198"]
    for assignment in ASSIGNMENTS:
        for line in _hidden_lines(_source_nb(assignment)):
            keys += [f"correct={value}" for value in re.findall(r"correct=([^,)]+)", line)]
    for f in files:
        text = f.read_text(errors="replace")
        for key in keys:
            assert key not in text, f"{f} contains the answer key {key!r}"
        assert not re.search(r"^\s*answer_q\d+ = ", text, flags=re.M), f"{f} sets an answer"


# ---------------------------------------------------------------------------------------------
# Multiple choice as a concept inventory (issue 15): real distractors, no length give-away
# ---------------------------------------------------------------------------------------------


def _options(markdown: str) -> dict[str, str]:
    found = re.findall(r"^- \*\*([a-d])\)\*\* (.+)$", markdown, flags=re.M)
    return {letter: re.sub(r"[$\\]|sqrt|cdot", "", text) for letter, text in found}


def _option_lengths(assignment, cell, correct, mistakes) -> dict[str, int]:
    """Checks every choice question shares: a-d, each wrong option a registry misconception."""
    from attention_lab import misconceptions

    options = _options(cell.source)
    assert sorted(options) == list("abcd"), (assignment, cell.source)
    assert set(mistakes) == set(options) - {correct}, (assignment, mistakes)
    assert all(slug in misconceptions.REGISTRY for slug in mistakes.values())
    lengths = {letter: len(text) for letter, text in options.items()}
    assert max(lengths.values()) <= 1.3 * min(lengths.values()), (assignment, lengths)
    return lengths


def test_multiple_choice_distractors_are_registry_misconceptions_of_similar_length():
    letters = []
    for assignment, cell, correct, mistakes in _choice_questions_by_cell(CHAPTERS):
        lengths = _option_lengths(assignment, cell, correct, mistakes)
        assert lengths[correct] < max(lengths.values()), f"{assignment}: the longest is right"
        letters.append(correct)
    assert len(letters) >= 3 and len(set(letters)) == len(letters), letters


def test_inventory_items_are_registry_misconceptions_with_no_give_away():
    """Every item of both forms; the right letter is spread evenly and never the longest alone."""
    for form in INVENTORY:
        letters = []
        for _, cell, correct, mistakes in _choice_questions_by_cell([form]):
            lengths = _option_lengths(form, cell, correct, mistakes)
            longest = [k for k, v in lengths.items() if v == max(lengths.values())]
            assert longest != [correct], (
                f"{form}: the longest option is the right one\n{cell.source}"
            )
            letters.append(correct)
        assert 23 <= len(letters) <= 27, f"{form}: {len(letters)} items"
        counts = [letters.count(letter) for letter in "abcd"]
        assert max(counts) - min(counts) <= 1, (form, letters)
        assert all(a != b for a, b in zip(letters, letters[1:], strict=False)), (
            f"{form}: same letter twice: {letters}"
        )


def test_inventory_forms_are_parallel_not_verbatim():
    """Item k of both forms: the same grade id and misconceptions, another question and letter."""
    pre, post = (list(_choice_questions_by_cell([form])) for form in INVENTORY)
    assert [c.metadata["nbgrader"]["grade_id"] for _, c, _, _ in pre] == [
        c.metadata["nbgrader"]["grade_id"] for _, c, _, _ in post
    ]
    pre_tests, post_tests = (list(_choice_keys(form)) for form in INVENTORY)
    assert pre_tests == post_tests  # the gain report pairs items by test cell id
    for (_, a, key_a, mis_a), (_, b, key_b, mis_b) in zip(pre, post, strict=True):
        assert sorted(mis_a.values()) == sorted(mis_b.values()), (mis_a, mis_b)
        assert key_a != key_b, a.source
        stem_a, stem_b = (c.source.split("- **a)**")[0] for c in (a, b))
        assert stem_a != stem_b and not set(_options(a.source).values()) & set(
            _options(b.source).values()
        )


def test_inventory_covers_the_five_lessons():
    """One misconception per topic of issue 20 is offered on both forms."""
    topics = {
        "the bottleneck": "one_fixed_vector",
        "QKV as a soft lookup": "keys_as_values",
        "scaling": "divided_by_dk",
        "softmax": "sum_normalised",
        "masking": "mask_after_softmax",
        "cross-attention": "cross_attention_sources",
        "hard vs soft": "hard_attention",
        "learned weights": "importance_is_programmed",
        "word order": "order_aware_self_attention",
    }
    for form in INVENTORY:
        offered = {s for kw in _choice_keys(form).values() for s in kw["misconceptions"].values()}
        missing = {topic for topic, slug in topics.items() if slug not in offered}
        assert not missing, (form, missing)
        nb = _source_nb(form)
        graded = [c for c in _grade_cells(nb)]
        assert all(c.cell_type == "code" and c.metadata.nbgrader.points == 1 for c in graded)


def _choice_questions_by_cell(assignments):
    """Each a-d choice question's markdown cell, with its answer key from the hidden test."""
    for assignment in assignments:
        cells = _cells_by_id(_source_nb(assignment))
        keys = _choice_keys(assignment)
        for gid, kw in keys.items():
            index = list(cells).index(gid)
            question = next(
                c for c in reversed(list(cells.values())[:index]) if c.cell_type == "markdown"
            )
            yield assignment, question, kw["correct"], kw.get("misconceptions", {})


def _assigned_names(source: str) -> set[str]:
    """Names a cell assigns or defines (variables and functions)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
    return names


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_hidden_tests_read_only_answers_and_their_own_literals(assignment):
    """A hidden test never reads a name the notebook defines, except the answers themselves
    and what a cell drawing each student's numbers binds (always the grader's own run of it).

    So reassigning K, V, a query or a helper in the notebook cannot change what it compares
    against (the accuracy suite grades such notebooks).
    """
    from attention_grader.execution.variant_grading import variant_names

    nb = _source_nb(assignment)
    drawn = variant_names(
        {
            c.metadata["nbgrader"]["grade_id"]: c.source
            for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("locked")
        }
    )
    answers = set()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("solution"):
            answers |= _assigned_names(cell.source.replace("### BEGIN SOLUTION", ""))
    for cell in _grade_cells(nb):
        if cell.cell_type != "code":
            continue
        hidden = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
        read = {
            node.id
            for node in ast.walk(ast.parse(hidden))
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        }
        strays = read - answers - drawn - {"checks", "True", "False", "None"}
        assert not strays, f"{cell.metadata['nbgrader']['grade_id']} reads {sorted(strays)}"
