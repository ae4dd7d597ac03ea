"""``make html``: the course's documentation and its lessons as one static site, offline.

The docs (README.md as the home page, docs/*.md, CONTRIBUTING.md, CHANGELOG.md and the content
licence) are Markdown rendered to HTML with nbconvert's own Markdown parser (mistune, with the
lessons' MathML maths), and the lessons are exported by :mod:`attention_grader.pages.lesson_pages`. Every page gets
the same navigation bar and the same small stylesheet, both written into the page (nothing is
loaded from the internet). :data:`NAV` is the one list that defines the bar and its order.

A Markdown link between pages (``[teachers](docs/teachers.md#late-work)``) becomes a link
between their HTML pages (``teachers.html#late-work``), and a link to a lesson notebook becomes
a link to its page; any other local file a page links to (a picture, ``LICENSE``) is copied
into the site at its path in the repository. Headings get GitHub's ids, so the same anchors
work on GitHub and in the site. A link to a local file that does not exist stops the build.

``python -m attention_grader.pages.docs_site --out build/html notebooks/0*.ipynb``
"""

from __future__ import annotations

import argparse
import html
import posixpath
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

from attention_grader.pages.csp_policy import STATIC_PAGE_POLICY, add_csp_meta
from attention_grader.pages.lesson_pages import Lesson, SiteChrome, build_pages, read_lessons
from attention_grader.pages.offline_html import MathMLRenderer

__all__ = [
    "NAV",
    "SITE_CSS",
    "DocPage",
    "NavItem",
    "build_site",
    "doc_pages",
    "github_slug",
    "main",
    "nav_html",
    "render_markdown",
]


@dataclass(frozen=True)
class NavItem:
    """One entry of the navigation bar: its label and the page (a file name in the site)."""

    label: str
    href: str


#: The navigation bar on every page, in this order (the one place that defines it).
NAV: tuple[NavItem, ...] = (
    NavItem("Home", "index.html"),
    NavItem("Students", "students.html"),
    NavItem("Lessons", "lessons.html"),
    NavItem("Teachers", "teachers.html"),
    NavItem("Authoring", "authoring.html"),
    NavItem("Hub admins", "hub-admins.html"),
    NavItem("Kubernetes", "kubernetes.html"),
    NavItem("Design", "design.html"),
    NavItem("Contributing", "contributing.html"),
)
#: The lessons' contents page (``lesson_pages`` writes it under this name in the site).
LESSONS_INDEX = "lessons.html"

#: The same stylesheet on every page: the bar everywhere, the text width on docs pages only
#: (lesson pages keep JupyterLab's own look under the bar).
SITE_CSS = """
nav.site-nav { display: flex; flex-wrap: wrap; gap: 0.25em 1.2em; align-items: baseline;
  padding: 0.6em 1em; margin: 0; background: #1f3b57; font-family: system-ui, sans-serif;
  font-size: 16px; line-height: 1.5; }
nav.site-nav a { color: #fff; text-decoration: none; padding: 0.1em 0; }
nav.site-nav a:hover, nav.site-nav a:focus { text-decoration: underline; }
nav.site-nav a[aria-current="page"] { font-weight: bold; border-bottom: 2px solid #fff; }
nav.site-nav .site-name { color: #fff; font-weight: bold; margin-right: 1em; }
body.site-doc { margin: 0; font-family: system-ui, sans-serif; line-height: 1.5; color: #1a1a1a; }
body.site-doc main { max-width: 52em; margin: 1.5em auto 3em; padding: 0 1em; }
body.site-doc pre { background: #f4f4f4; padding: 0.7em; overflow-x: auto; }
body.site-doc code { background: #f4f4f4; padding: 0 0.2em; }
body.site-doc pre code { padding: 0; }
body.site-doc table { border-collapse: collapse; margin: 1em 0; }
body.site-doc th, body.site-doc td { border: 1px solid #ccc; padding: 0.3em 0.6em;
  vertical-align: top; text-align: left; }
body.site-doc img { max-width: 100%; height: auto; }
body.site-doc main a { color: #0b5cad; }
"""


def nav_html(current: str) -> str:
    """Return the navigation bar, with ``current`` (a file name in the site) marked as this page."""
    links = "".join(
        f'<a href="{html.escape(item.href)}"'
        + (' aria-current="page"' if item.href == current else "")
        + f">{html.escape(item.label)}</a>"
        for item in NAV
    )
    return (
        '<nav class="site-nav" aria-label="Site">'
        f'<span class="site-name">Attention Lab</span>{links}</nav>'
    )


@dataclass(frozen=True)
class DocPage:
    """A Markdown file of the repository (``source``, relative) and its page in the site."""

    source: str
    href: str


def doc_pages(root: Path) -> list[DocPage]:
    """Every Markdown page of the site: README.md as ``index.html``, then docs/, then the rest."""
    pages = [DocPage("README.md", "index.html")]
    pages += [DocPage(f"docs/{p.name}", f"{p.stem}.html") for p in sorted(root.glob("docs/*.md"))]
    for name in ("CONTRIBUTING.md", "CHANGELOG.md", "LICENSE-content.md"):
        if (root / name).exists():
            pages.append(DocPage(name, f"{Path(name).stem.lower()}.html"))
    return pages


def github_slug(text: str) -> str:
    """Return a heading's id as GitHub makes it: lower case, no punctuation, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", html.unescape(text)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


class SiteRenderer(MathMLRenderer):
    """The lessons' Markdown renderer with GitHub's heading ids and links rewritten for the site.

    Parameters
    ----------
    resolve : callable
        ``resolve(url) -> str``: the site's href for a link or picture in this page's Markdown.
    """

    def __init__(self, resolve: Callable[[str], str], **kw: Any) -> None:
        super().__init__(escape=False, **kw)
        self.resolve = resolve
        self.ids: dict[str, int] = {}

    def heading(self, text: str, level: int, **attrs: Any) -> str:
        slug = github_slug(text)
        seen = self.ids.get(slug, 0)
        self.ids[slug] = seen + 1
        anchor = f"{slug}-{seen}" if seen else slug  # GitHub numbers repeated headings
        return f'<h{level} id="{html.escape(anchor)}">{text}</h{level}>\n'

    def block_code(self, code: str, info: str | None = None) -> str:
        # Plain <pre><code>: the docs pages load no syntax-highlighting stylesheet. A long line
        # scrolls sideways, so the block takes keyboard focus (tabindex) to be scrolled by keys.
        html_ = super(IPythonRenderer, self).block_code(code, info=info)
        return html_.replace("<pre>", '<pre tabindex="0">', 1)

    def link(self, text: str, url: str, title: str | None = None) -> str:
        return super().link(text, self.resolve(url), title)

    def image(self, text: str, url: str, title: str | None = None) -> str:
        return super().image(text, self.resolve(url), title)


def render_markdown(source: str, resolve: Callable[[str], str]) -> str:
    """Markdown (a docs page) to HTML, with ``resolve(url)`` applied to every link and picture."""
    return MarkdownWithMath(renderer=SiteRenderer(resolve)).render(source)


class Links:
    """Turns a page's Markdown links into the site's links and collects the files to copy.

    Parameters
    ----------
    root : Path
        The repository.
    pages : dict of str to str
        Each page's source (repository-relative: ``docs/teachers.md``, ``notebooks/01_x.ipynb``)
        to its file name in the site.
    """

    def __init__(self, root: Path, pages: dict[str, str]):
        self.root, self.pages = root, pages
        self.assets: set[str] = set()

    def resolver(self, source: str) -> Callable[[str], str]:
        """``resolve(url)`` for the links of the page made from ``source``."""
        folder = posixpath.dirname(source)

        def resolve(url: str) -> str:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or not parts.path:  # external, or "#anchor" only
                return url
            target = posixpath.normpath(posixpath.join(folder, parts.path))
            fragment = f"#{parts.fragment}" if parts.fragment else ""
            if target in self.pages:
                return self.pages[target] + fragment
            if not (self.root / target).is_file():
                raise ValueError(f"{source} links to {url}, which is not a file of the course")
            self.assets.add(target)
            return target + fragment

        return resolve


def _doc_page(title: str, href: str, body: str) -> str:
    return add_csp_meta(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1.0">\n'
        f"<title>{html.escape(title)}: Attention Lab</title>\n<style>{SITE_CSS}</style>\n"
        f'</head>\n<body class="site-doc">\n{nav_html(href)}\n<main>\n{body}</main>\n'
        "</body>\n</html>\n",
        STATIC_PAGE_POLICY,
    )


def _page_title(markdown: str, fallback: str) -> str:
    match = re.search(r"^# (.+)$", markdown, re.M)
    return re.sub(r"[*_`]", "", match[1]).strip() if match else fallback


def build_site(lessons: list[Lesson], out_dir: Path, root: Path) -> list[Path]:
    """Write the whole site: every docs page, the lessons, and the files the docs link to.

    Parameters
    ----------
    lessons : list of Lesson
        In course order (executed by the caller, or not); each ``Lesson.name`` is the notebook's
        stem in ``notebooks/``.
    out_dir : Path
    root : Path
        The repository the docs are read from.

    Returns
    -------
    list of Path
        Every page written (docs pages, lesson pages, the lessons' contents page).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    docs = doc_pages(root)
    pages = {d.source: d.href for d in docs}
    pages |= {f"notebooks/{x.name}.ipynb": x.href for x in lessons}
    links = Links(root, pages)
    written = []
    for doc in docs:
        markdown = (root / doc.source).read_text(encoding="utf-8")
        body = render_markdown(markdown, links.resolver(doc.source))
        path = out_dir / doc.href
        path.write_text(_doc_page(_page_title(markdown, doc.href), doc.href, body), "utf-8")
        written.append(path)
    for asset in sorted(links.assets):
        (out_dir / asset).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / asset, out_dir / asset)
    site = SiteChrome(nav=nav_html(LESSONS_INDEX), css=SITE_CSS)
    written += build_pages(lessons, out_dir, index_name=LESSONS_INDEX, site=site)
    return written


def main(argv: list[str] | None = None) -> int:
    """Build the docs site from the command line; return the exit status."""
    p = argparse.ArgumentParser(
        prog="python -m attention_grader.pages.docs_site", description=__doc__
    )
    p.add_argument("notebooks", nargs="+", type=Path, help="the lessons, in course order")
    p.add_argument("--out", type=Path, default=Path("build/html"))
    p.add_argument("--timeout", type=int, default=180, help="seconds per cell")
    p.add_argument("--no-execute", action="store_true", help="export the lessons as stored")
    p.add_argument("--root", type=Path, default=Path("."), help="the repository (the docs' root)")
    args = p.parse_args(argv)
    lessons = read_lessons(args.notebooks, run=not args.no_execute, timeout=args.timeout)
    pages = build_site(lessons, args.out, args.root)
    print(f"wrote {len(pages)} pages to {args.out}; open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
