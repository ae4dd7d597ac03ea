"""The class report's page: figures (PNG) and one static HTML page, from a :class:`~attention_grader.reports.report_data.Report`.

Everything in the page that a submission could have written (student ids, question ids,
misconception ids, error names, flag details) is escaped; the page loads nothing and runs no
script (its CSP is added by :func:`attention_grader.reports.report.write_report`). Maths is not needed here: the
page shows numbers and words only.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attention_grader.common.safe_text import html_text
from attention_grader.intake.final_scores import how_late

if TYPE_CHECKING:
    from datetime import datetime

    from attention_grader.reports.report_data import Report
    from attention_grader.reports.student_rows import StudentRow

__all__ = ["figures", "html_table", "page_html", "page_start", "score_bins"]


def score_bins(max_total: float) -> list[float]:
    """Histogram edges with one bar per whole score, 0 .. ``max_total``, centred on it.

    A total between two whole numbers (a late penalty of 1.5) falls in the bar of the nearer.
    """
    top = max(1, math.ceil(max_total))
    return [k - 0.5 for k in range(top + 2)]


def figures(report: Report, folder: Path) -> dict[str, str]:
    """Draw the PNG figures into ``folder``; return name -> file name of those drawn."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display (runs in make and CI)
    import matplotlib.pyplot as plt

    made = {}
    fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
    totals = list(report.final_totals().values())
    ax.hist(totals, bins=score_bins(report.max_total), color="#3b6ea5", edgecolor="white")
    left_out = len(report.totals) - len(totals)
    title = f"Score distribution ({len(totals)} fully graded)"
    ax.set(xlabel=f"total score (out of {report.max_total:g})", ylabel="students",
           title=title + (f"; {left_out} waiting" if left_out else ""))  # fmt: skip
    ax.xaxis.get_major_locator().set_params(integer=True)  # type: ignore[call-arg]  # stub says Locator; the default is a MaxNLocator
    ax.yaxis.get_major_locator().set_params(integer=True)  # type: ignore[call-arg]  # stub says Locator; the default is a MaxNLocator
    fig.savefig(folder / "score_distribution.png", dpi=110)
    plt.close(fig)
    made["score_distribution"] = "score_distribution.png"

    shown = [s for s in report.stats if s.scores and not s.pending][::-1]
    if shown:
        fig, ax = plt.subplots(figsize=(6, 0.45 * len(shown) + 1.2), layout="constrained")
        names = [report.question_name(s.question) for s in shown]
        ax.barh(names, [s.facility for s in shown], color="#5a9e6f")
        ax.set(xlim=(0, 1), xlabel="mean score / max (facility; low = hard)",
               title="Question difficulty (fully graded questions)")  # fmt: skip
        fig.savefig(folder / "question_difficulty.png", dpi=110)
        plt.close(fig)
        made["question_difficulty"] = "question_difficulty.png"

    counts = report.students_per_misconception()
    if counts:
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(counts) + 1.4), layout="constrained")
        labels = [report.titles.get(mid, mid) for mid in counts][::-1]
        ax.barh(labels, [len(v) for v in counts.values()][::-1], color="#c0504d")
        ax.set(xlabel="students", xlim=(0, max(len(v) for v in counts.values()) + 0.5))
        fig.suptitle("Misconceptions shown by the class")
        ax.xaxis.get_major_locator().set_params(integer=True)  # type: ignore[call-arg]  # stub says Locator; the default is a MaxNLocator
        fig.savefig(folder / "misconceptions.png", dpi=110)
        plt.close(fig)
        made["misconceptions"] = "misconceptions.png"
    return made


def _esc(value: object) -> str:
    return html_text(value)


def html_table(header: list[str], rows: list[list[Any]]) -> str:
    """Return a table with every header and cell escaped (cells may hold student-chosen text)."""
    head = "".join(f"<th scope='col'>{_esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _banner(report: Report) -> str:
    if not report.pending:
        return ""
    waiting = sum(bool(r.pending) for r in report.students)
    return (
        "<p class='banner' role='status'><strong>Grading is not finished:</strong> "
        f"{report.pending} answer(s) of {waiting} student(s) still wait for a teacher. "
        "Means, difficulty and the histogram below use graded answers and fully graded "
        "students only; grade the rest in the formgrader and run <code>make report</code> "
        "again.</p>"
    )


def _questions(report: Report) -> str:
    rows = [
        [
            report.question_name(s.question),
            "by a teacher" if s.kind == "manual" else "automatically",
            f"{s.mean:.2f}" if s.scores else "",
            f"{s.max_score:g}",
            f"{s.facility:.0%}" if s.scores else "",
            s.difficulty,
            len(s.scores),
            s.pending,
        ]
        for s in report.stats
    ]
    header = ["question", "graded", "mean score", "max", "facility", "difficulty", "scored",
              "awaiting teacher"]  # fmt: skip
    return html_table(header, rows)


def _students(report: Report) -> str:
    rows = [
        [
            r.student,
            _score(r),
            ", ".join(report.titles.get(m, m) for m in r.misconceptions),
            r.late,
            ", ".join(r.timeouts),
            "; ".join(r.errors),
            len(report.submissions.get(r.student, [])) or "",
        ]
        for r in report.students
    ]
    header = ["student", "score", "misconceptions", "late", "timed out", "error", "submissions"]
    return html_table(header, rows)


def _score(row: StudentRow) -> str:
    if not row.handed_in:
        return "no submission (0)"
    return f"{row.score:g}" + (f" (so far; {row.pending} waiting)" if row.pending else "")


def _how_late(seconds: float) -> str:
    words = how_late(seconds)
    return words if seconds <= 0 else f"{words} late"


def _when(value: datetime | None) -> str:
    return "" if value is None else f"{value:%Y-%m-%d %H:%M:%S} UTC"


def _submissions(report: Report) -> str:
    """Every submission collect received, per student, and the folders it refused."""
    if not report.submissions and not report.refused:
        return (
            "<p>No submission history yet: <code>make collect</code> records every submission "
            "the exchange received (<code>submission_history/</code>).</p>"
        )
    rows = [
        [student if i == 0 else "", i + 1, _when(line.received), _how_late(line.late_seconds),
         line.sha256[:12], line.status]
        for student, lines in report.submissions.items()
        for i, line in enumerate(lines)
    ]  # fmt: skip
    header = ["student", "#", "received by the exchange", "late", "content (SHA-256)", "status"]
    html = html_table(header, rows)
    if report.refused:
        refused = [[r.owner, _when(r.received), r.reason] for r in report.refused]
        html += (
            "<h3>Refused folders</h3><p>Not collected, and in no student's history: who made "
            "each folder comes from the filesystem, not from its name.</p>"
            + html_table(["folder owned by", "received by the exchange", "why refused"], refused)
        )
    return html


def _misconceptions(report: Report, fig: dict[str, str]) -> str:
    counts = report.students_per_misconception()
    if not counts:
        return "<p>No misconceptions were diagnosed.</p>"
    n = report.class_size
    where = report.questions_per_misconception()
    rows = [
        [report.titles.get(mid, mid), mid, len(students),
         f"{len(students) / n:.0%}" if n else "",
         ", ".join(report.question_name(q) for q in where[mid])]
        for mid, students in counts.items()
    ]  # fmt: skip
    overall = html_table(["misconception", "id", "students", "share of class", "questions"], rows)
    per_q = [
        [
            report.question_name(question),
            report.titles.get(mid, mid),
            len(students),
            ", ".join(students),
        ]
        for question, by_id in report.misconceptions_per_question().items()
        for mid, students in by_id.items()
    ]
    return (
        overall
        + fig.get("misconceptions", "")
        + "<h3>By question</h3>"
        + html_table(["question", "misconception", "students", "who"], per_q)
    )


def _variants(report: Report) -> str:
    """Return each student's numbers beside her answers, one row per test (or nothing)."""
    if not report.variants:
        return ""
    rows = [
        [v.student, report.question_name(v.question), v.numbers, v.answers,
         "passed" if v.passed else "failed", report.titles.get(v.misconception, v.misconception)]
        for v in report.variants
    ]  # fmt: skip
    header = ["student", "test", "her numbers", "her answers", "result", "misconception"]
    return (
        "<h2>Each student's numbers</h2>\n<p>Every student answered on her own numbers (drawn "
        "for the id the exchange trusts): each test's numbers and the answers it read. The "
        "misconceptions above are counted across these variants.</p>\n" + html_table(header, rows)
    )


def _flags(report: Report) -> str:
    """Return what grading flagged, each kind explained with the registry's words (:mod:`~attention_grader.common.flags`)."""
    rows = [
        [r.student, f.kind, f.meaning.text, f.meaning.action, f.detail]
        for r in report.students
        for f in r.flags
    ]
    if not rows:
        return "<p>Grading flagged nothing.</p>"
    return html_table(["student", "flag", "what it means", "what to do", "detail"], rows)


def _links(links: dict[str, str]) -> str:
    items = "".join(
        f"<li><a href='{html_text(href)}'>{html_text(Path(href).name)}</a>: {html_text(what)}</li>"
        for href, what in links.items()
    )
    return f"<ul>{items}</ul>"


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1a1a1a; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #bbb; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #eef2f7; }
img { max-width: 100%; display: block; margin: 1rem 0; }
.banner { background: #fdf7e6; border-left: 4px solid #b07d00; padding: .6rem .8rem; }
"""


def page_start(title: str) -> str:
    """Return the head of a teacher's report page (shared style) and its ``<h1>`` (escaped)."""
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}'
        f"</title>\n<style>{_STYLE}</style></head><body>\n<h1>{_esc(title)}</h1>"
    )


def page_html(report: Report, figs: dict[str, str], links: dict[str, str]) -> str:
    """Return the report page (without its CSP)."""
    fig = {
        k: f"<img src='{v}' alt='{html_text(k.replace('_', ' '))} chart'>" for k, v in figs.items()
    }
    final = report.final_totals()
    mean = "n/a" if report.mean is None else f"{report.mean:.2f}"
    left_out = len(report.totals) - len(final)
    note = (
        f" ({left_out} with answers still waiting for you: their score so far)" if left_out else ""
    )
    missing = len(report.missing)
    never = f"; {missing} never handed in (0 in grades.csv)" if missing else ""
    return f"""{page_start(f"Class report: {report.assignment}")}
{_banner(report)}
<p>A class of {report.class_size}: {len(report.totals)} handed in{never}. Mean final score
{mean} out of {report.max_total:g} (late penalties subtracted, as in the formgrader) over the
{len(report.totals)} who handed in{note}.</p>
<h2>Questions</h2>
<p>Facility is the mean score as a share of the maximum: easy &ge; 80%, medium &ge; 50%, hard
below. It uses graded answers only; a question is labelled once all its answers are graded.</p>
{_questions(report)}
{fig.get("question_difficulty", "")}
<h2>Score distribution</h2>
<p>One bar per whole score (a total with a fraction counts in the nearest).</p>
{fig.get("score_distribution", "")}
<h2>Students</h2>
{_students(report)}
<h2>Submissions</h2>
<p>Every submission the exchange received, oldest first, as collect saw it: the time is the
exchange's own (never the folder's name or <code>timestamp.txt</code>), the content a hash of the
files; the one graded is marked. Late is against the due date, before any grace.</p>
{_submissions(report)}
<h2>Misconceptions</h2>
<p>How many students' answers matched each known buggy computation (a student counts once per
misconception, even if it shows in several questions).</p>
{_misconceptions(report, fig)}
{_variants(report)}
<h2>Flags</h2>
<p>What grading asks you to look at (the batch summary lists the same: the flags in the graded
notebooks, and lateness).</p>
{_flags(report)}
<h2>Data</h2>
{_links(links)}
</body></html>
"""
