"""The nbgrader assignments under source/, released, autograded and fed back on a course copy.

The assignments (the chapters' and the two forms of the concept inventory) are released with the
course's own ``nbgrader_config.py``, a batch of submissions per assignment is handed in (the
source itself, the released blank, answers written differently, and buggy answers that carry
the course map's misconceptions, several per notebook in different questions:
tests/support/assignment_answers.py), graded by ``make grade`` and fed back, in the class the accuracy
suite reads too (tests/support/source_class.py, graded once per run). The tests then read the scores,
the feedback HTML and the released notebooks.
"""

from __future__ import annotations

import ast
import html
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from attention_lab.checks import MISCONCEPTIONS
from tests.support.assignment_answers import (
    ASSIGNMENTS,
    BUGGY,
    CHAPTERS,
    INVENTORY,
    MOVED,
    cells_by_id,
    choice_keys,
)
from tests.support.graded_classes import finish_steps, start_steps
from tests.support.source_class import SOURCE_CLASS, assignment_students

ROOT = Path(__file__).resolve().parents[1]
#: the first reader grades tests/support/source_class.py's class, longer than pytest-timeout's
#: 600 s per test on a busy machine
pytestmark = [pytest.mark.timeout(1800)]


@pytest.fixture(scope="module")
def course(shared_class, tmp_path_factory):
    """Every assignment released, handed in, graded and fed back (tests/support/source_class.py), and
    every source validated by ``nbgrader validate`` on a copy of the course meanwhile.
    """
    base = tmp_path_factory.mktemp("course")
    shutil.copy(ROOT / "nbgrader_config.py", base)
    shutil.copytree(ROOT / "source", base / "source")
    validating = start_steps(base, "validate", *(f"source/{a}/{a}.ipynb" for a in ASSIGNMENTS))
    graded = shared_class(SOURCE_CLASS)
    scores = {}
    with graded.course.gradebook() as gb:
        for assignment in ASSIGNMENTS:
            for student in assignment_students(assignment):
                sub = gb.find_submission_notebook(assignment, assignment, student)
                scores[assignment, student] = {
                    g.name: {"auto": g.auto_score, "max": g.max_score, "type": g.cell_type}
                    for g in sub.grades
                }
    return {"graded": graded, "scores": scores, "validated": finish_steps(validating)}


def _scores(course, assignment: str, student: str) -> dict:
    return course["scores"][assignment, student]


def _feedback_text(course, assignment: str, student: str) -> str:
    """The feedback HTML as plain text (tags stripped), as a student reads it."""
    root = course["graded"].course.root
    page = (root / "feedback" / student / assignment / f"{assignment}.html").read_text()
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
def test_release_succeeds(course, assignment):
    """Released (the release refuses a notebook whose own solution loses a mark)."""
    root = course["graded"].course.root
    assert (root / "release" / assignment / f"{assignment}.ipynb").exists()
    assert (course["graded"].course.exchange / "attention-lab" / "outbound" / assignment).is_dir()


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_validate_passes_on_every_source(course, assignment):
    result = course["validated"][f"source/{assignment}/{assignment}.ipynb"]
    assert result == {}, result


@pytest.mark.slow
@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_autograde_and_feedback_run_without_errors(course, assignment):
    """Every submission graded (no error, no time-out) and fed back.

    Plain ``nbgrader autograde`` with the course's config: test_variants_graded.py.
    """
    summary = course["graded"].summaries[assignment]
    statuses = {r.student: r.status for r in summary.results}
    students = assignment_students(assignment)
    assert {s: statuses.get(s) for s in students} == dict.fromkeys(students, "graded"), (
        summary.table()
    )
    for student in students:
        assert _feedback_text(course, assignment, student)


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
    root = course["graded"].course.root
    graded = nbformat.read(root / "autograded" / student / assignment / f"{assignment}.ipynb", 4)
    assert "moved_cell" in {flag.kind for flag in read_flags(graded)}


def _released(course, assignment: str):
    return nbformat.read(
        course["graded"].course.root / "release" / assignment / f"{assignment}.ipynb", 4
    )


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
    pre_tests, post_tests = (list(choice_keys(form)) for form in INVENTORY)
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
        offered = {s for kw in choice_keys(form).values() for s in kw["misconceptions"].values()}
        missing = {topic for topic, slug in topics.items() if slug not in offered}
        assert not missing, (form, missing)
        nb = _source_nb(form)
        graded = [c for c in _grade_cells(nb)]
        assert all(c.cell_type == "code" and c.metadata.nbgrader.points == 1 for c in graded)


def _choice_questions_by_cell(assignments):
    """Each a-d choice question's markdown cell, with its answer key from the hidden test."""
    for assignment in assignments:
        cells = cells_by_id(_source_nb(assignment))
        keys = choice_keys(assignment)
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
    from attention_grader.checking.variant_grading import variant_names

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
