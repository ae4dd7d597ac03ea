"""The lessons' your-turn exercises and their model answers, executed once per test run.

The model answers live here and never in a shipped notebook: tests/test_notebooks.py fills them
in and expects a tick from every self-check, and tests/test_lesson_leaks.py reads the values
each answer holds (printed by a probe cell after it) to search the lessons for them.
"""

from __future__ import annotations

import json
import re

import nbformat
import numpy as np
from nbformat.v4 import new_code_cell

from tests.support.lesson_run import lesson_run

# Each lesson below has at least three `exercise` cells (shipped with None placeholders), each
# followed by a `self-check` cell. The model answers, one per exercise cell and in order, live
# here and never in a shipped notebook: the test fills them in and expects a ✓ from every check.
EXERCISE_LESSONS = (
    "01_the_bottleneck",
    "02_query_key_value",
    "03_worked_examples",
    "04_masking_and_cross_attention",
    "05_misconceptions",
    "06_projections_heads_positions",
    "07_transformer_block",
)
MODEL_ANSWERS = {
    "01_the_bottleneck": [
        "scores = [1 * 3 + 2 * 1, 1 * 1 + 2 * 1, 1 * 0 + 2 * 2]",
        "a = softmax(H @ s)\nc = a[0] * H[0] + a[1] * H[1] + a[2] * H[2]",
        "scores2 = H @ s2\nc2 = softmax(scores2) @ H",
    ],
    "02_query_key_value": [
        'winner_at_45 = "tiffin"',  # asked first, before any score (issue 38, X4)
        "scores_it = [1 * 2 + 1 * 1, 1 * 0 + 1 * 1, 1 * 1 + 1 * 1, 1 * 1 + 1 * 0]",
        "long_key = [2, 2]",
        "scores_q = np.array([1, -1, 0, 1])\nweights_q = np.exp(scores_q) / np.exp(scores_q).sum()",
        "z = TIFFIN.K @ q_new / np.sqrt(2)\n"
        "scaled_weights = np.exp(z) / np.exp(z).sum()\noutput = scaled_weights @ TIFFIN.V",
    ],
    "03_worked_examples": [
        "chandrayaan_output = [0.248 * 1 + 0.248 * 3 + 0.503 * 0, 0.248 * 2 + 0.248 * 0 + 0.503 * 4]",
        "z = TIFFIN.K @ TIFFIN.query() / np.sqrt(2)\nweights_it_scaled = np.exp(z) / np.exp(z).sum()",
        "A = np.array([[1, 2], [3, 0]])\nB = np.array([[2, 1], [0, 1]])\nproduct = A @ B",
        "scores_new = ISRO.K @ q_new / np.sqrt(2)\n"
        "weights_new = np.exp(scores_new) / np.exp(scores_new).sum()\n"
        "output_new = weights_new @ ISRO.V",
    ],
    "04_masking_and_cross_attention": [
        "masked_scores_it = [3, 1, 2, -np.inf]",
        "masked_weights_it = np.exp(masked_scores_it) / np.exp(masked_scores_it).sum()",
        "s = np.where(mask[2], TIFFIN.K @ TIFFIN.query() / np.sqrt(2), -np.inf)\n"
        "masked_scaled_output_it = np.exp(s) / np.exp(s).sum() @ TIFFIN.V",
    ],
    "05_misconceptions": [
        "hard_output_chandrayaan = [0, 4]",
        "other_keys = np.array(TIFFIN.K)\n"
        'other_keys[TIFFIN.tokens.index("bag")] = [2.0, 2.0]\n'
        "e = np.exp(other_keys @ TIFFIN.query())\n"
        "weights_with_new_bag_key = e / e.sum()",
        "e = np.exp(swapped_keys @ TIFFIN.query())\noutput_after_swap = e / e.sum() @ equal_values",
        "reversed_keys, reversed_values = TIFFIN.K[::-1], TIFFIN.V[::-1]\n"
        "allowed = np.array([True, True, False, False])\n"
        "e = np.exp(reversed_keys @ TIFFIN.query()) * allowed\n"
        "output_it_reversed_masked = e / e.sum() @ reversed_values",
    ],
    "06_projections_heads_positions": [
        'x_it = X[TIFFIN.tokens.index("it")]\nq_it = [1 * 1 + 1 * 1, 1 * 0 + 1 * 1]',
        "Q = X @ LESSON_W_Q\nK = X @ LESSON_W_K\nV = X @ LESSON_W_V",
        "s = (X @ LESSON_W_Q) @ (X @ LESSON_W_K).T / np.sqrt(2)\n"
        "weights = np.exp(s) / np.exp(s).sum(axis=1, keepdims=True)",
        "head2 = TIFFIN_HEADS[1]\ns = (X @ head2.W_K) @ (X[it] @ head2.W_Q) / np.sqrt(2)\n"
        "weights_it_head2 = np.exp(s) / np.exp(s).sum()",
        "Xp = X + pe\ns = (Xp @ LESSON_W_Q) @ (Xp @ LESSON_W_K).T / np.sqrt(2)\n"
        "w = np.exp(s[it]) / np.exp(s[it]).sum()\noutput_it_with_positions = w @ (Xp @ LESSON_W_V)",
        "weights_start_3 = [0.25, 0.25, 0.25, 0.25, 0, 0]",
        "spotted = ['no transpose', 'positions after', 'raw vectors', 'shared W_Q']",
    ],
    "07_transformer_block": [
        "h_norm = (h - h.mean(axis=1, keepdims=True)) / np.sqrt(h.var(axis=1, keepdims=True) + 1e-5)",
        "added_and_normed = layer_norm(x + attn_out)",
        "n_block = 4 * 512 * 512 + (512 * 2048 + 2048 + 2048 * 512 + 512) + 2 * 2 * 512",
        'step_logits = run.model.logits(run.model.vocab.encode("how i wonder what you a"))\n'
        "next_probs = transformer.softmax_with_temperature(step_logits[-1], 0.5)",
    ],
}


PROBE = "ANSWER-PROBE "
_PROBE_CODE = """\
import json as _json
import numpy as _np
for _name in {names!r}:
    try:
        print({probe!r} + _json.dumps([{index}, _name, _np.asarray(globals()[_name], dtype=float).tolist()]))
    except (KeyError, TypeError, ValueError):
        pass
"""


def exercise_names(source: str) -> list[str]:
    """The names an exercise cell asks for: those it ships set to a None placeholder."""
    return re.findall(r"^(\w+) = .*\bNone\b", source, re.M)


def _fill_in_model_answers(name: str, nb) -> None:
    """Put each model answer in its exercise cell; after its self-check, a probe cell prints the
    answer's values (``PROBE`` + JSON [shipped cell index, name, values]) for the leak tests.
    """
    answers = iter(MODEL_ANSWERS[name])
    probes = []
    for i, cell in enumerate(nb.cells):
        if "exercise" in cell.metadata.get("tags", []):
            code = _PROBE_CODE.format(names=exercise_names(cell.source), probe=PROBE, index=i)
            probes.append((i + 1, new_code_cell(code)))
            cell.source = next(answers)
    for after, probe in reversed(probes):
        nb.cells.insert(after + 1, probe)


def model_answer_values(name: str) -> list[tuple[int, str, np.ndarray]]:
    """(shipped exercise cell index, name, values) of every numeric model answer of a lesson."""
    found = []
    cells = executed_with_model_answers()[name].cells
    for out in (o for c in cells if c.cell_type == "code" for o in c.outputs):
        for line in out.get("text", "").splitlines() if out.output_type == "stream" else []:
            if line.startswith(PROBE):
                index, var, values = json.loads(line[len(PROBE) :])
                found.append((index, var, np.asarray(values, dtype=float)))
    return found


def executed_with_model_answers() -> dict[str, nbformat.NotebookNode]:
    """The exercise lessons with the model answers filled in, executed once per test run."""
    return lesson_run("model-answers", EXERCISE_LESSONS, _fill_in_model_answers).notebooks
