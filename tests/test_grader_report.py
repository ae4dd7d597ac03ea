"""attention_grader.report: question difficulty, score distribution, misconception counts."""

from __future__ import annotations

import csv

import pytest
from attention_grader.report import (
    build_report,
    difficulty_label,
    find_diagnoses,
    misconception_titles,
    write_report,
)
from grading_course import synthetic_class


@pytest.fixture
def course(tmp_path):
    return synthetic_class(tmp_path)


def test_diagnoses_come_from_misconception_error_outputs_only(course):
    found = {(d.student, d.question, d.slug) for d in find_diagnoses(course, "a1")}
    assert found == {
        ("ben", "q1", "sum_normalised"),
        ("cy", "q1", "sum_normalised"),
        ("cy", "q2", "forgot_scaling"),
    }
    assert all(d.message and not d.message.startswith("[") for d in find_diagnoses(course, "a1"))


def test_students_are_counted_once_per_misconception(course):
    report = build_report(course, "a1")
    counts = {slug: sorted(s) for slug, s in report.students_per_misconception().items()}
    assert counts == {"sum_normalised": ["ben", "cy"], "forgot_scaling": ["cy"]}
    assert list(counts) == ["sum_normalised", "forgot_scaling"]  # most common first


def test_question_statistics(course):
    report = build_report(course, "a1")
    stats = {s.question: s for s in report.stats}
    assert stats["q1"].mean == pytest.approx(2 / 3) and stats["q1"].difficulty == "hard"
    assert stats["q2"].facility == pytest.approx(2 / 3) and stats["q2"].difficulty == "medium"
    # ana's essay still waits for a teacher: left out of the statistics, counted as pending.
    assert (stats["essay"].kind, stats["essay"].pending, stats["essay"].scores) == (
        "manual", 1, [2.0, 0.0]
    )  # fmt: skip
    assert report.totals == {"ana": 3, "ben": 3, "cy": 0}
    assert report.max_total == 5


@pytest.mark.parametrize(("facility", "label"), [(1, "easy"), (0.8, "easy"), (0.79, "medium"),
                                                 (0.5, "medium"), (0.49, "hard"), (0, "hard")])  # fmt: skip
def test_difficulty_bands(facility, label):
    assert difficulty_label(facility) == label


def test_titles_come_from_the_checks_module():
    from attention_lab.checks import MISCONCEPTIONS

    assert misconception_titles() == dict(MISCONCEPTIONS)


def test_html_report_with_png_figures(course):
    page = write_report(course, "a1")
    folder = course.root / "reports" / "a1"
    assert page == folder / "index.html"
    html = page.read_text()
    titles = misconception_titles()
    assert titles.get("sum_normalised", "sum_normalised") in html
    for png in ["score_distribution.png", "question_difficulty.png", "misconceptions.png"]:
        assert (folder / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"src='{png}'" in html
    rows = list(csv.DictReader((folder / "misconceptions.csv").open()))
    assert len(rows) == 3 and {r["slug"] for r in rows} == {"sum_normalised", "forgot_scaling"}
    # 2 of 3 submissions showed sum_normalised
    assert "<td>sum_normalised</td><td>2</td><td>67%</td>" in html
