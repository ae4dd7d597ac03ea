"""Per-student variants graded through the real pipeline, on both routes (issue 41).

The attacks first: a classmate's answers copied as numbers, a classmate's numbers put in place
of one's own (``K = ...``), a tampered seed in the kernel, and a name typed into the notebook.
None of them earns the points: the grader recomputes every student's numbers from the id the
exchange trusts and the course key, and an answer that fits a classmate's variant is flagged
``other_variant`` (naming her) and scores as wrong. The honest student keeps full marks.
"""

from __future__ import annotations

import copy
import re

import nbformat
import numpy as np
import pytest
from attention_grader.common.flag_store import read_flags
from attention_grader.common.variant_key import course_key

from attention_lab import variants
from tests.support.graded_classes import ClassSpec
from tests.support.grading_course import (
    answer,
    gradebook_state,
    place_submission,
    released_notebook,
)
from tests.support.variant_class import (
    Q3,
    ROOT,
    SOLUTION,
    VARIANT_CONFIG,
    A,
    answers_for,
    numbers_of,
)
from tests.support.variant_copies import colliding_pair, numbers_answer

pytestmark = [pytest.mark.slow]

HOSTILE = "<script>alert('ivy')</script>"


def _model_answers() -> dict[str, str]:
    nb = nbformat.read(ROOT / "source" / A / f"{A}.ipynb", as_version=4)
    return {
        c.metadata.nbgrader["grade_id"]: c.source
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")
    }


#: By what decides the pair: the course key and the released data cell (the same for both
#: routes' copies of the class, and for the build that handed it in: drawn once per process).
_PAIRS: dict[tuple[bytes, str], tuple[str, str, tuple[str, ...]]] = {}


def shared_step(course) -> tuple[str, str, tuple[str, ...]]:
    """Two students of the course key (``kim<i>``) whose numbers share a right Q3 step.

    ``(source, copier, steps)``: the source's right answer is right on the copier's numbers
    in ``steps`` (softmax's shift; rare with the generator's tenths, so drawn until found).
    """
    cells = released_notebook(course, A).cells
    data = next(
        c.source for c in cells if c.metadata.get("nbgrader", {}).get("grade_id") == "isro_data"
    )
    found = (course_key(course.config), data)
    if found not in _PAIRS:
        drawn = {}
        for i in range(2000):
            drawn[f"kim{i}"] = tuple(m.tolist() for m in numbers_of(course, f"kim{i}"))
            if i % 20 == 19:
                try:
                    _PAIRS[found] = colliding_pair(drawn)
                    break
                except LookupError:
                    continue
    return _PAIRS[found]


def hand_in(course) -> None:
    nb = released_notebook(course, A)
    right = _model_answers()
    Q, K, V = numbers_of(course, "alice")
    seed_text = "dave:" + "ab" * 32
    plans = {
        "alice": right,
        # copies alice's printed answers
        "bob": {**right, "answer_q3": answers_for(Q, K, V)},
        # puts alice's numbers in place of her own, then computes honestly
        "carol": {
            **right,
            "answer_q3": f"K = np.array({K.tolist()})\nV = np.array({V.tolist()})\n"
            f"q_launched = np.array({Q[1].tolist()})\n{SOLUTION}",
        },
        # tampers with the seed in the kernel and draws again
        "dave": {
            **right,
            "answer_q3": "import os\n"
            f"os.environ[variants.SEED_ENV] = {seed_text!r}\n"
            'Q, K, V = variants.draw("focus_in_the_noise", "launched", launched_numbers)\n'
            f"q_launched = Q[1]\n{SOLUTION}",
        },
        # types alice's name into the notebook and answers with alice's numbers
        "erin": {**right, "answer_q3": f'student_id = "alice"\n{answers_for(Q, K, V)}'},
    }
    # worked on a laptop without the hub's seed: the practice numbers
    plans["hana"] = {**right, "answer_q3": answers_for(*numbers_of(course, None))}
    # answers with markup: the formgrader and the report show it escaped
    plans["ivy"] = {**right, "answer_q3": f"launched_scores = {HOSTILE!r}\n" + SOLUTION[40:]}
    # makes a mistake on her own numbers: the report names it, whatever the variant
    plans["gus"] = {**right, "answer_q3": SOLUTION.replace(" / np.sqrt(2)", "")}
    # copies a classmate whose right answer to a step is right on her own numbers too
    source, copier, _ = shared_step(course)
    plans[source] = right
    plans[copier] = {**right, "answer_q3": numbers_answer(*numbers_of(course, source))}
    for student, answers in plans.items():
        work = answer(copy.deepcopy(nb), answers)
        if student == "erin":
            work.metadata["nbgrader"] = {"student": "alice"}
        place_submission(course, A, student, work)
    # sets a seed in a cell of her own above the draw, then answers on what it drew
    work = answer(copy.deepcopy(nb), right)
    work.cells.insert(
        1,
        nbformat.v4.new_code_cell(
            f"import os\nos.environ[{variants.SEED_ENV!r}] = {'fay:' + '00' * 32!r}"
        ),
    )
    place_submission(course, A, "fay", work)


def _spec(route: str) -> ClassSpec:
    return ClassSpec(
        f"variants-{route}",
        hand_in=hand_in,
        source=ROOT / "source",
        assignments=(A,),
        config_file=ROOT / "nbgrader_config.py",
        config=VARIANT_CONFIG,
        due="2030-12-30 12:00:00",
        route=route,
    )


@pytest.fixture(scope="module", params=["grade", "nbgrader"])
def graded(request, shared_class):
    return shared_class(_spec(request.param))


def _q3_scores(state, student) -> list[float]:
    grades = state[student]["notebooks"][A]["grades"]
    return [grades[g][0] for g in Q3]


def _flags(course, student):
    path = course.root / "autograded" / student / A / f"{A}.ipynb"
    return read_flags(nbformat.read(path, as_version=4))


def test_each_student_has_other_numbers(graded):
    drawn = {s: numbers_of(graded.course, s) for s in ("alice", "bob", "carol", "dave", "erin")}
    assert len({str([m.tolist() for m in nums]) for nums in drawn.values()}) == 5
    again = numbers_of(graded.course, "alice")
    assert all(np.array_equal(a, b) for a, b in zip(again, drawn["alice"], strict=True))


def test_the_honest_student_keeps_full_marks(graded):
    state = gradebook_state(graded.course, A)
    assert _q3_scores(state, "alice") == [2.0, 2.0, 2.0]
    assert not [f for f in _flags(graded.course, "alice") if f.kind == "other_variant"]


@pytest.mark.parametrize("student", ["bob", "carol", "erin"])
def test_a_classmates_answers_score_as_wrong_and_are_flagged(graded, student):
    state = gradebook_state(graded.course, A)
    assert _q3_scores(state, student) == [0.0, 0.0, 0.0]
    flagged = [f for f in _flags(graded.course, student) if f.kind == "other_variant"]
    assert {f.detail.split(":")[0] for f in flagged} == {f"{A}/{g}" for g in Q3}
    assert all("alice's variant" in f.detail for f in flagged)
    # every other cell scores as alice's: one copied question costs its share only
    mine, hers = (state[s]["notebooks"][A]["grades"] for s in (student, "alice"))
    assert {g: v for g, v in mine.items() if g not in Q3} == {
        g: v for g, v in hers.items() if g not in Q3
    }


@pytest.mark.parametrize("student", ["dave", "fay"])
def test_a_tampered_seed_never_helps(graded, student):
    state = gradebook_state(graded.course, A)
    assert _q3_scores(state, student) == [0.0, 0.0, 0.0]
    # (numbers drawn from a made-up seed may happen to fit a classmate's: small whole numbers
    # give some steps few enough values that other_variant can flag a coincidence, for review)


def test_answers_worked_on_the_practice_numbers_are_flagged(graded):
    state = gradebook_state(graded.course, A)
    assert _q3_scores(state, "hana") == [0.0, 0.0, 0.0]
    flagged = [f for f in _flags(graded.course, "hana") if f.kind == "other_variant"]
    assert len(flagged) == 3 and all("the practice variant" in f.detail for f in flagged)


def test_a_copy_right_on_the_copiers_numbers_too_is_flagged_on_its_cell(graded):
    """A classmate's right answer that her own numbers share keeps its points, flagged."""
    source, copier, steps = shared_step(graded.course)
    state = gradebook_state(graded.course, A)
    assert [g for g, s in zip(Q3, _q3_scores(state, copier), strict=True) if s] == list(steps)
    shared = {f.detail.split(":")[0]: f.detail for f in _flags(graded.course, copier)
              if f.kind == "shared_answer"}  # fmt: skip
    assert set(shared) == {f"{A}/{g}" for g in steps}
    assert all(f"{source}'s variant" in d for d in shared.values())
    path = graded.course.root / "autograded" / copier / A / f"{A}.ipynb"
    cells = {c.metadata.get("nbgrader", {}).get("grade_id"): c
             for c in nbformat.read(path, as_version=4).cells}  # fmt: skip
    for g in steps:  # the note on the cell itself, for the formgrader
        assert cells[g].metadata["attention_grader"]["variant"]["also_right_for"] == [source]


def _data_cell_text(course, student) -> str:
    path = course.root / "autograded" / student / A / f"{A}.ipynb"
    cell = next(
        c
        for c in nbformat.read(path, as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == "isro_data"
    )
    return "".join(o.get("text", "") for o in cell.outputs)


@pytest.mark.parametrize("student", ["alice", "fay"])
def test_the_teacher_sees_the_numbers_the_answers_were_checked_against(graded, student):
    Q, K, V = numbers_of(graded.course, student)
    text = _data_cell_text(graded.course, student)
    assert f"{student}'s variant" in text
    assert f"K = {K.tolist()}" in text and f"V = {V.tolist()}" in text


def test_the_report_names_a_misconception_on_any_variant(graded):
    from attention_grader.reports.class_diagnoses import find_diagnoses

    found = {(d.student, d.question, d.id) for d in find_diagnoses(graded.course, A)}
    assert {("gus", g, "forgot_scaling") for g in Q3} <= found


def _rows(page: str, student: str) -> list[str]:
    return [r for r in re.findall(r"<tr>(.*?)</tr>", page, re.S) if r.startswith(f"<td>{student}<")]


def test_the_report_shows_each_students_numbers_beside_her_answers(graded, tmp_path):
    from attention_grader.reports.report import write_report

    page = write_report(graded.course, A, tmp_path).read_text()
    section = page[page.index("<h2>Each student's numbers") : page.index("<h2>Flags")]
    shown = {}
    for student in ("alice", "bob"):
        Q, K, V = numbers_of(graded.course, student)
        rows = _rows(section, student)
        assert len(rows) == 3, student  # one per Q3 test
        assert all(f"K = {K.tolist()}" in r and f"q_launched = {Q[1].tolist()}" in r for r in rows)
        shown[student] = rows
    assert shown["alice"] != shown["bob"]
    assert all("<td>passed</td>" in r for r in shown["alice"])
    assert all("<td>failed</td>" in r for r in shown["bob"])  # alice's answers on bob's numbers
    assert "forgot" in " ".join(_rows(section, "gus")).lower()  # the misconception, by title
    assert "<script>alert" not in page and "&lt;script&gt;alert(" in " ".join(_rows(section, "ivy"))
    assert (tmp_path / "variants.csv").read_text().count("\nalice,") == 3


def test_the_formgrader_shows_each_students_numbers_after_her_answer(graded):
    import nbgrader.server_extensions.formgrader.handlers as handlers
    from attention_grader.pipeline import configure
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    c = Config()
    c.CourseDirectory.root = str(graded.course.root)
    c.HTMLExporter.template_name = "formgrade"
    c.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    configure(c)
    pages = {}
    for student in ("alice", "bob", "ivy"):
        path = graded.course.root / "autograded" / student / A / f"{A}.ipynb"
        resources = {"assignment_id": A, "notebook_id": A, "submission_id": "s", "index": 0,
                     "total": 1, "base_url": "", "student": student, "last_name": None,
                     "first_name": None, "notebook_path": "x"}  # fmt: skip
        pages[student], _ = HTMLExporter(config=c).from_notebook_node(
            nbformat.read(path, as_version=4), resources
        )
    for student in ("alice", "bob"):
        page = pages[student]
        Q, K, V = numbers_of(graded.course, student)
        box, test = page.index(f"Checked against {student}'s numbers"), page.index("Q3 step 1")
        assert page.rindex("Student's answer", 0, test) < box < test  # right after the answer
        assert f"K = {K.tolist()}" in page[box:] and f"V = {V.tolist()}" in page[box:]
    assert "<script>alert" not in pages["ivy"] and "&lt;script&gt;alert(" in pages["ivy"]


def test_the_key_never_reaches_a_student(graded):
    key = course_key(graded.course.config)
    course = graded.course
    for base in (course.root / "release", course.exchange, course.root / "autograded"):
        for path in base.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert key.hex().encode() not in data and key not in data, path


def test_plain_nbgrader_autograde_runs_sandboxed_by_the_course_config(shared_class):
    """The course's own nbgrader_config.py sandboxes plain ``nbgrader autograde`` (pipeline's
    ``configure``): its log lists every protection, each ON.
    """
    log = shared_class(_spec("nbgrader")).logs[A]
    assert "Sandbox protections for student kernels" in log, log
    assert "[OFF]" not in log, "run `make sandbox-deps` as root"
