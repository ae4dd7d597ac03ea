"""`make html` (attention_grader.pages.docs_site): the docs and the lessons as one static site.

The site is built once for the module from this repository's docs; the start page as the run
executed it (tests/support/lesson_run.py: a lesson page with outputs) and the other lessons
exported as stored, which gives the same pages, links and navigation
(tests/attention_grader/pages/test_lesson_pages.py checks the executed lessons' pages). Checked: every internal link and anchor resolves, every
page is reachable from the home page, every page has the one navigation bar in NAV's order, and
nothing is loaded from the internet.
"""

from __future__ import annotations

import shutil
from collections import deque
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest
from attention_grader.pages.docs_site import (
    NAV,
    build_site,
    doc_pages,
    github_slug,
    render_markdown,
)
from attention_grader.pages.lesson_pages import Lesson, _title
from bs4 import BeautifulSoup
from nbformat.v4 import new_markdown_cell, new_notebook

from tests.support.lesson_run import executed

ROOT = Path(__file__).resolve().parents[3]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXECUTED = "00_start_here"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    lessons = []
    for path in LESSONS:
        nb = executed()[EXECUTED] if path.stem == EXECUTED else nbformat.read(path, as_version=4)
        lessons.append(Lesson(path.stem, _title(nb, path.stem), nb))
    build_site(lessons, out, ROOT)
    return out


def _soup(page: Path) -> BeautifulSoup:
    return BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")


def _local_refs(soup: BeautifulSoup) -> list[str]:
    """Every href and src of a page that points into the site (not a URL, not data:)."""
    refs = [
        t.get("href") or t.get("src") for t in soup.find_all(href=True) + soup.find_all(src=True)
    ]
    return [r for r in refs if not (urlsplit(r).scheme or urlsplit(r).netloc)]


def broken_links(site_dir: Path) -> list[str]:
    """``page: href`` for each internal link or picture whose file or anchor is missing."""
    ids: dict[Path, set[str]] = {}
    for page in site_dir.rglob("*.html"):
        soup = _soup(page)
        ids[page.resolve()] = {t["id"] for t in soup.find_all(id=True)} | {
            a["name"] for a in soup.find_all("a", attrs={"name": True})
        }
    broken = []
    for page in site_dir.rglob("*.html"):
        for ref in _local_refs(_soup(page)):
            parts = urlsplit(ref)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            inside = target.is_relative_to(site_dir.resolve())
            if not inside or not target.is_file():
                broken.append(f"{page.name}: {ref}")
            elif parts.fragment and not {parts.fragment, unquote(parts.fragment)} & ids.get(
                target, set()
            ):
                # as a browser looks: the fragment as written, then percent-decoded (nbconvert's
                # heading ids are percent-encoded, GitHub's are not)
                broken.append(f"{page.name}: {ref} (no such anchor)")
    return broken


@pytest.mark.slow
def test_every_internal_link_and_anchor_resolves(site):
    assert broken_links(site) == []


@pytest.mark.slow
def test_the_link_check_finds_a_missing_page_picture_and_anchor(site, tmp_path):
    copy = shutil.copytree(site, tmp_path / "site")
    page = copy / "students.html"
    page.write_text(
        page.read_text().replace(
            "</main>",
            '<a href="nowhere.html">x</a><img src="docs/img/missing.png" alt="x">'
            '<a href="teachers.html#no-such-heading">y</a><a href="../outside.html">z</a></main>',
        )
    )
    assert sorted(broken_links(copy)) == [
        "students.html: ../outside.html",
        "students.html: docs/img/missing.png",
        "students.html: nowhere.html",
        "students.html: teachers.html#no-such-heading (no such anchor)",
    ]


@pytest.mark.slow
def test_every_page_is_reachable_from_the_home_page(site):
    seen, todo = {site / "index.html"}, deque([site / "index.html"])
    while todo:
        page = todo.popleft()
        for ref in _local_refs(_soup(page)):
            path = urlsplit(ref).path
            target = (page.parent / unquote(path)).resolve() if path else page
            if target.suffix == ".html" and target.is_file() and target not in seen:
                seen.add(target)
                todo.append(target)
    pages = {p.resolve() for p in site.rglob("*.html")}
    assert {p.name for p in pages - {s.resolve() for s in seen}} == set()
    # ...and those pages are every Markdown page of the repository's docs and every lesson
    expected = {f"{p.stem}.html" for p in (ROOT / "docs").glob("*.md")}
    expected |= {f"{p.stem}.html" for p in LESSONS} | {"index.html", "lessons.html"}
    assert expected <= {p.name for p in pages}


@pytest.mark.slow
def test_every_page_has_the_one_navigation_bar_in_nav_order(site):
    assert [n.label for n in NAV][:3] == ["Home", "Students", "Lessons"]
    for page in site.rglob("*.html"):
        bars = _soup(page).select("nav.site-nav")
        assert len(bars) == 1, page.name
        assert [a["href"] for a in bars[0].find_all("a")] == [n.href for n in NAV], page.name
        current = [a["href"] for a in bars[0].find_all("a", attrs={"aria-current": "page"})]
        lesson = page.name[:2].isdigit()
        in_nav = page.name in {n.href for n in NAV}
        assert current == (["lessons.html"] if lesson else [page.name] if in_nav else []), page


@pytest.mark.slow
def test_lesson_pages_keep_their_course_order_links_under_the_bar(site):
    soup = _soup(site / "01_the_bottleneck.html")
    assert [a["href"] for a in soup.find_all("a", rel="index")] == ["lessons.html"] * 2
    assert [a["href"] for a in soup.find_all("a", rel="prev")] == ["00_start_here.html"] * 2
    executed = _soup(site / f"{EXECUTED}.html")
    assert executed.select(".jp-OutputArea-output"), "the executed lesson shows its outputs"
    listed = [a["href"] for a in _soup(site / "lessons.html").select("main ol a")]
    assert listed == [f"{p.stem}.html" for p in LESSONS]


@pytest.mark.slow
def test_nothing_is_loaded_from_the_internet(site):
    for page in site.glob("*.html"):
        soup = _soup(page)
        for tag in soup.find_all(["script", "link", "img", "iframe"]):
            url = tag.get("src") or tag.get("href") or ""
            assert not urlsplit(url).netloc, f"{page.name}: {tag.name} loads {url}"
    for doc in doc_pages(ROOT):
        assert not _soup(site / doc.href).find("script"), doc.href  # docs pages run nothing


@pytest.mark.slow
def test_the_home_page_is_the_readme_with_its_screenshot(site):
    soup = _soup(site / "index.html")
    assert soup.h1.get_text() == "Attention Lab"
    img = soup.select_one("main img")
    assert img["src"] == "docs/img/explorer-jupyterlab.png" and len(img["alt"]) > 20
    assert (site / img["src"]).stat().st_size < 200_000


def test_markdown_links_become_links_between_pages(tmp_path):
    (tmp_path / "docs" / "img").mkdir(parents=True)
    (tmp_path / "docs" / "img" / "a.png").write_bytes(b"\x89PNG")
    (tmp_path / "docs" / "guide.md").write_text(
        "# Guide\n\n## Late work\n\n## Late work\n\n[home](../README.md) "
        "[lesson](../notebooks/01_x.ipynb) ![a picture of a](img/a.png)\n"
    )
    (tmp_path / "README.md").write_text(
        "# Home\n\n[late](docs/guide.md#late-work-1) [web](https://example.org/x.md) [top](#home)"
    )
    lesson = Lesson("01_x", "X", new_notebook(cells=[new_markdown_cell("# X")]))
    build_site([lesson], tmp_path / "site", tmp_path)
    home, guide = _soup(tmp_path / "site" / "index.html"), _soup(tmp_path / "site" / "guide.html")
    assert [a["href"] for a in home.main.find_all("a")] == [
        "guide.html#late-work-1",
        "https://example.org/x.md",
        "#home",
    ]
    assert [h["id"] for h in guide.find_all(["h1", "h2"])] == ["guide", "late-work", "late-work-1"]
    assert [a["href"] for a in guide.main.find_all("a")] == ["index.html", "01_x.html"]
    assert guide.main.img["src"] == "docs/img/a.png"
    assert (tmp_path / "site" / "docs" / "img" / "a.png").read_bytes() == b"\x89PNG"


def test_a_link_to_a_missing_file_stops_the_build(tmp_path):
    (tmp_path / "README.md").write_text("# Home\n\nSee [the guide](docs/gide.md).\n")
    with pytest.raises(ValueError, match=r"README.md links to docs/gide.md"):
        build_site([], tmp_path / "site", tmp_path)


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Grading safely: the threat model", "grading-safely-the-threat-model"),
        ("Assignments (nbgrader)", "assignments-nbgrader"),
        (
            "<code>make check</code>: see what an answer shows",
            "make-check-see-what-an-answer-shows",
        ),
        ("Measuring learning: ⟨g⟩", "measuring-learning-g"),
    ],
)
def test_headings_get_githubs_ids(heading, slug):
    assert github_slug(heading) == slug


def test_docs_markdown_keeps_code_and_tables():
    page = render_markdown(
        "| a | b |\n|---|---|\n| `make x` | 2 |\n\n```bash\nmake lab\n```\n", str
    )
    soup = BeautifulSoup(page, "html.parser")
    assert soup.find("table") and soup.td.code.get_text() == "make x"
    assert soup.pre.get_text() == "make lab\n"
    assert soup.pre["tabindex"] == "0"  # a block that scrolls sideways can be scrolled by keys


def _imports(path: Path, package: str) -> set[str]:
    """Every module name ``path`` imports (lazy ones too), relative imports resolved."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return names


@pytest.mark.slow
def test_make_html_needs_only_what_make_setup_installs():
    """A student's `make html` runs on `make setup` alone: the site builder and every grader
    module it reaches (lazy imports included) import only what the students' dependencies
    bring, so the grader extra is not needed.
    """
    import importlib.util
    import re
    import sys
    from importlib.metadata import packages_distributions

    from tests.support.project_packages import audience, canonical, closure

    target = re.search(r"^html:(.*)##", (ROOT / "make" / "lessons.mk").read_text(), re.M)
    assert target and target[1].split() == ["setup"], "make html must depend on setup only"

    todo, seen, third_party = ["attention_grader.pages.docs_site"], set(), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, AttributeError):  # a name imported from a module, not a module
            spec = None
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        package = name if spec.submodule_search_locations else name.rpartition(".")[0]
        for imported in _imports(Path(spec.origin), package):
            top = imported.split(".")[0]
            if top == "attention_grader":
                todo.append(imported)
            elif top not in sys.stdlib_module_names and top != "__future__":
                third_party.add(top)
    assert "attention_grader.pages.offline_html" in seen and "nh3" in third_party

    distributions = packages_distributions()
    needed = {canonical(d) for top in third_party for d in distributions.get(top, [top])}
    missing = needed - closure(audience())
    assert not missing, f"make html needs {sorted(missing)}, which make setup does not install"
