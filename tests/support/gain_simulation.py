"""Students answering the inventory forms, graded in this process (no kernel), for the gain tests.

The forms' items are read from the teacher's source (``source/inventory_pre`` and
``source/inventory_post``, the hidden test of each choice question); :func:`write_simulated`
runs that hidden test's call here and writes the gradebook and ``autograded/`` as the
pipeline does (tests/attention_grader/reports/test_gain.py proves it writes the same).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import nbformat
from attention_grader.common.diagnosis import CellDiagnosis, diagnosis_of, record_diagnosis
from attention_grader.config.course import new_course, quiet_autoflush_warning
from nbformat.v4 import new_output

from attention_lab import checks

ROOT = Path(__file__).resolve().parents[2]
PRE, POST = "inventory_pre", "inventory_post"


# ---------------------------------------------------------------------------------------------
# The forms' items, read from the teacher's source (the hidden test of each choice question)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Item:
    grade_id: str
    answer: str  # the answer variable, e.g. "answer_q3"
    correct: str
    misconceptions: dict[str, str]  # wrong letter -> registry id


def form_items(assignment: str) -> list[Item]:
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", 4)
    items = []
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade"):
            continue
        hidden = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
        call = next(n for n in ast.walk(ast.parse(hidden)) if isinstance(n, ast.Call))
        kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        items.append(Item(meta["grade_id"], kw["name"], kw["correct"], kw["misconceptions"]))
    return items


ITEMS = {form: form_items(form) for form in (PRE, POST)}


def check(item: Item, letter: str) -> tuple[float, list, CellDiagnosis | None]:
    """Score, test-cell outputs and diagnosis for ``letter``: the hidden test's call, run here."""
    try:
        checks.check_choice(
            letter, "abcd", correct=item.correct, misconceptions=item.misconceptions,
            name=item.answer,
        )  # fmt: skip
    except checks.CheckFailure as err:
        name = type(err).__name__
        out = new_output("error", ename=name, evalue=str(err), traceback=[f"{name}: {err}"])
        return 0.0, [out], diagnosis_of(err)
    return 1.0, [], None


def answered(template, form: str, answers: dict[str, str]):
    """The notebook with one letter per answer cell (``answers``: test grade id -> letter)."""
    nb = nbformat.from_dict(json.loads(json.dumps(template)))
    by_answer = {item.answer: answers[item.grade_id] for item in ITEMS[form]}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in by_answer:
            cell.source = f"{gid} = {by_answer[gid]!r}\n"
    return nb


def write_simulated(course, form: str, student: str, answers: dict[str, str], template) -> None:
    """Grade ``answers`` in-process and write them as the pipeline does: gradebook + notebook."""
    write_simulated_class(course, form, {student: answers}, template)


def write_simulated_class(course, form: str, answers: dict[str, dict[str, str]], template) -> None:
    """:func:`write_simulated` for every student of ``answers`` (student -> her answers), in one
    gradebook session: a class of a hundred is written in seconds, not a minute.
    """
    with quiet_autoflush_warning(), course.gradebook() as gb:
        for student, given in answers.items():
            _write_one(course, gb, form, student, given, template)
        gb.db.commit()


def _write_one(course, gb, form: str, student: str, answers: dict[str, str], template) -> None:
    nb = answered(template, form, answers)
    results = {item.grade_id: check(item, answers[item.grade_id]) for item in ITEMS[form]}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in results:
            cell.outputs = results[gid][1]
            record_diagnosis(cell, results[gid][2])
    folder = course.root / "autograded" / student / form
    folder.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / f"{form}.ipynb")
    gb.update_or_create_student(student)
    gb.add_submission(form, student, timestamp=datetime(2026, 11, 30, 9, 0))
    # the submission's grades in one query (a find_grade per cell costs a query and a flush each)
    grades = gb.find_submission_notebook(form, form, student).grades
    for g in grades:
        if g.name in results:
            g.auto_score, g.needs_manual_grade = results[g.name][0], False
    assert {g.name for g in grades} >= set(results), (form, student)


def bare_course(tmp: Path):
    """A course with both forms in its gradebook (as a release leaves them) and no students."""
    course = new_course(tmp, ROOT / "source", (PRE, POST))
    with quiet_autoflush_warning(), course.gradebook() as gb:
        for form in (PRE, POST):
            gb.add_assignment(form)
            gb.add_notebook(form, form)
            for item in ITEMS[form]:
                gb.add_grade_cell(item.grade_id, form, form, max_score=1, cell_type="code")
    templates = {
        f: nbformat.read(course.root / "source" / f / f"{f}.ipynb", 4) for f in (PRE, POST)
    }
    return course, templates


def all_right(form):
    return {item.grade_id: item.correct for item in ITEMS[form]}


def showing(form, slug):
    """Right everywhere except the items offering ``slug``, where that option is chosen."""
    out = all_right(form)
    for item in ITEMS[form]:
        for letter, shown in item.misconceptions.items():
            if shown == slug:
                out[item.grade_id] = letter
    return out
