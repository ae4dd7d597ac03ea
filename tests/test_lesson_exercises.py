"""The your-turn exercises of lessons 4 and 5 and the answers on demand of 00, 04 and 05.

Shipped blank, every self-check says "not yet"; with the model answers below put into the
exercise cells (they live here, never in a notebook), every self-check says ✓. Every "Check
yourself" question either has a collapsed worked answer or names the assignment that grades it.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient
from test_notebooks import NOTEBOOKS, executed

OURS = ("04_masking_and_cross_attention", "05_misconceptions")

# Model answers, by exercise cell id: what a student would write.
MODEL_ANSWERS = {
    "04-05": "masked_scores_it = [3, 1, 2, -np.inf]",
    "04-10": "masked_weights_it = np.exp(masked_scores_it) / np.exp(masked_scores_it).sum()",
    "04-20": (
        "s = np.where(mask[2], TIFFIN.K @ TIFFIN.query() / np.sqrt(2), -np.inf)\n"
        "masked_scaled_output_it = np.exp(s) / np.exp(s).sum() @ TIFFIN.V"
    ),
    "05-03": "hard_output_chandrayaan = [0, 4]",
    "05-18": (
        "other_keys = np.array(TIFFIN.K)\n"
        'other_keys[TIFFIN.tokens.index("bag")] = [2.0, 2.0]\n'
        "e = np.exp(other_keys @ TIFFIN.query())\n"
        "weights_with_new_bag_key = e / e.sum()"
    ),
    "05-22": (
        "reversed_keys, reversed_values = TIFFIN.K[::-1], TIFFIN.V[::-1]\n"
        "e = np.exp(reversed_keys @ TIFFIN.query())\n"
        "output_it_reversed = e / e.sum() @ reversed_values"
    ),
}


def _self_check_lines(nb) -> list[str]:
    lines = []
    for cell in nb.cells:
        if "self-check" in cell.metadata.get("tags", []):
            text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
            lines.append(text.strip())
    return lines


@pytest.mark.slow
@pytest.mark.parametrize("name", OURS)
def test_shipped_exercises_run_and_say_not_yet(name):
    lines = _self_check_lines(executed()[name])
    assert len(lines) >= 3
    assert all(line.startswith("not yet:") and "\n" not in line for line in lines), lines


@pytest.mark.slow
@pytest.mark.parametrize("name", OURS)
def test_model_answers_pass_every_self_check(name):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    exercises = [c for c in nb.cells if "exercise" in c.metadata.get("tags", [])]
    assert len(exercises) >= 3
    for cell in exercises:
        cell.source = MODEL_ANSWERS[cell.id]
    NotebookClient(
        nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute()
    lines = _self_check_lines(nb)
    assert len(lines) == len(exercises)
    assert all(line.startswith("✓") for line in lines), lines


def test_no_model_answer_ships_in_a_lesson():
    for name in OURS:
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        for cell in nb.cells:
            if "exercise" in cell.metadata.get("tags", []):
                assert re.search(r"\bNone\b", cell.source), f"{name} {cell.id} ships filled in"


@pytest.mark.parametrize("name", ("00_start_here", *OURS))
def test_every_check_yourself_question_has_an_answer_or_names_its_assignment(name):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    closing = nb.cells[-1].source
    section = closing[closing.index("## Check yourself") :]
    questions = re.split(r"^\d+\. ", section, flags=re.M)[1:]
    assert len(questions) >= 3
    for question in questions:
        answered = "<details><summary>Show answer</summary>" in question
        graded = re.search(r"Graded:\s+\*\*`\w+`\*\*", question)
        assert answered != bool(graded), f"{name}: {question[:80]!r}"
        if answered:
            assert question.count("</details>") == 1
