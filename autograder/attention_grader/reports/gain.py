"""Learning gain: a pre-test and a post-test of the concept inventory, compared.

The two tests are parallel forms (``source/inventory_pre`` and ``source/inventory_post``): their
test cells share grade ids, one multiple-choice item each, and each wrong option is a registry
misconception. After both are autograded this module computes

* each student's score in percent on each form, and the class averages;
* Hake's normalised gain on the class averages, ``<g> = (post - pre) / (100 - pre)`` (Hake 1998),
  and the average of the students' own gains ``g_i = (post_i - pre_i) / (100 - pre_i)``;
* per item, the facility (share right) before and after;
* per misconception, the share of students who hold it, before and after, and how many chose
  it at least once. A student can choose only one wrong option per item, so a student holding
  two misconceptions offered by the same item shows just one of them there; counting choices
  alone under-counts a misconception that shares its items with common ones.
  :func:`holding_shares` corrects for that item by item (see there) and averages over the items
  that offer the misconception.

Only students who took both tests count; the others are listed apart. Scores come from the
gradebook and misconceptions from the ``Misconception`` errors that the grader's own process
writes into the autograded notebooks (:func:`attention_grader.reports.class_diagnoses.find_diagnoses`); which
misconceptions each item offers is read from the teacher's source notebooks.
:mod:`attention_grader.reports.gain_page` writes the page and the CSV.
"""

from __future__ import annotations

import ast
import statistics
from collections.abc import Collection, Iterator
from dataclasses import dataclass

import nbformat

from attention_grader.config.course import Course
from attention_grader.reports.class_diagnoses import find_diagnoses, misconception_titles

__all__ = [
    "Form",
    "GainReport",
    "ItemRow",
    "MisconceptionRow",
    "build_gain",
    "hake_gain",
    "holding_shares",
    "offered_misconceptions",
    "read_form",
]

#: Hake (1998), Am. J. Phys. 66, 64: average <g> of traditional and interactive-engagement courses.
HAKE_TRADITIONAL, HAKE_INTERACTIVE = 0.23, 0.48


@dataclass(frozen=True)
class Form:
    """One graded test form.

    Attributes
    ----------
    assignment : str
    items : tuple of str
        The autograded test cells' grade ids, in notebook order.
    max_scores : dict of str to float
        item -> points.
    scores : dict of str to dict of str to float
        student -> item -> points scored (every student with a submission).
    shown : dict of str to dict of str to str
        student -> item -> the misconception id the grader named there (items without one are
        left out).
    offered : dict of str to tuple of str
        misconception id -> the items with an option that reveals it.
    """

    assignment: str
    items: tuple[str, ...]
    max_scores: dict[str, float]
    scores: dict[str, dict[str, float]]
    shown: dict[str, dict[str, str]]
    offered: dict[str, tuple[str, ...]]

    def held(self, student: str) -> set[str]:
        """Return the misconceptions the student showed at least once on this form."""
        return set(self.shown[student].values())

    def percent(self, student: str, items: Collection[str] | None = None) -> float:
        """Return the student's score on ``items`` (default: all), in percent of their maximum."""
        items = self.items if items is None else [i for i in self.items if i in items]
        total = sum(self.max_scores[item] for item in items)
        got = sum(self.scores[student].get(item, 0.0) for item in items)
        return 100.0 * got / total if total else 0.0


def _test_cells(course: Course, assignment: str) -> Iterator[tuple[str, str]]:
    """(grade id, source) of every autograded test cell in the teacher's source notebooks."""
    for path in sorted((course.root / "source" / assignment).glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            meta = cell.metadata.get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("grade"):
                yield meta["grade_id"], cell.source


def offered_misconceptions(source: str) -> set[str]:
    """Return the misconception ids a test cell's checks can name (their literal keyword arguments).

    Reads ``misconceptions={"b": "hard_attention", ...}`` and ``misconception="..."`` in
    ``checks.check_*`` calls without running anything.
    """
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg not in ("misconceptions", "misconception"):
                continue
            try:
                value = ast.literal_eval(kw.value)
            except ValueError:
                continue
            found |= set(value.values()) if isinstance(value, dict) else {value}
    return {slug for slug in found if isinstance(slug, str)}


def read_form(course: Course, assignment: str) -> Form:
    """Scores, diagnoses and offered misconceptions of one graded form."""
    cells = list(_test_cells(course, assignment))
    order = [gid for gid, _ in cells]
    max_scores, scores = {}, {}
    with course.gradebook() as gb:
        if assignment not in {a.name for a in gb.assignments}:
            raise ValueError(
                f"{assignment} is not in the gradebook: release, collect and grade it first "
                f"(make release A={assignment}, make collect A={assignment}, "
                f"make grade A={assignment})"
            )
        for nb in gb.find_assignment(assignment).notebooks:
            for gc in nb.grade_cells:
                if gc.cell_type == "code":
                    max_scores[gc.name] = gc.max_score
        for sub in gb.assignment_submissions(assignment):
            scores[sub.student.id] = {
                g.name: g.score or 0.0
                for snb in sub.notebooks
                for g in snb.grades
                if g.name in max_scores
            }
    offered: dict[str, list[str]] = {}
    for gid, source in cells:
        # only the items this form was graded with (an older, shorter form keeps its own)
        for slug in sorted(offered_misconceptions(source)) if gid in max_scores else ():
            offered.setdefault(slug, []).append(gid)
    shown: dict[str, dict[str, str]] = {student: {} for student in scores}
    for d in find_diagnoses(course, assignment):
        if d.student in shown and d.question in max_scores:
            shown[d.student][d.question] = d.id
    items = tuple(sorted(max_scores, key=lambda g: order.index(g) if g in order else len(order)))
    return Form(
        assignment,
        items,
        max_scores,
        scores,
        shown,
        {slug: tuple(gids) for slug, gids in offered.items()},
    )


def hake_gain(pre: float, post: float) -> float | None:
    """Hake's normalised gain ``(post - pre) / (100 - pre)`` of two percentages.

    None when ``pre`` is 100: nothing was left to gain, so the ratio is undefined.
    """
    if pre >= 100.0:
        return None
    return (post - pre) / (100.0 - pre)


def _one_choice_correction(chosen: dict[str, float], rounds: int = 200) -> dict[str, float]:
    """Shares acting on each misconception of one item, from the shares that chose each.

    Model: each misconception ``m`` moves a student with probability ``a[m]``, independently,
    and a student moved by several picks one of them at random. Then the share choosing ``m``
    is ``a[m] * E[1 / (1 + K)]``, ``K`` the number of the item's other misconceptions that also
    move the student; this solves those equations for ``a`` by fixed-point iteration.
    """
    acting = dict(chosen)
    for _ in range(rounds):
        new = {}
        for slug, share in chosen.items():
            others = [acting[o] for o in chosen if o != slug]
            # E[1 / (1 + K)] for K a sum of independent Bernoulli(others): over K's distribution
            dist = [1.0]
            for p in others:
                dist = [
                    a * (1 - p) + b * p for a, b in zip([*dist, 0.0], [0.0, *dist], strict=True)
                ]
            expect = sum(prob / (1 + k) for k, prob in enumerate(dist))
            new[slug] = min(1.0, share / expect)
        acting = new
    return acting


def holding_shares(form: Form, students: Collection[str]) -> dict[str, float]:
    """Map misconception id -> estimated share of ``students`` holding it on this form.

    On each item, the shares that chose each misconception's option are corrected for "one
    choice per item" (:func:`_one_choice_correction`); a misconception's estimate is the mean
    over the items that offer it. A misconception named outside the offered items (not in an
    inventory) falls back to the share that showed it.
    """
    if not students:
        return {}
    n = len(students)
    estimates: dict[str, list[float]] = {}
    for item in form.items:
        offered = {slug for slug, items in form.offered.items() if item in items}
        chosen = {
            slug: sum(form.shown[s].get(item) == slug for s in students) / n for slug in offered
        }
        for slug, share in _one_choice_correction(chosen).items():
            estimates.setdefault(slug, []).append(share)
    shares = {slug: statistics.fmean(v) for slug, v in estimates.items()}
    for slug in _shown(form, students) - set(shares):
        shares[slug] = sum(slug in form.held(s) for s in students) / n
    return shares


@dataclass(frozen=True)
class ItemRow:
    """One item: the share of the matched students who got it right, before and after."""

    item: str
    pre: float | None  # None: the item is not on that form
    post: float | None


@dataclass(frozen=True)
class MisconceptionRow:
    """One misconception among the matched students, before and after.

    ``pre`` / ``post`` are the estimated shares holding it (:func:`holding_shares`), ``pre_chose`` /
    ``post_chose`` the numbers of students who chose it, ``pre_items`` / ``post_items`` the
    numbers of items of each form with an option that reveals it.
    """

    id: str
    title: str
    pre: float
    post: float
    pre_chose: int
    post_chose: int
    pre_items: int
    post_items: int


@dataclass(frozen=True)
class GainReport:
    """Everything the gain page shows; percentages are 0-100, shares 0-1."""

    pre: Form
    post: Form
    students: tuple[str, ...]  # took both tests
    pre_only: tuple[str, ...]
    post_only: tuple[str, ...]
    items: tuple[ItemRow, ...]
    misconceptions: tuple[MisconceptionRow, ...]

    @property
    def shared_items(self) -> tuple[str, ...]:
        """The items on both forms: scores and gains compare these only.

        A pre-test graded before the inventory grew (20 items, q1-q20) pairs item by item with a
        post-test of 25; the five new items show in the item table, not in the gain.
        """
        return tuple(i for i in self.pre.items if i in self.post.items)

    def percents(self, student: str) -> tuple[float, float]:
        shared = self.shared_items
        return self.pre.percent(student, shared), self.post.percent(student, shared)

    @property
    def class_pre(self) -> float:
        return (
            statistics.fmean(self.percents(s)[0] for s in self.students) if self.students else 0.0
        )

    @property
    def class_post(self) -> float:
        return (
            statistics.fmean(self.percents(s)[1] for s in self.students) if self.students else 0.0
        )

    @property
    def class_gain(self) -> float | None:
        """Hake's <g> on the class averages (None without students or with a perfect pre-test)."""
        return hake_gain(self.class_pre, self.class_post) if self.students else None

    def student_gain(self, student: str) -> float | None:
        return hake_gain(*self.percents(student))

    @property
    def perfect_pre(self) -> tuple[str, ...]:
        """Students with 100% before: they have no individual gain and are left out of its mean."""
        return tuple(s for s in self.students if self.student_gain(s) is None)

    @property
    def mean_student_gain(self) -> float | None:
        gains = [g for s in self.students if (g := self.student_gain(s)) is not None]
        return statistics.fmean(gains) if gains else None


def build_gain(course: Course, pre: str, post: str) -> GainReport:
    """Read both graded forms and compare them (nothing is written)."""
    a, b = read_form(course, pre), read_form(course, post)
    both = tuple(sorted(set(a.scores) & set(b.scores)))
    items = [ItemRow(i, _facility(a, i, both), _facility(b, i, both)) for i in a.items]
    items += [ItemRow(i, None, _facility(b, i, both)) for i in b.items if i not in a.items]
    titles = misconception_titles()
    slugs = sorted(set(a.offered) | set(b.offered) | _shown(a, both) | _shown(b, both))
    before, after = holding_shares(a, both), holding_shares(b, both)
    rows = [
        MisconceptionRow(
            slug,
            titles.get(slug, slug),
            before.get(slug, 0.0),
            after.get(slug, 0.0),
            sum(slug in a.held(s) for s in both),
            sum(slug in b.held(s) for s in both),
            len(a.offered.get(slug, ())),
            len(b.offered.get(slug, ())),
        )
        for slug in slugs
    ]
    rows.sort(key=lambda r: (-r.pre, -r.post, r.id))
    return GainReport(
        a,
        b,
        both,
        tuple(sorted(set(a.scores) - set(b.scores))),
        tuple(sorted(set(b.scores) - set(a.scores))),
        tuple(items),
        tuple(rows),
    )


def _facility(form: Form, item: str, students: Collection[str]) -> float | None:
    if item not in form.max_scores or not students:
        return None
    top = form.max_scores[item] or 1.0
    return statistics.fmean(form.scores[s].get(item, 0.0) / top for s in students)


def _shown(form: Form, students: Collection[str]) -> set[str]:
    return {slug for s in students for slug in form.held(s)}
