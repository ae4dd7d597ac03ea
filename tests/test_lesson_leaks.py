"""No lesson gives a graded answer away (issue 14, item 8).

The answers come from the assignments themselves, not from a list kept here: each
``source/*/*.ipynb`` is run cell by cell with its solutions in place, while its hidden-test
blocks run against a recorder instead of ``attention_lab.checks``. Every numeric answer is taken
both from the solution (the variable the hidden test checks) and from the hidden test's inputs,
recomputed with ``attention_lab``; the two must agree. The lessons, executed once by
tests/support/lesson_run.py, are then searched for those numbers in the ways a lesson prints
them (lists, numpy arrays, 2 or 3 decimals, percentages, heatmap cells), in every output, in the
text drawn into figures, in markdown and in code; and for the lines of the assignments' code
solutions and the sentences of their model answers.

A deliberately leaking scratch notebook proves the search finds what it is meant to find.

Softer leaks (issue 27, item 11): a lesson's markdown that restates a written model answer in
shorter runs of words (its recap, say), and an explorer the students' guide advertises whose
readout shows a graded answer when the student picks another token.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from attention_lab import QueryExplorer, attention, checks, dot_product_scores, softmax
from attention_lab.examples import ISRO, TIFFIN
from attention_lab.heads import TIFFIN_HEADS, TIFFIN_W_O, multi_head_attention
from attention_lab.projections import projected_attention
from tests.support import figure_text
from tests.support.lesson_run import LESSONS, NOTEBOOKS, ROOT, drawn_text, executed
from tests.support.model_answers import EXERCISE_LESSONS, model_answer_values

SOURCES = sorted(ROOT.glob("source/*/*.ipynb"))
HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
SOLUTION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)

# What each value check of a hidden test expects, recomputed from the inputs the test passes.
RECOMPUTE = {
    "check_scores": lambda a: dot_product_scores(a["query"], a["keys"], scale=a["scale"]),
    "check_weights": lambda a: softmax(dot_product_scores(a["query"], a["keys"], a["scale"])),
    "check_output": lambda a: attention(a["query"], a["keys"], a["values"], scale=a["scale"])[0],
    "check_projection": lambda a: np.asarray(a["X"], dtype=float) @ np.asarray(a["W"], dtype=float),
    "check_head_weights": lambda a: _head(a).weights[_row(a)],
    "check_head_output": lambda a: _head(a).output[_row(a)],
}


def _head(a: dict):
    """Lesson 6's projected head for a layer check's arguments (W_V defaults to the identity)."""
    w_v = a.get("W_V", np.eye(np.shape(a["X"])[1]))
    return projected_attention(a["X"], a["W_Q"], a["W_K"], w_v, positions=a.get("positions"))


def _row(a: dict):
    return slice(None) if a.get("row") is None else a["row"]


@dataclass(frozen=True)
class GradedNumbers:
    """One numeric answer of an assignment."""

    assignment: str
    name: str
    values: np.ndarray
    #: Drawn per student (issue 41): ``values`` are the practice numbers' (a laptop's), and only
    #: the whole answer counts as shown. One number of small whole-number draws turns up in
    #: lessons by chance (0.187, 0.002): no student could tell it from any other.
    varied: bool = False


class _Recorder:
    """Stands in for ``attention_lab.checks``: records each call with its named arguments."""

    def __init__(self):
        self.calls: list[tuple[str, dict]] = []

    def __getattr__(self, attr: str):
        if attr in ("tells_apart", "heads_tell_apart"):  # a variant generator's, not a test's
            return getattr(checks, attr)
        signature = inspect.signature(getattr(checks, attr))

        def record(*args, **kwargs):
            self.calls.append((attr, dict(signature.bind(*args, **kwargs).arguments)))

        return record


def _numeric(value) -> np.ndarray | None:
    if isinstance(value, str | bool | type(None)) or callable(value):
        return None
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return arr if arr.size and np.isfinite(arr).all() else None


def _run_assignment(path: Path) -> list[tuple[str, dict]]:
    """Run an assignment's setup and solution cells, and its hidden tests into a recorder."""
    namespace: dict = {"__name__": f"assignment_{path.stem}"}
    recorder = _Recorder()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        blocks = HIDDEN.findall(cell.source)
        for block in blocks or [cell.source]:
            namespace["checks"] = recorder
            exec(compile(block, f"{path.name}", "exec"), namespace)  # our own file
    return recorder.calls


def _graded_numbers() -> list[GradedNumbers]:
    from attention_lab import variants

    found = []
    other = variants.StudentSeed.from_key(bytes(32), "another-student")
    for path in SOURCES:
        calls = _run_assignment(path)  # the practice numbers (no seed here)
        with variants.graded_as(other):
            theirs = _run_assignment(path)
        for (check, args), (_, their_args) in zip(calls, theirs, strict=True):
            name = args.get("name", check)
            answer = _numeric(next(iter(args.values())))  # the solution's value
            their = _numeric(next(iter(their_args.values())))
            varied = answer is not None and not (
                their is not None and their.shape == answer.shape and np.allclose(their, answer)
            )
            if check in RECOMPUTE:
                recomputed = np.asarray(RECOMPUTE[check](args), dtype=float)
                assert answer is not None and np.allclose(answer, recomputed, atol=6e-3), (
                    f"{path.stem}: the solution of {name} is not what its hidden test expects"
                )
                found.append(GradedNumbers(path.stem, name, recomputed.reshape(-1), varied))
            elif answer is not None:
                found.append(GradedNumbers(path.stem, name, answer.reshape(-1), varied))
    return found


def _vector(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def _choice_question_scores() -> list[GradedNumbers]:
    """The raw scores behind a choice question that names a query and its keys (focus Q1: "which
    key scores highest?"): a lesson printing them for the same query and keys gives it away.
    """
    found = []
    vector = r"\$%s = \[([^\]]+)\]\$"
    for path in SOURCES:
        for cell in nbformat.read(path, as_version=4).cells:
            query = re.search(vector % "q", cell.source)
            keys = re.findall(vector % r"k_\d", cell.source)
            if cell.cell_type == "markdown" and query and len(keys) > 1:
                scores = dot_product_scores(_vector(query[1]), [_vector(k) for k in keys], False)
                name = cell.metadata.get("nbgrader", {}).get("grade_id", "question")
                found.append(GradedNumbers(path.stem, f"{name} (its raw scores)", scores))
    return found


GRADED = _graded_numbers() + _choice_question_scores()


def _solution_blocks(cell_type: str):
    """(assignment, text) of every solution block in the assignments' cells of ``cell_type``."""
    for path in SOURCES:
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == cell_type:
                for block in SOLUTION.findall(cell.source):
                    yield path.stem, block


def _solution_lines() -> list[tuple[str, str]]:
    """(assignment, line) for every substantial line of a code solution."""
    lines = []
    for assignment, block in _solution_blocks("code"):
        for line in block.splitlines():
            code = " ".join(line.split("#")[0].split())
            if len(code) >= 20:
                lines.append((assignment, code))
    return lines


def _model_answer_phrases(words: int = 9) -> list[tuple[str, str]]:
    """(assignment, run of ``words`` words) from every written model answer and rubric."""
    phrases = []
    for assignment, block in _solution_blocks("markdown"):
        tokens = re.findall(r"[\w.'’-]+", block.replace("**", ""))
        for i in range(len(tokens) - words + 1):
            phrases.append((assignment, " ".join(tokens[i : i + words])))
    return phrases


# --- how a lesson would print a number --------------------------------------------------------


def _spellings(x: float, decimals: int) -> list[str]:
    """``0.401`` at 3 decimals -> ``0.401``; ``2.0`` -> ``2.000``, ``2.00``, ``2.0``, ``2.``, ``2``."""
    text = f"{x:.{decimals}f}"
    found = {text, text.rstrip("0")}
    found |= {s.rstrip(".") for s in found if s.endswith(".")}
    if text.startswith(("0.", "-0.")):
        found.add(text.replace("0.", ".", 1))
    return sorted(found, key=len, reverse=True)


def _number(x: float, decimals: int) -> str:
    alternatives = "|".join(re.escape(s) for s in _spellings(x, decimals))
    return rf"(?<![\d.])(?:{alternatives})(?![\d])"


def _worked_example_numbers() -> set[str]:
    """Numbers the chapters' worked examples print, which every lesson may show (3 decimals)."""
    shown = set()
    for example in (ISRO, TIFFIN):
        q = example.query()
        output, weights = attention(q, example.K, example.V, scale=example.scale)
        for arr in (
            dot_product_scores(q, example.K, scale=False),
            dot_product_scores(q, example.K, scale=True),
            weights,
            output,
        ):
            shown |= {f"{abs(x):.3f}" for x in arr}
    return shown


ALLOWED_SINGLES = _worked_example_numbers()


def leak_patterns(numbers: GradedNumbers) -> list[re.Pattern]:
    """Regular expressions matching ``numbers`` as a lesson would print them."""
    values = numbers.values
    integers = bool(np.allclose(values, np.round(values)))
    patterns = []
    for decimals in (2, 3):
        parts = [_number(x, decimals) for x in values]
        sequence = r"[\s,;|]+".join(parts)
        if integers:  # "2, 0" alone could be a query (2, 0): only a printed list or array
            patterns.append(rf"\[\s*{sequence}\s*\]")
        elif len(values) > 1:
            patterns.append(sequence)
            patterns.append(r"[\s,;|]+".join(rf"{p}\s*%" for p in _percent_parts(values)))
    if not integers and not numbers.varied:
        for x in values:
            if f"{abs(x):.3f}" not in ALLOWED_SINGLES and not np.isclose(x, np.round(x)):
                patterns.append(_number(x, 3))  # a number of the answer no example explains
    return [re.compile(p) for p in patterns if p]


def _percent_parts(values: np.ndarray) -> list[str]:
    if not ((values >= 0) & (values <= 1)).all():
        return []
    return [_number(100 * x, 1) for x in values]


def find_leaks(text: str) -> list[str]:
    """Every graded number, code-solution line and model-answer phrase found in ``text``."""
    found = []
    for numbers in GRADED:
        for pattern in leak_patterns(numbers):
            match = pattern.search(text)
            if match:
                found.append(f"{numbers.assignment}'s {numbers.name}: {match.group(0)!r}")
    flat = " ".join(text.split())
    for assignment, line in _solution_lines():
        if line in flat:
            found.append(f"{assignment}'s solution line {line!r}")
    words = " ".join(re.findall(r"[\w.'’-]+", text.replace("**", "")))
    for assignment, phrase in _model_answer_phrases():
        if phrase in words:
            found.append(f"{assignment}'s model answer: {phrase!r}")
    return found


def notebook_text(nb, drawn: str) -> str:
    """Markdown, code, every text output and the text ``drawn`` into figures of an executed
    notebook.
    """
    parts = []
    for cell in nb.cells:
        parts.append(cell.source)
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type == "error":
                parts.append("\n".join(out.traceback))
            for mime in ("text/plain", "text/html", "text/markdown", "text/latex"):
                parts.append(str(out.get("data", {}).get(mime, "")))
    parts.append(drawn)
    return "\n".join(parts)


# --- the tests ---------------------------------------------------------------------------------


def test_the_answers_come_from_every_assignment():
    # The three questions the issue names, among others: a regression in the parser fails here.
    names = {(g.assignment, g.name) for g in GRADED}
    assert {
        ("intro_attention", "q1_scores"),
        ("focus_in_the_noise", "launched_scores"),
        ("focus_in_the_noise", "launched_weights"),
        ("focus_in_the_noise", "launched_output"),
    } <= names
    assert ("focus_in_the_noise", "q1_question (its raw scores)") in names
    weights = next(g for g in GRADED if g.name == "launched_weights")
    assert np.allclose(weights.values, PRACTICE_WEIGHTS)  # the practice variant's (a laptop's)
    assert weights.varied  # each student's own, so only the whole answer counts as shown
    assert not next(g for g in GRADED if g.name == "q1_scores").varied
    assert {a for a, _ in _solution_lines()} >= {"practice_implement"}
    # every assignment with written answers (the concept inventory has none: choices only)
    written = {p.stem for p in SOURCES if "Model answer" in p.read_text()}
    assert written >= {"intro_attention", "focus_in_the_noise", "practice_implement"}
    assert {a for a, _ in _model_answer_phrases()} == written


def _practice_q3():
    """focus_in_the_noise Q3 on the practice numbers (what every laptop without the hub shows)."""
    from attention_lab import variants

    path = next(p for p in SOURCES if p.stem == "focus_in_the_noise")
    cell = next(
        c.source
        for c in nbformat.read(path, as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "isro_data"
    )
    scope: dict = {"checks": checks, "np": np, "print": lambda *a, **k: None}
    with variants.graded_as(variants.PRACTICE):
        exec(compile(cell, path.name, "exec"), scope)  # our own file
    Q, K, V = scope["Q"], scope["K"], scope["V"]
    s = K @ Q[1] / np.sqrt(2)
    w = np.exp(s) / np.exp(s).sum()
    return Q, K, V, s, w, w @ V


PRACTICE_Q, PRACTICE_K, PRACTICE_V, PRACTICE_S, PRACTICE_WEIGHTS, PRACTICE_OUT = _practice_q3()


@pytest.mark.parametrize(
    "shown",
    [
        f"weights {np.round(PRACTICE_WEIGHTS, 3)}",
        str(np.round(PRACTICE_WEIGHTS, 2).tolist()),
        "\n".join(f"{x:.2f}" for x in PRACTICE_WEIGHTS),
        "output for launched = ({:.3f}, {:.3f})".format(*PRACTICE_OUT),
        ", ".join(f"{100 * x:.1f}%" for x in PRACTICE_WEIGHTS),
        f"scores: {np.round(PRACTICE_S, 3)}",
        "q1_scores = [2, 0]",
        "raw scores q3·k1, q3·k2, q3·k3: computed [1, 1, 2]",
        "return np.tril(np.ones((n, n), dtype=bool))",
    ],
)
def test_the_search_finds_an_answer_however_it_is_printed(shown):
    assert find_leaks(shown)


@pytest.mark.parametrize(
    "shown",
    [
        "scaled scores [0.707, 0.707, 1.414], weights [0.248, 0.248, 0.503], output [0.993, 2.510]",
        "weights tiffin 0.610, bag 0.083, it 0.225, big 0.083; output (3.91, 2.83)",
        "the query (2, 0) and the key (0, 3)",
        # one number of a drawn answer, by chance: no student could tell it is hers
        f"a weight of {PRACTICE_WEIGHTS[1]:.3f} elsewhere",
    ],
)
def test_the_worked_examples_are_not_taken_for_answers(shown):
    assert not find_leaks(shown)


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_no_lesson_shows_a_graded_answer(name):
    leaks = find_leaks(notebook_text(executed()[name], drawn_text(name)))
    assert not leaks, f"{name} gives graded answers away: " + "; ".join(leaks)


@pytest.mark.slow
def test_a_leaking_notebook_is_caught(tmp_path):
    """A scratch lesson that prints "launched"'s practice weights and draws their heatmap."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "%matplotlib inline\n"
            "import numpy as np\n"
            "from attention_lab import attention, plots\n"
            f"Q, K, V = np.array({PRACTICE_Q.tolist()}), np.array({PRACTICE_K.tolist()}), "
            f"np.array({PRACTICE_V.tolist()})"
        ),
        nbformat.v4.new_code_cell(
            "_, w = attention(Q, K, V)\ntokens = ['ISRO', 'launched', 'Chandrayaan']\n"
            "plots.attention_heatmap(w, tokens, tokens).figure"
        ),
        nbformat.v4.new_code_cell("print(np.round(w[1], 3))"),
    ]
    client = NotebookClient(nb, timeout=120, kernel_name="python3")
    log = tmp_path / "figure-text.txt"
    client.execute(env=figure_text.kernel_env(log))
    drawn = figure_text.drawn_text(log)
    assert f"{PRACTICE_WEIGHTS[1]:.3f}" in drawn  # the heatmap cells were recorded
    leaks = find_leaks(notebook_text(nb, drawn))
    assert any("launched_weights" in leak for leak in leaks), leaks
    # The heatmap alone, without the printed row, is still caught (its cells, 2 decimals).
    nb.cells[2].outputs = []
    nb.cells[2].source = ""
    assert any("launched_weights" in leak for leak in find_leaks(notebook_text(nb, drawn)))


def test_lessons_are_the_ones_scanned():
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == sorted(LESSONS)


# --- softer leaks (issue 27, item 11) ----------------------------------------------------------

# Written answers to the chapters' own questions. practice_implement's written exercises are
# open-ended (a paragraph on a lab's use of attention, a concept map), so any correct lesson text
# about the same mechanism shares short phrases with them; the 9-word search above covers them.
RESTATED_ANSWERS = ("intro_attention", "focus_in_the_noise")
RESTATEMENT_WORDS = 7
STUDENT_GUIDE = ROOT / "docs" / "students.md"


def _words(text: str) -> list[str]:
    """Lower-case words, with markdown, code marks and ``d_k``-style underscores dropped."""
    return re.findall(
        r"[a-z0-9]+", text.replace("**", "").replace("`", "").replace("_", "").lower()
    )


def _model_answer_runs(words: int = RESTATEMENT_WORDS) -> list[tuple[str, str]]:
    """(assignment, run of ``words`` words) of the model answers (not the rubrics)."""
    runs = []
    for assignment, block in _solution_blocks("markdown"):
        if assignment in RESTATED_ANSWERS:
            tokens = _words(block.split("**Rubric")[0].replace("Model answer.", ""))
            runs += [
                (assignment, " ".join(tokens[i : i + words]))
                for i in range(len(tokens) - words + 1)
            ]
    return runs


def restatements(markdown: str) -> list[str]:
    """Each run of a model answer's words that ``markdown`` repeats."""
    text = f" {' '.join(_words(markdown))} "
    return sorted({f"{a}: {run!r}" for a, run in _model_answer_runs() if f" {run} " in text})


def test_the_restatement_search_finds_a_recap_that_paraphrases_a_model_answer():
    # lesson 5's old recap, which restated focus_in_the_noise Q4's model answer
    old_recap = (
        "- Every word produces a query, a key and a value; a weight depends only on the query "
        "and the keys, and the values decide what is blended (chapter B's active recall)."
    )
    assert any("focus_in_the_noise" in r for r in restatements(old_recap))
    assert not restatements("A weight is not an influence: the values decide the output too.")


@pytest.mark.parametrize("name", LESSONS)
def test_no_lesson_restates_a_written_model_answer(name):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    found = restatements(markdown)
    assert not found, f"{name} restates model answers: " + "; ".join(found)


def explorer_text(preset: str) -> str:
    """What a preset explorer can show: every token's weights and output, to 3 decimals."""
    explorer = getattr(QueryExplorer, preset)()
    try:
        weights = explorer.weight_matrix
        outputs = weights @ explorer.model.V
        rows = [
            f"{np.round(w, 3)} -> {np.round(o, 3)}" for w, o in zip(weights, outputs, strict=True)
        ]
    finally:
        explorer.close()
    return "\n".join(rows)


@pytest.mark.slow
def test_the_chapters_example_is_no_answer_once_each_student_has_her_own_numbers():
    # "ISRO launched Chandrayaan" with the token "launched" picked was focus_in_the_noise Q3's
    # answer; since issue 41 each student computes it on her own numbers.
    leaks = find_leaks(explorer_text("isro"))
    assert not any("launched" in leak for leak in leaks), leaks


@pytest.mark.slow
def test_the_students_guide_advertises_no_explorer_that_shows_a_graded_answer():
    presets = sorted(set(re.findall(r"QueryExplorer\.(\w+)\(", STUDENT_GUIDE.read_text())))
    assert presets, "the guide shows no preset explorer any more: update this test"
    for preset in presets:
        leaks = find_leaks(explorer_text(preset))
        assert not leaks, f"docs/students.md: QueryExplorer.{preset}() shows " + "; ".join(leaks)


# --- a lesson's own questions (issue 38): nothing shows the answer before the cell that asks ----

# Answers that are, by the question's design, one of the inputs it lists: finding them is the task.
GIVEN_IN_THE_QUESTION = {
    ("05_misconceptions", "hard_output_chandrayaan"): "hard selection returns v3, one of the "
    "values the question lists; which one is the exercise",
}
REVEAL = re.compile(r"^(?P<what>.*?): measured (?P<value>-?\d+(?:\.\d+)?)\.", re.M)


def cell_text(cell) -> str:
    """A cell's source and the text of its outputs (streams, text/plain, html, markdown)."""
    parts = [cell.source]
    for out in cell.get("outputs", []):
        if out.output_type == "stream":
            parts.append(out.text)
        for mime in ("text/plain", "text/html", "text/markdown"):
            parts.append(str(out.get("data", {}).get(mime, "")))
    return "\n".join(parts)


def shown_before(nb, index: int) -> str:
    """Everything a student sees above cell ``index``: markdown (the figures' alt text is there),
    code and outputs.
    """
    return "\n".join(cell_text(c) for c in nb.cells[:index])


def own_answer_patterns(values: np.ndarray) -> list[re.Pattern]:
    """``values`` as a lesson would print them, whole: a number of several alone is no leak (the
    on-ramp's p = 0.25 is not the answer 0.25, 0.25, 0.25, 0.25, 0, 0).
    """
    if values.size > 1:
        return [p for p in leak_patterns(GradedNumbers("", "", values)) if "[\\s,;|]+" in p.pattern
                or p.pattern.startswith("\\[")]  # fmt: skip
    return leak_patterns(GradedNumbers("", "", values))


def early_answers(nb, answers) -> list[str]:
    """Each (index, name, values) whose values are shown above the cell that asks for them."""
    found = []
    for index, name, values in answers:
        text = shown_before(nb, index)
        for pattern in own_answer_patterns(values.reshape(-1)):
            match = pattern.search(text)
            if match:
                found.append(f"cell {index} asks for {name}, shown above it: {match.group(0)!r}")
                break
    return found


def prediction_answers(nb) -> list[tuple[int, str, np.ndarray]]:
    """(prediction cell index, what, the revealed number) for every predict-then-reveal."""
    found = []
    for i, cell in enumerate(nb.cells):
        if "prediction" not in cell.metadata.get("tags", []):
            continue
        for later in nb.cells[i + 1 :]:
            match = REVEAL.search(cell_text(later)) if later.cell_type == "code" else None
            if match:
                value = float(match["value"])
                found.append((i, match["what"].strip(), np.array([value])))
                break
    return found


def _worth_searching(values: np.ndarray) -> bool:
    """A revealed 0, 1 or 2 is in every lesson's text already: only other numbers can leak."""
    return not (
        values.size == 1 and np.isclose(values[0], np.round(values[0])) and abs(values[0]) <= 10
    )


def test_the_early_answer_search_finds_head_2s_row_printed_before_your_turn_4():
    """Issue 38's X1: lesson 6 printed head 2's weights for "it" above the exercise asking them."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "*Figure (alt text): the it row reads 0.050, 0.050, 0.050, 0.849*"
        ),
        nbformat.v4.new_code_cell("weights_it_head2 = None"),
    ]
    X, it = np.array(TIFFIN.K), TIFFIN.tokens.index("it")
    row = multi_head_attention(X, TIFFIN_HEADS, TIFFIN_W_O).heads[1].weights[it]
    answer = [(1, "weights_it_head2", row)]
    assert early_answers(nb, answer)
    nb.cells.reverse()  # asked first, shown after: fine
    assert not early_answers(nb, [(0, "weights_it_head2", answer[0][2])])


def test_the_prediction_search_reads_the_revealed_number():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("The loss stays near 1.024."),
        nbformat.v4.new_code_cell("my_guess = None", metadata={"tags": ["prediction"]}),
        nbformat.v4.new_code_cell("reveal(...)"),
    ]
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", text="loss: measured 1.024. You ...")]
    ((index, what, value),) = prediction_answers(nb)
    assert (index, what, value.tolist()) == (1, "loss", [1.024])
    assert early_answers(nb, [(index, what, value)])


@pytest.mark.slow
@pytest.mark.parametrize("name", EXERCISE_LESSONS)
def test_no_lesson_shows_its_own_answers_before_asking(name):
    """A your-turn answer or a prediction's reveal is not printed, plotted or described above it."""
    nb = executed()[name]
    predictions = [p for p in prediction_answers(nb) if _worth_searching(p[2])]
    answers = [a for a in model_answer_values(name) if (name, a[1]) not in GIVEN_IN_THE_QUESTION]
    leaks = early_answers(nb, answers) + early_answers(nb, predictions)
    assert not leaks, f"{name}: " + "; ".join(leaks)


# --- issue 38, X4 and X7: the 45° winner before lesson 2, reveal numbers under a prediction ----

_DETAILS = re.compile(r"<details>.*?</details>", re.S)


def _weights_at_45() -> np.ndarray:
    """Lesson 2's "who wins at 45°?": the weights of chapter A's query (1, 1), unscaled."""
    return attention(TIFFIN.query(), TIFFIN.K, TIFFIN.V, scale=False)[1]


def shows_the_45_degree_winner(text: str) -> list[str]:
    """Where ``text`` gives lesson 2's answer: its weights (3 decimals, or a row of 2)."""
    w = _weights_at_45()
    found = [f"{x:.3f}" for x in (w[0], w[2]) if re.search(_number(x, 3), text)]
    found += [m.group(0) for p in own_answer_patterns(w) if (m := p.search(text))]
    return found


def test_the_45_degree_search_finds_the_old_lesson_1_caption():
    old = 'a bar chart of the weights of "it" (tiffin 0.610, it 0.225, bag 0.083, big 0.083)'
    assert shows_the_45_degree_winner(old)
    assert shows_the_45_degree_winner("heatmap row it: 0.61 0.08 0.22 0.08")
    assert not shows_the_45_degree_winner("tiffin 0.831, bag 0.015, it 0.112, big 0.041")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["00_start_here", "01_the_bottleneck"])
def test_no_lesson_before_lesson_2_shows_the_45_degree_winner(name):
    """X4: lessons 0 and 1 showed the weights at (1, 1) before lesson 2 asks who wins there."""
    nb = executed()[name]
    assert not shows_the_45_degree_winner(notebook_text(nb, name))
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "45°" not in markdown  # no pointer to the angle lesson 2 asks about


def test_lesson_2_reveals_the_winner_at_45_degrees_only_after_its_check():
    """X4: the reveal sat in the markdown right under the widget, a scroll below the question."""
    cells = nbformat.read(NOTEBOOKS / "02_query_key_value.ipynb", as_version=4).cells
    ask = next(i for i, c in enumerate(cells) if "winner_at_45 = None" in c.source)
    assert "self-check" in cells[ask + 1].metadata.get("tags", [])
    # asked before any score is computed: tiffin's 3 against it's 2 would answer it
    computed = [c.source for c in cells[:ask] if c.cell_type == "code" and "import" not in c.source]
    assert not computed, computed
    reveal = next(
        i
        for i, c in enumerate(cells)
        if i > ask and c.cell_type == "code" and "weights_45" in c.source
    )
    between = [_DETAILS.sub("", c.source) for c in cells[ask:reveal] if c.cell_type == "markdown"]
    for text in between:
        assert not shows_the_45_degree_winner(text), text
        assert not re.search(r"tiffin\W* wins", text), text


def reveal_region_leaks(nb) -> list[str]:
    """X7: a prediction's revealed number in markdown outside ``<details>``, from the prediction
    to the end of the section the reveal is in (an alt text a scroll below the question).
    """
    found = []
    for i, cell in enumerate(nb.cells):
        if "prediction" not in cell.metadata.get("tags", []):
            continue
        reveal = next(
            (j for j in range(i + 1, len(nb.cells)) if nb.cells[j].cell_type == "code"
             and REVEAL.search(cell_text(nb.cells[j]))), None)  # fmt: skip
        if reveal is None:
            continue
        match = REVEAL.search(cell_text(nb.cells[reveal]))
        value = float(match["value"])
        if not _worth_searching(np.array([value])):
            continue
        end = next(
            (k for k in range(reveal + 1, len(nb.cells)) if nb.cells[k].cell_type == "markdown"
             and re.search(r"^#{1,2} ", nb.cells[k].source, re.M)), len(nb.cells))  # fmt: skip
        spelled = "|".join(_number(value, d) for d in (1, 2, 3))
        for k in range(i + 1, end):
            text = (
                _DETAILS.sub("", nb.cells[k].source) if nb.cells[k].cell_type == "markdown" else ""
            )
            hit = re.search(spelled, text)
            if hit:
                found.append(f"cell {k} shows {match['what'].strip()!r} ({hit.group(0)}), "
                             f"asked in cell {i}")  # fmt: skip
    return found


def test_the_reveal_region_search_finds_a_caption_under_the_prediction():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("my_guess = None", metadata={"tags": ["prediction"]}),
        nbformat.v4.new_code_cell("reveal(...)"),
        nbformat.v4.new_markdown_cell("*Figure (alt text): it falls to about 0.2 at 60 words.*"),
    ]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="recall: measured 0.228. ...")]
    assert reveal_region_leaks(nb)
    hidden = "<details><summary>Values</summary>about 0.2</details>"
    nb.cells[2].source = f"*Figure (alt text): it falls.* {hidden}"
    assert not reveal_region_leaks(nb)


def test_lesson_2s_scaled_your_turn_comes_before_the_explorer_that_computes_it():
    """X8: with the query sliders and the √d_k box the explorer's readout gives Your turn 4's
    scaled weights and output (q = (-1, 2)), so the exercise comes first.
    """
    cells = nbformat.read(NOTEBOOKS / "02_query_key_value.ipynb", as_version=4).cells
    asks = next(i for i, c in enumerate(cells) if "scaled_weights = None" in c.source)
    explorers = [
        i for i, c in enumerate(cells)
        if "QueryExplorer." in c.source and '"query"' in c.source and '"scale"' in c.source
    ]  # fmt: skip
    assert explorers, "lesson 2 has no explorer with query sliders and the √d_k box any more"
    assert asks < min(explorers), (asks, explorers)


# A reveal of 0 ("no change") is in every lesson's text as a number; said in words it still leaks.
NO_CHANGE = re.compile(
    r"\b(?:never|does not|doesn't|cannot|will not|won't) changes?\b|\bunchanged\b|\bstays? the same\b",
    re.I,
)


def no_change_said_before(nb) -> list[str]:
    """A prediction whose reveal is 0, with "never changes" said above it in its own section."""
    found = []
    for index, what, value in prediction_answers(nb):
        if not np.isclose(value[0], 0.0):
            continue
        start = max(
            (k for k in range(index) if nb.cells[k].cell_type == "markdown"
             and re.search(r"^#{1,3} ", nb.cells[k].source, re.M)), default=0)  # fmt: skip
        for k in range(start, index):
            cell = nb.cells[k]
            # the section starts at its heading: text above it in the same cell is another's
            text = re.split(r"^#{1,3} ", cell.source, flags=re.M)[-1] if k == start else cell.source
            hit = NO_CHANGE.search(text) if cell.cell_type == "markdown" else None
            if hit:
                found.append(f"cell {k} says {hit.group(0)!r} before cell {index} asks {what!r}")
    return found


def test_the_no_change_search_finds_lesson_7s_old_sentence():
    """Lesson 7 said "appending a character never changes what the earlier positions computed"
    right above the prediction of that largest change (reveal: 0.000000).
    """
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(
            "### Why\n\nWith it, appending a character never changes them."
        ),
        nbformat.v4.new_code_cell("my_guess = None", metadata={"tags": ["prediction"]}),
        nbformat.v4.new_code_cell("reveal(...)"),
    ]
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", text="change: measured 0.000000.")]
    assert no_change_said_before(nb)
    nb.cells[0].source = "### Why\n\nWhat is the largest change?"
    assert not no_change_said_before(nb)


@pytest.mark.slow
@pytest.mark.parametrize("name", EXERCISE_LESSONS)
def test_no_lesson_gives_a_reveal_away_in_the_text_around_its_prediction(name):
    """X7's numbers under a prediction, and a reveal of 0 said in words above it."""
    nb = executed()[name]
    leaks = reveal_region_leaks(nb) + no_change_said_before(nb)
    assert not leaks, f"{name}: " + "; ".join(leaks)
