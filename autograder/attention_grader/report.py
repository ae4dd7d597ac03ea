"""Step 6: the class report -- question difficulty, score distribution and misconceptions.

Per-question scores come from the gradebook. Misconceptions come from the autograded notebooks:
a failing check in a test cell leaves an error output with ``ename == "Misconception"`` and an
``evalue`` starting with ``"[<slug>] "`` (the contract of ``attention_lab.checks``); the cell's
``nbgrader.grade_id`` says which question. The report is one HTML page with PNG figures under
``reports/<assignment>/``, readable in any browser without a server. Everything in it that a
submission could have written (question ids, misconception slugs) is escaped, and the page
carries a Content-Security-Policy that allows no script at all (:mod:`attention_grader.csp`).
"""

from __future__ import annotations

import csv
import html
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from attention_lab.misconceptions import parse_diagnosis

from .course import Course
from .csp import STATIC_PAGE_POLICY, add_csp_meta

__all__ = [
    "Diagnosis",
    "QuestionStat",
    "Report",
    "build_report",
    "difficulty_label",
    "find_diagnoses",
    "html_table",
    "misconception_titles",
    "page_start",
    "question_stats",
    "write_report",
]


@dataclass(frozen=True)
class Diagnosis:
    """One misconception shown by one student in one test cell."""

    student: str
    notebook: str
    question: str  # the test cell's nbgrader grade_id
    slug: str
    message: str


@dataclass
class QuestionStat:
    """Class statistics of one autograded test cell.

    Attributes
    ----------
    question : str
        The cell's ``grade_id``.
    notebook : str
    max_score : float
    scores : list of float
        One per submission whose grade is final (autograded, or graded by hand).
    kind : str
        ``"auto"`` for a test cell, ``"manual"`` for an answer a teacher grades.
    pending : int
        Submissions whose grade still waits for a teacher (left out of ``scores``).
    """

    question: str
    notebook: str
    max_score: float
    scores: list[float] = field(default_factory=list)
    kind: str = "auto"  # "auto" (a test cell) or "manual" (graded by a teacher)
    pending: int = 0  # submissions still waiting for a manual grade (not in ``scores``)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.scores) if self.scores else 0.0

    @property
    def facility(self) -> float:
        """Mean score as a fraction of the maximum (1 = everybody got it, 0 = nobody did)."""
        return self.mean / self.max_score if self.max_score else 0.0

    @property
    def difficulty(self) -> str:
        if not self.scores:
            return "awaiting grading"
        return difficulty_label(self.facility)


def difficulty_label(facility: float) -> str:
    """``easy`` (facility >= 0.8), ``medium`` (>= 0.5) or ``hard`` -- the usual item-analysis bands."""
    if facility >= 0.8:
        return "easy"
    if facility >= 0.5:
        return "medium"
    return "hard"


def misconception_titles() -> dict[str, str]:
    """slug -> short human title, from ``attention_lab.checks.MISCONCEPTIONS`` when available."""
    try:
        from attention_lab.checks import MISCONCEPTIONS
    except ImportError:  # the checks module is optional for other courses / the test fixture
        return {}
    return dict(MISCONCEPTIONS)


def find_diagnoses(course: Course, assignment: str) -> list[Diagnosis]:
    """Every misconception error output in the autograded notebooks of ``assignment``."""
    found = []
    for path in sorted((course.root / "autograded").glob(f"*/{assignment}/*.ipynb")):
        student = path.parent.parent.name
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # an unreadable file is reported by `grade`, not here
            continue
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type != "code" or not meta.get("grade"):
                continue
            for out in cell.get("outputs", []):
                if out.get("output_type") != "error" or out.get("ename") != "Misconception":
                    continue
                parsed = parse_diagnosis(out.get("evalue", ""))
                if parsed:
                    found.append(
                        Diagnosis(
                            student, path.stem, meta.get("grade_id", "?"), parsed.id, parsed.message
                        )
                    )
    return found


def question_stats(course: Course, assignment: str) -> tuple[list[QuestionStat], dict[str, float]]:
    """Per-question statistics and each student's total score, from the gradebook.

    Returns
    -------
    stats : list of QuestionStat
        In notebook order.
    totals : dict
        student -> total score (late penalty subtracted).
    """
    with course.gradebook() as gb:
        a = gb.find_assignment(assignment)
        stats = {}
        for nb in a.notebooks:
            for gc in nb.grade_cells:
                kind = "auto" if gc.cell_type == "code" else "manual"
                stats[(nb.name, gc.name)] = QuestionStat(gc.name, nb.name, gc.max_score, kind=kind)
        totals = {}
        for sub in gb.assignment_submissions(assignment):
            totals[sub.student.id] = sub.score or 0.0
            for snb in sub.notebooks:
                for g in snb.grades:
                    stat = stats[(snb.name, g.name)]
                    if g.needs_manual_grade and g.manual_score is None:
                        stat.pending += 1
                    else:
                        stat.scores.append(g.score or 0.0)
    order = {name: i for i, name in enumerate(_notebook_cell_order(course, assignment))}
    ordered = sorted(stats.values(), key=lambda s: (s.notebook, order.get(s.question, 1e9)))
    return ordered, totals


def _notebook_cell_order(course: Course, assignment: str) -> list[str]:
    ids = []
    for path in sorted((course.root / "source" / assignment).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        ids += [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    return [i for i in ids if i]


@dataclass
class Report:
    """Everything the HTML page shows (also handy for tests)."""

    assignment: str
    stats: list[QuestionStat]
    totals: dict[str, float]
    max_total: float
    diagnoses: list[Diagnosis]
    titles: dict[str, str]

    def students_per_misconception(self) -> dict[str, set[str]]:
        """slug -> students who showed it (each student counted once per slug)."""
        out: dict[str, set[str]] = defaultdict(set)
        for d in self.diagnoses:
            out[d.slug].add(d.student)
        return dict(sorted(out.items(), key=lambda kv: (-len(kv[1]), kv[0])))

    def questions_per_misconception(self) -> dict[str, list[str]]:
        out: dict[str, set[str]] = defaultdict(set)
        for d in self.diagnoses:
            out[d.slug].add(d.question)
        return {k: sorted(v) for k, v in out.items()}


def build_report(course: Course, assignment: str) -> Report:
    """Collect the numbers for the report of ``assignment`` (nothing is written)."""
    stats, totals = question_stats(course, assignment)
    with course.gradebook() as gb:
        max_total = gb.find_assignment(assignment).max_score
    return Report(
        assignment,
        stats,
        totals,
        max_total,
        find_diagnoses(course, assignment),
        misconception_titles(),
    )


# --------------------------------------------------------------------------- figures and HTML


def _figures(report: Report, folder: Path) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display (runs in make and CI)
    import matplotlib.pyplot as plt

    made = {}
    fig, ax = plt.subplots(figsize=(6, 3.2), layout="constrained")
    totals = list(report.totals.values())
    bins = max(1, min(20, int(report.max_total) + 1))
    ax.hist(
        totals, bins=bins, range=(0, max(report.max_total, 1)), color="#3b6ea5", edgecolor="white"
    )
    ax.set(xlabel=f"total score (out of {report.max_total:g})", ylabel="students",
           title=f"Score distribution ({len(totals)} submissions)")  # fmt: skip
    ax.yaxis.get_major_locator().set_params(integer=True)
    fig.savefig(folder / "score_distribution.png", dpi=110)
    plt.close(fig)
    made["score_distribution"] = "score_distribution.png"

    if any(s.scores for s in report.stats):
        fig, ax = plt.subplots(figsize=(6, 0.45 * len(report.stats) + 1.2), layout="constrained")
        shown = [s for s in report.stats if s.scores][::-1]
        ax.barh([s.question for s in shown], [s.facility for s in shown], color="#5a9e6f")
        ax.set(xlim=(0, 1), xlabel="mean score / max (facility; low = hard)",
               title="Question difficulty")  # fmt: skip
        fig.savefig(folder / "question_difficulty.png", dpi=110)
        plt.close(fig)
        made["question_difficulty"] = "question_difficulty.png"

    counts = report.students_per_misconception()
    if counts:
        fig, ax = plt.subplots(figsize=(8, 0.45 * len(counts) + 1.4), layout="constrained")
        labels = [report.titles.get(slug, slug) for slug in counts][::-1]
        ax.barh(labels, [len(v) for v in counts.values()][::-1], color="#c0504d")
        ax.set(xlabel="students", xlim=(0, max(len(v) for v in counts.values()) + 0.5))
        fig.suptitle("Misconceptions shown by the class")
        ax.xaxis.get_major_locator().set_params(integer=True)
        fig.savefig(folder / "misconceptions.png", dpi=110)
        plt.close(fig)
        made["misconceptions"] = "misconceptions.png"
    return made


def page_start(title: str) -> str:
    """The head of a teacher's report page (shared style) and its ``<h1>``; ``title`` is escaped."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem;
       color: #1a1a1a; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
th, td {{ border: 1px solid #bbb; padding: .3rem .6rem; text-align: left; }}
th {{ background: #eef2f7; }}
img {{ max-width: 100%; display: block; margin: 1rem 0; }}
</style></head><body>
<h1>{html.escape(title)}</h1>"""


def html_table(header: list[str], rows: list[list[str]]) -> str:
    """A table with every header and cell escaped (cells may hold student-chosen text)."""
    head = "".join(f"<th scope='col'>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html(report: Report, figures: dict[str, str]) -> str:
    n = len(report.totals)
    q_rows = [
        [
            s.question,
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
    counts = report.students_per_misconception()
    where = report.questions_per_misconception()
    m_rows = [
        [
            report.titles.get(slug, slug),
            slug,
            len(students),
            f"{len(students) / n:.0%}" if n else "",
            ", ".join(where[slug]),
        ]  # fmt: skip
        for slug, students in counts.items()
    ]
    fig = {
        k: f"<img src='{v}' alt='{html.escape(k.replace('_', ' '))} chart'>"
        for k, v in figures.items()
    }
    mean_total = statistics.fmean(report.totals.values()) if n else 0.0
    misconceptions = (
        html_table(["misconception", "slug", "students", "share of class", "questions"], m_rows)
        + fig.get("misconceptions", "")
        if m_rows
        else "<p>No misconceptions were diagnosed.</p>"
    )
    return f"""{page_start(f"Class report: {report.assignment}")}
<p>{n} submissions; mean total {mean_total:.2f} out of {report.max_total:g}.</p>
<h2>Questions</h2>
<p>Facility is the mean score as a share of the maximum: easy &ge; 80%, medium &ge; 50%, hard
below. Answers still waiting for a teacher's grade are left out until graded.</p>
{
        html_table(
            [
                "question",
                "graded",
                "mean score",
                "max",
                "facility",
                "difficulty",
                "scored",
                "awaiting teacher",
            ],
            q_rows,
        )
    }
{fig.get("question_difficulty", "")}
<h2>Score distribution</h2>
{fig.get("score_distribution", "")}
<h2>Misconceptions</h2>
<p>How many students' answers matched each known buggy computation (a student counts once per
misconception, even if it shows in several questions).</p>
{misconceptions}
</body></html>
"""


def write_report(course: Course, assignment: str, out: str | Path | None = None) -> Path:
    """Write ``index.html``, the PNG figures and ``misconceptions.csv``; return the HTML path.

    Parameters
    ----------
    out : path, optional
        The folder (default ``<course>/reports/<assignment>/``).
    """
    report = build_report(course, assignment)
    folder = Path(out) if out else course.root / "reports" / assignment
    folder.mkdir(parents=True, exist_ok=True)
    figures = _figures(report, folder)
    with (folder / "misconceptions.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["student", "notebook", "question", "slug", "title"])
        for d in report.diagnoses:
            w.writerow([d.student, d.notebook, d.question, d.slug, report.titles.get(d.slug, "")])
    page = folder / "index.html"
    page.write_text(add_csp_meta(_html(report, figures), STATIC_PAGE_POLICY))
    return page
