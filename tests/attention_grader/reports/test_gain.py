"""attention_grader.reports.gain: normalised gain and misconception shares from a pre- and a post-test.

The main test simulates a class of 100 students with known misconception profiles before and
after the lessons, answering the real inventory forms (``source/inventory_pre`` and
``source/inventory_post``). A few of them are released, submitted and graded by the real
pipeline (:func:`attention_grader.steps.grade.grade`); the others are written straight into the
gradebook and ``autograded/`` by :func:`write_simulated`, which runs the same hidden-test call in
this process. The real students prove the format: for the same answers the simulation writes
exactly the scores and error outputs the pipeline wrote. The report must then recover each
misconception's share within 10 points and the class's normalised gain within 0.05.
"""

from __future__ import annotations

import csv
import random
import re
from pathlib import Path

import nbformat
import pytest
from attention_grader.cli import main
from attention_grader.common.diagnosis import (
    read_diagnosis,
)
from attention_grader.pages.csp import STATIC_PAGE_POLICY
from attention_grader.reports.gain import build_gain, hake_gain, offered_misconceptions
from attention_grader.reports.gain_page import write_gain

from tests.support.gain_simulation import (
    ITEMS,
    POST,
    PRE,
    ROOT,
    Item,
    all_right,
    answered,
    bare_course,
    showing,
    write_simulated,
    write_simulated_class,
)
from tests.support.graded_classes import ClassSpec
from tests.support.grading_course import place_submission, released_notebook

# ---------------------------------------------------------------------------------------------
# The simulated class: known profiles, a known answering model
# ---------------------------------------------------------------------------------------------

CONSISTENCY = 0.9  # a student acts on a misconception they hold when an item offers it
SLIP = 0.03  # otherwise a student may still slip to a random wrong option
SLUGS = sorted({s for f in ITEMS.values() for it in f for s in it.misconceptions.values()})


def profiles(n: int, seed: int = 20) -> dict[str, tuple[set[str], set[str]]]:
    """Map each student to (misconceptions held before, held after): most unlearned, a few picked up."""
    rng = random.Random(seed)
    base = {slug: rng.uniform(0.05, 0.35) for slug in SLUGS}
    out = {}
    for i in range(n):
        before = {s for s in SLUGS if rng.random() < base[s]}
        # sorted: a set's order follows PYTHONHASHSEED, and so would the class each run draws
        after = {s for s in sorted(before) if rng.random() < 0.3} | {
            s for s in SLUGS if rng.random() < 0.02
        }
        out[f"s{i:03d}"] = (before, after)
    return out


def choose(item: Item, held: set[str], rng: random.Random) -> str:
    acting = [letter for letter, slug in sorted(item.misconceptions.items()) if slug in held]
    acting = [letter for letter in acting if rng.random() < CONSISTENCY]
    if acting:
        return rng.choice(acting)
    if rng.random() < SLIP:
        return rng.choice(sorted(item.misconceptions))
    return item.correct


def expected_percent(form: str, held: set[str]) -> float:
    """The model's expected score: right only if no held misconception acts and no slip."""
    chances = [
        (1 - CONSISTENCY) ** sum(slug in held for slug in item.misconceptions.values()) * (1 - SLIP)
        for item in ITEMS[form]
    ]
    return 100 * sum(chances) / len(chances)


def answers_of(held: set[str], form: str, rng: random.Random) -> dict[str, str]:
    return {item.grade_id: choose(item, held, rng) for item in ITEMS[form]}


#: Graded by the real pipeline: two prove the format (their answers show misconceptions, which
#: test_simulation_writes_what_the_pipeline_writes asserts), one per worker of the grade route.
REAL = ("s000", "s001")


@pytest.fixture(scope="module")
def graded_class(shared_class):
    """100 students with both tests (2 graded for real), one with only each test."""
    class_ = profiles(100)
    rng = random.Random(7)
    answers = {
        s: {PRE: answers_of(before, PRE, rng), POST: answers_of(after, POST, rng)}
        for s, (before, after) in class_.items()
    }
    answers["only_pre"] = {PRE: answers_of(set(SLUGS[:3]), PRE, rng)}
    answers["only_post"] = {POST: answers_of(set(), POST, rng)}

    def hand_in(course):
        for form in (PRE, POST):
            template = released_notebook(course, form)
            for student in REAL:
                nb = answered(template, form, answers[student][form])
                place_submission(course, form, student, nb)

    spec = ClassSpec(
        "gain",
        hand_in=hand_in,
        source=ROOT / "source",
        assignments=(PRE, POST),
        due="2026-12-30 12:00:00",
    )
    graded = shared_class(spec)  # this module's own: the simulated students are added to it
    course = graded.course
    for summary in graded.summaries.values():
        assert all(r.status == "graded" and not r.flags for r in summary.results), summary.table()
    templates = {form: released_notebook(course, form) for form in (PRE, POST)}
    for form in (PRE, POST):
        simulated = {s: taken[form] for s, taken in answers.items() if form in taken}
        for student in REAL:
            del simulated[student]
        write_simulated_class(course, form, simulated, templates[form])
    return course, class_, answers, templates


def _test_outputs(path: Path) -> dict[str, list]:
    nb = nbformat.read(path, 4)
    return {
        c.metadata["nbgrader"]["grade_id"]: [(o.get("ename"), o.get("evalue")) for o in c.outputs]
        + [read_diagnosis(c)]
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
    }


@pytest.mark.slow
def test_simulation_writes_what_the_pipeline_writes(graded_class, tmp_path):
    """For the same answers, write_simulated gives the real students' scores and error outputs."""
    course, _, answers, templates = graded_class
    twin, _ = bare_course(tmp_path)
    shown = set()
    for student in REAL:
        for form in (PRE, POST):
            write_simulated(twin, form, student, answers[student][form], templates[form])
            real, copy = (
                c.root / "autograded" / student / form / f"{form}.ipynb" for c in (course, twin)
            )
            assert _test_outputs(copy) == _test_outputs(real), (student, form)
            shown |= {
                o[0] for outs in _test_outputs(real).values() for o in outs if isinstance(o, tuple)
            }
            scores = []
            for c in (course, twin):
                with c.gradebook() as gb:
                    sub = gb.find_submission_notebook(form, form, student)
                    scores.append({g.name: g.score for g in sub.grades})
            assert scores[0] == scores[1], (student, form)
    assert "Misconception" in shown  # the real students did show misconceptions


@pytest.mark.slow
def test_the_report_recovers_each_misconceptions_share_and_the_class_gain(graded_class):
    course, class_, _, _ = graded_class
    report = build_gain(course, PRE, POST)
    assert report.students == tuple(sorted(class_))
    assert (report.pre_only, report.post_only) == (("only_pre",), ("only_post",))
    rows = {r.id: r for r in report.misconceptions}
    assert set(SLUGS) <= set(rows)
    for slug in SLUGS:
        truth_pre = sum(slug in before for before, _ in class_.values()) / len(class_)
        truth_post = sum(slug in after for _, after in class_.values()) / len(class_)
        assert rows[slug].pre == pytest.approx(truth_pre, abs=0.10), slug
        assert rows[slug].post == pytest.approx(truth_post, abs=0.10), slug
    pre = sum(expected_percent(PRE, b) for b, _ in class_.values()) / len(class_)
    post = sum(expected_percent(POST, a) for _, a in class_.values()) / len(class_)
    assert report.class_gain == pytest.approx(hake_gain(pre, post), abs=0.05)
    assert 0.3 < report.class_gain < 0.9  # the simulated lessons worked: a real, positive gain


@pytest.mark.slow
def test_gain_page_csv_and_figures(graded_class):
    course, class_, _, _ = graded_class
    page = write_gain(course, PRE, POST)
    folder = course.root / "reports" / "gain"
    assert page == folder / "index.html"
    text = page.read_text()
    assert "Content-Security-Policy" in text and "<script" not in text
    for png in ("scores.png", "items.png", "misconceptions.png"):
        assert (folder / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"src='{png}'" in text
    assert "only_pre" in text and "only_post" in text and "0.23" in text and "0.48" in text
    assert "<td>bottleneck_choice</td>" in text and " -&gt; " in text  # difficulty before -> after
    # the docs are a link that resolves from the page; a class this size gets no caution
    (href,) = re.findall(r'<a href="([^"]+)">Measuring what the class learned</a>', text)
    assert (folder / href).resolve() == (course.root / "docs" / "teachers-gain.md").resolve()
    assert ("A small class" in text) == (len(class_) < 10)
    rows = list(csv.DictReader((folder / "gain.csv").open()))
    kinds = [r["kind"] for r in rows]
    assert kinds.count("student") == len(class_) + 2 and kinds.count("item") == len(ITEMS[PRE])
    report = build_gain(course, PRE, POST)
    assert float(rows[0]["gain"]) == pytest.approx(report.class_gain, abs=1e-4)


# ---------------------------------------------------------------------------------------------
# Small classes, computed by hand (no kernels: the gradebook and notebooks are written directly)
# ---------------------------------------------------------------------------------------------


def test_hake_gain():
    assert hake_gain(40, 70) == pytest.approx(0.5)
    assert hake_gain(50, 40) == pytest.approx(-0.2)  # a class can lose ground
    assert hake_gain(100, 100) is None and hake_gain(100, 80) is None


def test_offered_misconceptions_reads_literals_only():
    src = (
        'checks.check_choice(a, "abcd", correct="b", misconceptions={"a": "hard_attention", '
        '"c": "forgot_scaling"})\nchecks.check_true_false(t, True, misconception="one_fixed_vector")\n'
        "checks.check_choice(a, 'ab', misconceptions=make_them())"
    )
    assert offered_misconceptions(src) == {"hard_attention", "forgot_scaling", "one_fixed_vector"}


@pytest.mark.slow
def test_small_class_by_hand(tmp_path):
    course, t = bare_course(tmp_path)
    n_hard = {f: sum("hard_attention" in it.misconceptions.values() for it in ITEMS[f]) for f in t}
    write_simulated(course, PRE, "ana", all_right(PRE), t[PRE])  # 100% before: no own gain
    write_simulated(course, POST, "ana", all_right(POST), t[POST])
    write_simulated(course, PRE, "ben", showing(PRE, "hard_attention"), t[PRE])
    write_simulated(course, POST, "ben", all_right(POST), t[POST])
    write_simulated(course, PRE, "cy", showing(PRE, "divided_by_dk"), t[PRE])  # pre only
    report = build_gain(course, PRE, POST)
    n = len(ITEMS[PRE])
    ben_pre = 100 * (n - n_hard[PRE]) / n
    assert report.students == ("ana", "ben") and report.pre_only == ("cy",)
    assert report.class_pre == pytest.approx((100 + ben_pre) / 2)
    assert report.class_post == pytest.approx(100)
    assert report.class_gain == pytest.approx(1.0)
    assert report.perfect_pre == ("ana",) and report.mean_student_gain == pytest.approx(1.0)
    rows = {r.id: r for r in report.misconceptions}
    assert (rows["hard_attention"].pre, rows["hard_attention"].post) == (0.5, 0.0)
    assert rows["hard_attention"].pre_items == n_hard[PRE]
    assert rows["divided_by_dk"].pre == 0.0  # cy took only the pre-test: not in the class
    facility = {r.item: r.pre for r in report.items}
    hard_items = [
        it.grade_id for it in ITEMS[PRE] if "hard_attention" in it.misconceptions.values()
    ]
    assert all(facility[i] == 0.5 for i in hard_items)
    page = write_gain(course, PRE, POST).read_text()  # n = 2: <0.6> from two students
    assert "A small class: 2 student(s)." in page and "rough" in page
    # Issue 39: "63 %" beside "chose 1": the count is said as a share of the same class
    (row,) = re.findall(r"<tr><td>[^<]*</td><td>hard_attention</td>.*?</tr>", page, re.S)
    assert "1 of 2 (50%) / 0 of 2 (0%)" in row
    assert "estimated before" in page and "can be above" in page


@pytest.mark.slow
def test_the_score_chart_counts_whole_students(tmp_path, monkeypatch):
    """Two students: the y axis of "Scores before and after" has no 0.25 or 1.5 student."""
    from matplotlib.figure import Figure

    course, t = bare_course(tmp_path)
    for student in ("ana", "ben"):
        write_simulated(course, PRE, student, showing(PRE, "hard_attention"), t[PRE])
        write_simulated(course, POST, student, all_right(POST), t[POST])
    ticks: dict[str, list[float]] = {}
    save = Figure.savefig

    def keep_ticks(fig, path, *args, **kwargs):
        ticks[Path(path).name] = list(fig.axes[0].get_yticks())
        return save(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", keep_ticks)
    write_gain(course, PRE, POST)
    assert ticks["scores.png"] and all(v == int(v) for v in ticks["scores.png"])


@pytest.mark.slow
def test_hostile_student_ids_are_escaped_in_the_page_and_defused_in_the_csv(tmp_path):
    course, t = bare_course(tmp_path)
    evil_html, evil_csv = "<img src=x onerror=alert(1)>", '=HYPERLINK("http:x","y")'
    for student in (evil_html, evil_csv):
        write_simulated(course, PRE, student, all_right(PRE), t[PRE])  # pre only: listed
    write_simulated(course, PRE, "ok", showing(PRE, "keys_as_values"), t[PRE])
    write_simulated(course, POST, "ok", all_right(POST), t[POST])
    page = write_gain(course, PRE, POST, tmp_path / "out")
    text = page.read_text()
    assert "<img src=x" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    assert f'http-equiv="Content-Security-Policy" content="{STATIC_PAGE_POLICY}"' in text
    names = [r["name"] for r in csv.DictReader((tmp_path / "out" / "gain.csv").open())]
    assert "'" + evil_csv in names and evil_csv not in names


@pytest.mark.slow
def test_cli_gain_step_and_make_target(tmp_path, capsys):
    course, t = bare_course(tmp_path)
    write_simulated(course, PRE, "ana", showing(PRE, "uniform_average"), t[PRE])
    write_simulated(course, POST, "ana", all_right(POST), t[POST])
    assert main(["--course", str(course.root), "gain", PRE, POST]) == 0
    assert "reports/gain/index.html" in capsys.readouterr().out
    import subprocess

    dry = subprocess.run(
        ["make", "-n", "--no-print-directory", "gain", "PRE=a1", "POST=a2"],
        cwd=ROOT, capture_output=True, text=True,
    ).stdout  # fmt: skip
    assert 'gain "a1" "a2"' in dry


def test_one_choice_per_item_is_corrected():
    """Two misconceptions moving 40% and 30% of a class, a random pick when both move a student."""
    from attention_grader.reports.gain import _one_choice_correction

    chosen = {"x": 0.4 * (1 - 0.3 / 2), "y": 0.3 * (1 - 0.4 / 2)}  # 0.34 and 0.24 choose each
    acting = _one_choice_correction(chosen)
    assert acting == pytest.approx({"x": 0.4, "y": 0.3}, abs=1e-6)
    assert _one_choice_correction({"z": 0.2}) == pytest.approx({"z": 0.2})  # alone: as chosen


def test_an_ungraded_test_is_a_clear_error(tmp_path, capsys):
    course, _ = bare_course(tmp_path)
    code = main(["--course", str(course.root), "gain", PRE, "inventory_later"])
    err = capsys.readouterr().err
    assert code == 2 and "inventory_later is not in the gradebook" in err
    assert "make grade A=inventory_later" in err


def test_a_pre_test_graded_before_the_inventory_grew_pairs_on_the_shared_items():
    """Issue 42: 20 items before (q1-q20), 25 after; the gain compares the 20 both forms have."""
    from attention_grader.reports.gain import Form, GainReport

    old, new = tuple(f"q{i}" for i in range(1, 21)), tuple(f"q{i}" for i in range(1, 26))
    pre = Form("inventory_pre", old, dict.fromkeys(old, 1.0), {"ana": dict.fromkeys(old[:10], 1.0)},
               {"ana": {}}, {})  # fmt: skip
    post_scores = dict.fromkeys(old, 1.0) | dict.fromkeys(new[20:], 0.0)  # new items all wrong
    post = Form(
        "inventory_post", new, dict.fromkeys(new, 1.0), {"ana": post_scores}, {"ana": {}}, {}
    )
    report = GainReport(pre, post, ("ana",), (), (), (), ())
    assert report.shared_items == old
    assert report.percents("ana") == (50.0, 100.0)  # not 80 %: the five new items are left out
    assert report.class_gain == pytest.approx(1.0)
    assert post.percent("ana") == pytest.approx(80.0)  # the form on its own still counts all
