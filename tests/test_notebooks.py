"""The lesson notebooks: structure (fast, unexecuted), then every lesson executed top to bottom
headless with nbclient, checking its key numbers in the outputs. Also: every notebook in the repo
is stored without outputs or execution counts.
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

from attention_lab import experiments
from attention_lab.examples import ISRO
from tests.support import figure_text
from tests.support.run_cache import once_per_run

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
LESSONS = (
    "00_start_here",
    "01_the_bottleneck",
    "02_query_key_value",
    "03_worked_examples",
    "04_masking_and_cross_attention",
    "05_misconceptions",
    "06_projections_heads_positions",
    "07_transformer_block",
)
ASSIGNMENTS = (
    "intro_attention",
    "practice_implement",
    "focus_in_the_noise",
    "heads_and_positions",
    "transformer_block",
)
# Which assignment each lesson's "Check yourself" sends the student to (00 names all three).
NEXT_ASSIGNMENT = {
    "01_the_bottleneck": "intro_attention",
    "02_query_key_value": "intro_attention",
    "03_worked_examples": "intro_attention",
    "04_masking_and_cross_attention": "practice_implement",
    "05_misconceptions": "focus_in_the_noise",
    "06_projections_heads_positions": "heads_and_positions",
    "07_transformer_block": "transformer_block",
}
WIDGETS = (
    "QueryExplorer.",
    "QueryRotation(",
    "HardSoftSlider(",
    "ProjectionSliders(",
    "TemperatureSlider(",
)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# The key numbers each lesson must print (chapters' values and measured results).
KEY_OUTPUTS = {
    "00_start_here": [
        "weight of 'Chandrayaan' on itself: computed 0.503 | chapter 0.503 ✓ agrees",
        # the rotation turns chapter B's query, not the tiffin one lesson 2 asks about (X4)
        "weights ISRO 0.422, launched 0.155, Chandrayaan 0.422; ISRO and Chandrayaan share",
    ],
    "01_the_bottleneck": [
        "RNNencdec-50: BLEU 17.82",
        "RNNsearch-50: BLEU 26.75",
        "learned numbers needed: additive 72 | dot product 0",
        "built in: query sharpening x20, exact position codes as keys",
        "numbers kept at 60 words: attention 7680, fixed memory 128",
        # "it" starts along tiffin's key, away from lesson 2's 45° prediction (X4)
        "QueryExplorer(query “it” = (2.000, 1.000), weights (0.831, 0.015, 0.112, 0.041)",
    ],
    "02_query_key_value": [
        "(1, 1) · (2, 1): computed 3 | chapter 3 ✓ agrees",
        "e^3: computed 20.086 | chapter 20.086 ✓ agrees",
        "sqrt(d_k) for d_k = 2: computed 1.4142 | chapter 1.4142 ✓ agrees",
        "divide by the sum: [ 0.6 -0.2  0.4  0.2]",
        # the 45° reveal (issue 27 item 1): the parallel key is not the winner
        "lined up best: it | largest score: tiffin",
        "weights at 45°: tiffin 0.610, bag 0.083, it 0.225, big 0.083",
        "|q| |k| cos θ = the scores q·k, tiffin, bag, it, big: computed [3, 1, 2, 1] | chapter",
        "QueryExplorer(query “it” = (1.000, 1.000)",
    ],
    "03_worked_examples": [
        "scaled scores (÷ 1.4142): computed [0.707, 0.707, 1.414]",
        "sum of the exponentials: computed 8.169 | chapter 8.169 ✓ agrees",
        "weights: computed [0.248, 0.248, 0.503] | chapter [0.248, 0.248, 0.503] ✓ agrees",
        "output for Chandrayaan: computed [0.993, 2.510] | chapter [0.993, 2.510] ✓ agrees",
        "scores tiffin, bag, it, big: computed [3, 1, 2, 1]",
        "total: computed 32.911 | chapter 32.911 ✓ agrees",
        "weights tiffin, bag, it, big: computed [0.610, 0.083, 0.225, 0.083]",
        "output for it: computed [3.91, 2.83] | chapter [3.91, 2.83] ✓ agrees",
        # the chapters' own rounding paths: unrounded weight x value, then rounded (0.41, not 0.42)
        "0.083 × (5, 6) (weight 0.0826): computed [0.41, 0.50] | chapter [0.41, 0.50] ✓ agrees",
        "sum of the four rounded terms: computed [3.91, 2.83] | chapter [3.91, 2.83] ✓ agrees",
        "the three rounded terms add up to [0.992 2.508]",
        # the chapters' rounding notes (issue 27 item 9): B's 0.999, A's 100.1 %
        "the three weights rounded to 3 decimals add up to 0.999",
        "as percentages rounded to 0.1, they add up to 100.1 %",
        # order-blindness beside the matrix (item 10)
        "new matrix = old matrix with rows and columns reordered: True",
        "largest move of any word's output: measured 0.000.",
        "attention: 3 stages that wait, 8,388,608 multiplications",
        "row by row gives the same matrix: True",
    ],
    "04_masking_and_cross_attention": [
        "future weights exactly 0: True",
        "row 'it': ratio tiffin/bag before 7.3891, after 7.3891",
        "masked row of Chandrayaan: computed [0.248, 0.248, 0.503]",
        "di looks most at gave",
        "ko looks most at to",
        "chapter A's code: output for it: computed [3.91, 2.83] | chapter [3.91, 2.83] ✓ agrees",
        "chapter B's code: output for Chandrayaan: computed [0.993, 2.510] | chapter [0.993, 2.510]",
        "same as attention_lab: True",
    ],
    "05_misconceptions": [
        "soft attention output: computed [0.993, 2.510] | chapter [0.993, 2.510] ✓ agrees",
        "hard selection v[argmax] = v3: computed [0, 4] | chapter [0, 4] ✓ agrees",
        "hard: largest |d output/d query| 0.000, |d output/d keys| 0.000, "
        "|d output/d v1, v2, v3| [0. 0. 1.]",
        "hard output [0.000, 4.000]",
        "scores of B are the scores of A, reordered: True",
        "with a causal mask, no positions: largest change 0.798",
        # every key counts through the softmax sum (issue 27 item 4): tiffin's key never changed
        "tiffin: chapter's keys 0.610  ->  bag's key (2, 2) 0.237",
        # weight is not influence (issue 27 item 6)
        "largest weight change 0.528, largest output change 0.000",
    ],
    "06_projections_heads_positions": [
        # the bridge: identity projections give chapter A's scores, untouched
        "scores of 'it' with W_Q = W_K = I: computed [3, 1, 2, 1] | chapter [3, 1, 2, 1] ✓ agrees",
        "    it            0.703  0.042  0.171  0.084",  # lesson 6's weights, as a table (39)
        "W_Q at 0°, stretch 1.00 = [1.000, 0.000; 0.000, 1.000]",
        "head 1: it → its noun: 'it' looks most at tiffin (0.505)",
        "head 2: it → what it is: 'it' looks most at big (0.849)",
        "            concat: (4, 4)",
        "concat is (words, heads x d_v): True",
        "output has the shape of X: True",
        "position 2 (    it): PE = (0.909, -0.416)",
        "largest change, with positions: measured 2.691",
        "[0.999 0.999 0.999 0.999 1.   ]",
    ],
    "07_transformer_block": [
        "attention weights: shape (4, 16, 16) (heads, positions, positions)",
        # each part taken out, measured (issue 42 item 1)
        "with the residual: 0.79 of the positions keep themselves",
        "share, without the residual: measured 0.07.",
        "with layer norm, size after blocks 1-6:    [1. 1. 1. 1. 1. 1.]",
        "size after 6 blocks without layer norm: measured 21.1.",
        "whole block            loss 0.325",
        "loss without the feed-forward network: measured 0.439.",
        # the hand count of the original block
        "d_k = 512 / 8 = 64",
        "       total: 3,150,336",
        # temperature is lesson 2's beta
        "softmax(β·s), β = 2:  [0.867 0.117 0.016]",
        "softmax(s / T), T = 0.5: [0.867 0.117 0.016]",
        "largest change, with the mask: measured 0.000000.",
        # it learns in class: the loss and the text before and after (issue 42 item 3)
        "loss at step 1: 3.617, at step 300: 0.202",
        "'twinkleoe \\nrwlrhyu",
        "greedy:          'twinkle, twinkle, little star,\\nhow i wonder what you are!",
        "T = 1.00 (β = 1.00): most likely next characters r 0.988",
        "weight of the last position on the one before: measured 0.050.",
    ],
}


# --- your-turn exercises (issue 14) ----------------------------------------------------------------
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
ASSIGNMENT_NAMES = (
    "`intro_attention`",
    "`focus_in_the_noise`",
    "`practice_implement`",
    "`heads_and_positions`",
    "`transformer_block`",
)


def _tags(cell) -> list[str]:
    return list(cell.metadata.get("tags", []))


def _read(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)


def _code(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def _markdown(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "markdown"]


# --- structure (no kernel) ------------------------------------------------------------------------


def test_the_lessons_are_the_notebooks_in_teaching_order():
    assert tuple(sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))) == LESSONS


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_opens_with_goals_and_closes_with_check_yourself(name):
    nb = _read(name)
    md = _markdown(nb)
    assert nb.cells[0].cell_type == "markdown" and "Learning goals" in md[0]
    closing = md[-1]
    assert "## Check yourself" in closing
    if name == "00_start_here":
        start = "\n".join(md)
        for assignment in ASSIGNMENTS:
            assert f"`{assignment}`" in start, f"the start page must name {assignment}"
        for lesson in LESSONS[1:]:
            assert f"`{lesson}.ipynb`" in start, f"the path must list {lesson}"
    else:
        assert f"`{NEXT_ASSIGNMENT[name]}`" in closing


def test_the_concept_inventory_opens_and_closes_the_course():
    """The start page sends students to the pre-test first; the last lesson ends with the post-test."""
    start = "\n".join(_markdown(_read("00_start_here")))
    last = start.rstrip().splitlines()[-2:]
    assert "`inventory_pre`" in last[0] and "`01_the_bottleneck.ipynb`" in last[1], last
    assert start.index("`inventory_pre`") < start.index("`01_the_bottleneck.ipynb`")
    assert "`inventory_post`" in start
    closing = _markdown(_read(LESSONS[-1]))[-1]
    assert closing.index(f"`{NEXT_ASSIGNMENT[LESSONS[-1]]}`") < closing.index("`inventory_post`")
    assert "`inventory_post`" in closing.rstrip().split("\n\n")[-1]  # the last paragraph


@pytest.mark.parametrize("name", LESSONS)
def test_code_cells_are_short_calls_into_the_package(name):
    for src in _code(_read(name)):
        # Helpers live in attention_lab, never in a notebook.
        assert not re.search(r"^\s*(def|class) |lambda\s", src, re.M), src
        assert len(src.splitlines()) <= 15, f"code cell too long:\n{src}"
        for line in src.splitlines():
            if line.startswith(("import ", "from ")):
                assert re.match(
                    r"(import numpy as np|from attention_lab|import attention_lab)", line
                )


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_has_a_live_widget(name):
    code = "\n".join(_code(_read(name)))
    assert any(w in code for w in WIDGETS)


@pytest.mark.parametrize("name", LESSONS[1:])
def test_lesson_uses_static_inline_figures(name):
    assert _code(_read(name))[0].startswith("%matplotlib inline")


def _repo_notebooks() -> list[Path]:
    found = [*ROOT.glob("notebooks/**/*.ipynb"), *ROOT.glob("source/**/*.ipynb")]
    # notebooks/assignments/ held a student's fetched working copies before work/ (gitignored)
    student = ROOT / "notebooks" / "assignments"
    return sorted(
        p for p in found if ".ipynb_checkpoints" not in p.parts and not p.is_relative_to(student)
    )


def test_every_committed_notebook_is_stored_without_outputs():
    paths = _repo_notebooks()
    assert len(paths) >= len(LESSONS)
    dirty = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
                dirty.append(f"{path.relative_to(ROOT)} cell {i}")
        if "widgets" in nb.metadata:
            dirty.append(f"{path.relative_to(ROOT)}: saved widget state in metadata")
    assert not dirty, "clear outputs before committing: " + ", ".join(dirty)


@pytest.mark.parametrize("name", EXERCISE_LESSONS)
def test_every_exercise_is_followed_by_its_self_check(name):
    nb = _read(name)
    exercises = [i for i, cell in enumerate(nb.cells) if "exercise" in _tags(cell)]
    assert len(exercises) >= 3, f"{name}: at least three your-turn exercises"
    assert len(exercises) == len(MODEL_ANSWERS[name]), f"{name}: one model answer per exercise"
    for i in exercises:
        cell, check = nb.cells[i], nb.cells[i + 1]
        assert cell.cell_type == "code" and re.search(r"\bNone\b|\.\.\.", cell.source), (
            f"{name} cell {i}: an exercise is a code cell shipped with None/... placeholders"
        )
        assert check.cell_type == "code" and _tags(check) == ["self-check"], (
            f"{name} cell {i + 1}: an exercise is followed by its self-check cell"
        )
        # the assignments' checks, or exercise_checks / onramp_checks for what no assignment asks
        assert re.search(r"self_check\(\s*(exercise_|onramp_)?checks\.check_", check.source)
    shipped = "\n".join(c.source for c in nb.cells)
    for answer in MODEL_ANSWERS[name]:
        assert answer not in shipped, f"{name}: a model answer is in the shipped notebook"


@pytest.mark.parametrize("name", EXERCISE_LESSONS)
def test_each_lesson_asks_for_a_prediction_before_revealing(name):
    predictions = [c for c in _read(name).cells if "prediction" in _tags(c)]
    assert predictions, f"{name}: no prediction cell"
    for cell in predictions:
        assert "my_guess = None" in cell.source or "prediction_checkbox.value = True" in cell.source


def _check_yourself_questions(name: str) -> list[str]:
    closing = _markdown(_read(name))[-1]
    return re.split(r"^(?=\d+\. )", closing.split("## Check yourself", 1)[1], flags=re.M)[1:]


@pytest.mark.parametrize("name", ("00_start_here", *EXERCISE_LESSONS))
def test_every_check_yourself_question_has_an_answer_or_names_its_assignment(name):
    questions = _check_yourself_questions(name)
    assert len(questions) >= 3
    for question in questions:
        answered = "<details><summary>Show answer</summary>" in question
        # A question an assignment grades names it, and its answer is not given away here.
        graded = re.search(r"Graded: question \d+ of \*\*`(\w+)`\*\*", question)
        assert answered != bool(graded), (
            f"{name}: answer it, or say which assignment grades it:\n{question}"
        )
        if answered:
            assert question.count("<details>") == question.count("</details>") == 1
        else:
            assert f"`{graded.group(1)}`" in ASSIGNMENT_NAMES


# --- executed headless ----------------------------------------------------------------------------


async def _execute_all(names: tuple[str, ...], folder: Path, parallel: int, prepare=None) -> None:
    """Execute the lessons, ``parallel`` kernels at a time, into ``folder``: each executed
    notebook and the text its kernel drew into figures (:func:`_saved`); ``prepare(name, nb)``
    edits a lesson first.
    """
    gate = asyncio.Semaphore(parallel)

    async def run(name):
        nb = _read(name)
        if prepare is not None:
            prepare(name, nb)
        client = NotebookClient(
            nb,
            timeout=180,
            kernel_name="python3",
            resources={"metadata": {"path": str(NOTEBOOKS)}},
            # As `make html` runs them: no saved widget state, so exports use the widgets' PNGs.
            store_widget_state=False,
            # One broken lesson fails its own tests (which look for error outputs), not all.
            allow_errors=True,
        )
        async with gate:
            # The kernel also logs the text it draws into figures (heatmap numbers are pixels).
            await client.async_execute(env=figure_text.kernel_env(_saved(folder, name)[1]))
        nbformat.write(nb, _saved(folder, name)[0])

    await asyncio.gather(*(run(n) for n in names))


def _saved(folder: Path, name: str) -> tuple[Path, Path]:
    """Where a lesson run keeps lesson ``name``: the executed notebook, its figures' text."""
    return folder / f"{name}.ipynb", folder / f"{name}.figure-text.txt"


@dataclass(frozen=True)
class LessonRun:
    """Lessons executed once per test run (tests/support/run_cache.py), as every process reads them."""

    notebooks: dict[str, nbformat.NotebookNode]
    #: lesson -> every string its kernel drew into a figure, one per line
    drawn: dict[str, str]


def _lesson_run(key: str, names: tuple[str, ...], prepare=None) -> LessonRun:
    def build(folder: Path) -> None:
        asyncio.run(_execute_all(names, folder, parallel=2, prepare=prepare))

    def read(folder: Path) -> LessonRun:
        saved = {name: _saved(folder, name) for name in names}
        return LessonRun(
            notebooks={n: nbformat.read(nb, as_version=4) for n, (nb, _) in saved.items()},
            drawn={n: figure_text.drawn_text(log) for n, (_, log) in saved.items()},
        )

    return once_per_run(key, build, read)


def executed() -> dict[str, nbformat.NotebookNode]:
    """Every lesson executed once per test run (two kernels at a time: CI has two cores)."""
    return _lesson_run("lessons", LESSONS).notebooks


def drawn_text(name: str) -> str:
    """The text the executed lesson ``name`` drew into its figures, one string per line."""
    return _lesson_run("lessons", LESSONS).drawn[name]


def _outputs(nb):
    for cell in nb.cells:
        if cell.cell_type == "code":
            yield from cell.outputs


def _assert_ran_without_errors(nb) -> None:
    errors = [o for o in _outputs(nb) if o.output_type == "error"]
    assert not errors, errors


def _text(nb) -> str:
    parts = []
    for out in _outputs(nb):
        if out.output_type == "stream":
            parts.append(out.text)
        elif "data" in out:
            parts.append(out.data.get("text/plain", ""))
    return "\n".join(parts)


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_lesson_runs_and_prints_its_key_numbers(name):
    nb = executed()[name]
    _assert_ran_without_errors(nb)
    stderr = [o.text for o in _outputs(nb) if o.output_type == "stream" and o.name == "stderr"]
    assert not stderr, f"warnings printed in the lesson: {stderr}"
    text = _text(nb)
    for key in KEY_OUTPUTS[name]:
        assert key in text, f"{name}: missing {key!r}"
    assert "DIFFERS" not in text
    # A number that rounds differently from the chapter's is never shown as agreeing.
    assert "half-way" not in text
    # Every chapter-check table ends with its summary, and all agree.
    assert not re.search(r"\d+ of \d+ numbers differ", text)


@pytest.mark.slow
def test_measured_claims_show_in_the_lessons():
    text = _text(executed()["01_the_bottleneck"])
    rows = re.findall(r"^\s+(\d+)\s+([\d.]+)\s+([\d.]+)$", text, re.M)
    fixed = [float(r[1]) for r in rows]
    attn = [float(r[2]) for r in rows]
    assert len(rows) >= 5 and fixed[0] >= 0.95 and fixed[-1] <= 0.4 and min(attn) >= 0.95
    text = _text(executed()["05_misconceptions"])
    slopes = [float(x) for x in re.findall(r"largest \|slope\| hard\s+([\d.]+)", text)]
    assert len(slopes) == 2 and slopes[1] == pytest.approx(10 * slopes[0])
    # The first slope printed is the tallest spike of the plotted curve (output x, 1° grid).
    plotted = experiments.hard_vs_soft_sweep(ISRO.K, ISRO.V, radius=2.0)
    assert slopes[0] == pytest.approx(np.abs(plotted.hard_slope[:, 0]).max(), abs=0.005)


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_widgets_and_figures_have_static_images_and_captions(name):
    nb = executed()[name]
    cells = nb.cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
        for out in cell.outputs:
            if WIDGET_VIEW in out.get("data", {}):
                # Static fallback: a PNG of the widget's default state beside the widget view.
                png = base64.b64decode(out.data["image/png"])
                assert png.startswith(b"\x89PNG"), f"{name} cell {i}: widget without a PNG"
        if images:
            caption = cells[i + 1] if i + 1 < len(cells) else None
            assert caption is not None and caption.cell_type == "markdown"
            assert caption.source.startswith("*Figure"), f"{name} cell {i}: figure without caption"


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_static_html_shows_every_widget_and_figure_as_an_image(name):
    nb = executed()[name]
    images = sum("image/png" in o.get("data", {}) for o in _outputs(nb))
    widgets = sum(WIDGET_VIEW in o.get("data", {}) for o in _outputs(nb))
    assert widgets >= 1
    html, _ = HTMLExporter(template_name="lab").from_notebook_node(
        nb, resources={"metadata": {"name": name, "path": str(NOTEBOOKS)}}
    )
    # One <img> per figure and per widget, and no widget view that would need a live kernel.
    assert html.count('src="data:image/png;base64,') == images
    assert WIDGET_VIEW not in html


def _self_check_lines(nb) -> list[list[str]]:
    """What each self-check cell printed, one list of lines per cell."""
    printed = []
    for cell in nb.cells:
        if "self-check" in _tags(cell):
            text = "".join(o.text for o in cell.outputs if o.output_type == "stream")
            printed.append([line for line in text.splitlines() if line.strip()])
    return printed


@pytest.mark.slow
@pytest.mark.parametrize("name", EXERCISE_LESSONS)
def test_exercises_left_as_shipped_say_not_yet_and_run_to_the_end(name):
    for lines in _self_check_lines(executed()[name]):
        assert lines and all(line.startswith("not yet: ") for line in lines), lines


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
        if "exercise" in _tags(cell):
            code = _PROBE_CODE.format(names=exercise_names(cell.source), probe=PROBE, index=i)
            probes.append((i + 1, nbformat.v4.new_code_cell(code)))
            cell.source = next(answers)
    for after, probe in reversed(probes):
        nb.cells.insert(after + 1, probe)


def model_answer_values(name: str) -> list[tuple[int, str, np.ndarray]]:
    """(shipped exercise cell index, name, values) of every numeric model answer of a lesson."""
    found = []
    for out in _outputs(_executed_with_model_answers()[name]):
        for line in out.get("text", "").splitlines() if out.output_type == "stream" else []:
            if line.startswith(PROBE):
                index, var, values = json.loads(line[len(PROBE) :])
                found.append((index, var, np.asarray(values, dtype=float)))
    return found


def _executed_with_model_answers() -> dict[str, nbformat.NotebookNode]:
    """The exercise lessons with the model answers filled in, executed once per test run."""
    return _lesson_run("model-answers", EXERCISE_LESSONS, _fill_in_model_answers).notebooks


@pytest.mark.slow
@pytest.mark.parametrize("name", EXERCISE_LESSONS)
def test_model_answers_get_a_tick_from_every_self_check(name):
    nb = _executed_with_model_answers()[name]
    _assert_ran_without_errors(nb)
    printed = _self_check_lines(nb)
    assert len(printed) == len(MODEL_ANSWERS[name])
    for lines in printed:
        assert lines and all(line.startswith("✓ ") for line in lines), lines


def test_the_start_page_tells_a_lone_student_how_to_get_the_pre_test():
    """Issue 29: a laptop student sent to the Assignment List found "There are no assignments to
    fetch". The start page names the list as JupyterLab does and the command that fills it.
    """
    import subprocess

    text = "\n".join(c.source for c in _read("00_start_here").cells)
    assert "*Assignments* tab" not in text and "Nbgrader → Assignment List" in text
    assert text.count("make release A=inventory_pre") >= 2  # where it is explained, and at the end
    # the students' copy (make student-dist) has every assignment released: no command (39)
    assert "`make student-dist`" in text and "already in the Assignment List" in text
    dry = subprocess.run(["make", "-n", "release", "A=inventory_pre"], cwd=ROOT,
                         capture_output=True, text=True)  # fmt: skip
    assert dry.returncode == 0 and 'release "inventory_pre"' in dry.stdout
