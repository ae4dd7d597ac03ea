"""The learning-gain page: ``reports/gain/index.html`` with PNG figures, and ``gain.csv``.

The numbers come from :func:`attention_grader.reports.gain.build_gain`. Everything a submission could
have chosen (student ids) is escaped in the page and defused in the CSV (a cell starting with
``=`` is a formula to a spreadsheet), and the page carries a Content-Security-Policy that allows
no script (:mod:`attention_grader.pages.csp`), as the class report does.
"""

from __future__ import annotations

import csv
import html
import os
from pathlib import Path

from attention_grader.common.safe_text import csv_cell, printable
from attention_grader.config.course import Course
from attention_grader.pages.csp_policy import STATIC_PAGE_POLICY, add_csp_meta
from attention_grader.reports.gain import HAKE_INTERACTIVE, HAKE_TRADITIONAL, GainReport, build_gain
from attention_grader.reports.question_stats import difficulty_label
from attention_grader.reports.report_page import html_table, page_start

__all__ = ["write_gain"]


# --------------------------------------------------------------------------- figures


def _figures(report: GainReport, folder: Path) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")  # files only (runs in make and CI)
    import matplotlib.pyplot as plt
    import numpy as np

    made = {}
    if report.students:
        fig, ax = plt.subplots(figsize=(6, 3.4), layout="constrained")
        # on the items both forms have, as the class averages and the CSV's student rows
        pre = [report.percents(s)[0] for s in report.students]
        post = [report.percents(s)[1] for s in report.students]
        bins = np.linspace(0, 100, 11)
        ax.hist(
            [pre, post],
            bins=bins,  # type: ignore[arg-type]  # the stub omits arrays
            label=["before", "after"],
            color=["#b0b0b0", "#3b6ea5"],
        )
        ax.set(xlabel="score (%)", ylabel="students",
               title=f"Scores before and after ({len(pre)} students)")  # fmt: skip
        ax.yaxis.get_major_locator().set_params(integer=True)  # type: ignore[call-arg]  # a MaxNLocator: whole students
        ax.legend()
        fig.savefig(folder / "scores.png", dpi=110)
        plt.close(fig)
        made["scores"] = "scores.png"
    for name, rows, label, title in (
        ("items", [(r.item, r.pre, r.post) for r in report.items], "share right", "Items"),
        ("misconceptions",
         [(r.title, r.pre, r.post) for r in report.misconceptions if r.pre or r.post],
         "estimated share of students holding it", "Misconceptions"),
    ):  # fmt: skip
        if not rows or not report.students:
            continue
        fig, ax = plt.subplots(figsize=(10, 0.42 * len(rows) + 1.6), layout="constrained")
        y = np.arange(len(rows))[::-1]
        ax.barh(y + 0.2, [r[1] or 0 for r in rows], 0.4, label="before", color="#b0b0b0")
        ax.barh(y - 0.2, [r[2] or 0 for r in rows], 0.4, label="after", color="#3b6ea5")
        ax.set_yticks(y, [r[0] for r in rows])
        ax.set(xlim=(0, 1), xlabel=label)
        fig.suptitle(f"{title}: before and after")  # over the whole figure: long labels fit
        fig.legend(loc="outside lower center", ncols=2)
        fig.savefig(folder / f"{name}.png", dpi=110)
        plt.close(fig)
        made[name] = f"{name}.png"
    return made


# --------------------------------------------------------------------------- page and CSV


def _pct(x: float | None) -> str:
    return "" if x is None else f"{x:.0%}"


def _band(facility: float | None) -> str:
    return "-" if facility is None else difficulty_label(facility)


def _of(count: int, n: int) -> str:
    """``"1 of 4 (25%)"``: a count of students said with its share, as the estimates beside it."""
    return f"{count} of {n} ({count / n:.0%})" if n else str(count)


def _g(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


#: Below this many students, one student moves ⟨g⟩ by a tenth or more: the page says so.
SMALL_CLASS = 10


def _small_sample(n: int) -> str:
    if n >= SMALL_CLASS:
        return ""
    return (
        f"<p class='caution'><strong>A small class: {n} student(s).</strong> With fewer than "
        f"{SMALL_CLASS}, one student's answers move &lang;g&rang; a lot; read it as a rough "
        "indication, not a measurement, and compare it with another class or term before "
        "drawing conclusions.</p>"
    )


def _html(report: GainReport, figures: dict[str, str], docs_href: str) -> str:
    fig = {k: f"<img src='{v}' alt='{k} chart'>" for k, v in figures.items()}
    n = len(report.students)
    item_rows = [
        [r.item, _pct(r.pre), _pct(r.post), f"{_band(r.pre)} -> {_band(r.post)}"]
        for r in report.items
    ]
    m_rows = [
        [r.title, r.id, _pct(r.pre), _pct(r.post),
         f"{_of(r.pre_chose, n)} / {_of(r.post_chose, n)}", f"{r.pre_items} / {r.post_items}"]
        for r in report.misconceptions
    ]  # fmt: skip
    apart = [[printable(s), "before only"] for s in report.pre_only]
    apart += [[printable(s), "after only"] for s in report.post_only]
    perfect = len(report.perfect_pre)
    left_out = f" ({perfect} student(s) with 100% before left out)" if perfect else ""
    title = f"Learning gain: {report.pre.assignment} -> {report.post.assignment}"
    return f"""{page_start(title)}
<p>{n} students took both tests; they are the class below.</p>
{
        html_table(
            ["", "before", "after"],
            [["class average score", f"{report.class_pre:.1f}%", f"{report.class_post:.1f}%"]],
        )
    }
<p><strong>Normalised gain &lang;g&rang; = {_g(report.class_gain)}</strong>: the class gained that
fraction of what it could have gained, (after &minus; before) / (100% &minus; before), on the class
averages (Hake 1998). The average of the students' own gains is
{_g(report.mean_student_gain)}{left_out}.
For comparison, Hake measured &lang;g&rang; = {HAKE_TRADITIONAL} on average for traditional
lecture courses and {HAKE_INTERACTIVE} for interactive-engagement courses (physics, Force
Concept Inventory); see <a href="{html.escape(docs_href)}">Measuring what the class learned</a>
(docs/teachers-gain.md).</p>
{_small_sample(n)}
{fig.get("scores", "")}
<h2>Items</h2>
<p>The share of the class that chose the right option, before and after (parallel items share
an id), and the difficulty it means: easy &ge; 80%, medium &ge; 50%, hard below.</p>
{html_table(["item", "right before", "right after", "difficulty"], item_rows)}
{fig.get("items", "")}
<h2>Misconceptions</h2>
<p>"Before" and "after" estimate the share of the class holding each misconception: on an item
that offers it, the share of the class that falls for it, averaged over those items. A student
can choose only one wrong option per item, so one holding two misconceptions that the same item
offers shows only one there; the estimate corrects for that, item by item, so it can be above
the share that chose it ("chose": the students who chose its option at least once, of the {n}
who took both tests). "Items" says on how many items of each test one option reveals it (one
item measures less surely than several).</p>
{
        html_table(
            [
                "misconception",
                "id",
                "estimated before",
                "estimated after",
                "chose it (before / after)",
                "items (before / after)",
            ],
            m_rows,
        )
    }
{fig.get("misconceptions", "")}
<h2>Left out</h2>
{html_table(["student", "took"], apart) if apart else "<p>Every student took both tests.</p>"}
</body></html>
"""


def _csv_rows(report: GainReport) -> list[list[str | int | float]]:
    def num(x: float | None, fmt: str) -> str:
        return "" if x is None else format(x, fmt)

    rows: list[list[str | int | float]] = [
        ["class", "average score (%)", num(report.class_pre, ".2f"),
         num(report.class_post, ".2f"), num(report.class_gain, ".4f")],
        ["class", "average of individual gains", "", "", num(report.mean_student_gain, ".4f")],
    ]  # fmt: skip
    rows += [["item", r.item, num(r.pre, ".4f"), num(r.post, ".4f"), ""] for r in report.items]
    rows += [
        ["misconception", r.id, num(r.pre, ".4f"), num(r.post, ".4f"), ""]
        for r in report.misconceptions
    ]
    for s in report.students:
        pre, post = report.percents(s)
        gain = num(report.student_gain(s), ".4f")
        rows.append(["student", csv_cell(s), f"{pre:.2f}", f"{post:.2f}", gain])
    rows += [["student", csv_cell(s), f"{report.pre.percent(s):.2f}", "", ""]
             for s in report.pre_only]  # fmt: skip
    rows += [["student", csv_cell(s), "", f"{report.post.percent(s):.2f}", ""]
             for s in report.post_only]  # fmt: skip
    return rows


def write_gain(course: Course, pre: str, post: str, out: str | Path | None = None) -> Path:
    """Write ``index.html``, its PNG figures and ``gain.csv``; return the HTML path.

    ``gain.csv`` has one row per figure: ``kind`` (class, item, misconception, student),
    ``name``, ``before``, ``after`` and ``gain`` (percentages for scores, 0-1 shares otherwise).
    """
    report = build_gain(course, pre, post)
    folder = Path(out) if out else course.root / "reports" / "gain"
    folder.mkdir(parents=True, exist_ok=True)
    figures = _figures(report, folder)
    with (folder / "gain.csv").open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["kind", "name", "before", "after", "gain"])
        writer.writerows([[csv_cell(c) for c in row] for row in _csv_rows(report)])
    page = folder / "index.html"
    docs = os.path.relpath(
        Path(course.root).resolve() / "docs" / "teachers-gain.md", folder.resolve()
    )
    page.write_text(add_csp_meta(_html(report, figures, Path(docs).as_posix()), STATIC_PAGE_POLICY))
    return page
