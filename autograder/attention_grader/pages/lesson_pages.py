"""``make html``: the lessons as static pages, linked in course order, that work with no internet.

Each lesson is executed (no widget state is saved: every widget shows its static HTML, the
picture of its state with alt text and its readout table) and exported with
:class:`~attention_grader.pages.offline_html.OfflineHTMLExporter` (maths as MathML, no CDN scripts). Every page links
to the previous and next lesson and to ``index.html``, a contents page in course order. Figures
get their alt text from the caption the lessons put right below them (``*Figure (alt text):
...*``). An explorer in prediction mode shows no figure on a static page (there is nothing to
type a guess into), so the caption under it, written for the figure, is replaced by one that
says what the page shows (:class:`HiddenFigureCaption`).

``python -m attention_grader.pages.lesson_pages --out build/html notebooks/0*.ipynb``
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
from nbconvert.preprocessors import Preprocessor

from attention_grader.pages.csp_policy import STATIC_PAGE_POLICY, add_csp_meta
from attention_grader.pages.offline_html import OfflineHTMLExporter

__all__ = [
    "HIDDEN_FIGURE_CAPTION",
    "CaptionAltText",
    "HiddenFigureCaption",
    "Lesson",
    "SiteChrome",
    "build_pages",
    "caption_text",
    "execute",
    "figure_hidden",
    "main",
    "read_lessons",
]

# "*Figure (alt text): a line chart ...*", "*Figure: left, the keys ...*"
_CAPTION = re.compile(r"^\s*\*\s*Figure(?:\s*\([^)]*\))?\s*:\s*(?P<text>.+?)\s*\*?\s*$", re.S)


def caption_text(markdown: str) -> str | None:
    """Return a lesson's figure caption as plain one-line text; None if there is no caption.

    The caption is the cell's first paragraph; what follows it (a "Show answer", a recap) is
    not part of it.
    """
    match = _CAPTION.match(markdown.strip().split("\n\n", 1)[0])
    if not match:
        return None
    text = re.sub(r"[*_`]", "", match["text"])  # markdown emphasis and code marks
    return " ".join(text.split()) or None


class CaptionAltText(Preprocessor):
    """Give each picture a cell outputs the alt text of the caption right below the cell.

    Sets ``output.metadata["image/png"]["alt"]`` (the offline template writes it into
    ``<img alt>``); an alt text the output already has is kept.
    """

    def preprocess(
        self, nb: nbformat.NotebookNode, resources: dict[str, Any]
    ) -> tuple[nbformat.NotebookNode, dict[str, Any]]:
        for cell, below in zip(nb.cells, nb.cells[1:], strict=False):
            if cell.cell_type != "code" or below.cell_type != "markdown":
                continue
            alt = caption_text(below.source)
            for out in cell.get("outputs", []) if alt else []:
                if "image/png" in out.get("data", {}):
                    out.setdefault("metadata", {}).setdefault("image/png", {}).setdefault(
                        "alt", alt
                    )
        return nb, resources


#: What a static page says under an explorer in prediction mode (it shows the hint only).
HIDDEN_FIGURE_CAPTION = (
    "*Figure: not shown on this page. This explorer asks for a prediction first: in a running "
    "notebook (`make lab`) its figure and weights table stay hidden until you type a guess for "
    'each weight and press "reveal the weights". Open the lesson there to guess, reveal and '
    "compare.*"
)


def figure_hidden(output: Mapping[str, Any]) -> bool:
    """Tell whether ``output`` is an explorer in prediction mode before the reveal.

    Its static HTML holds the prompt to guess and no readout (:meth:`QueryExplorer._static_html`).
    """
    page = output.get("data", {}).get("text/html", "")
    if isinstance(page, list):
        page = "".join(page)
    return 'class="attention-explorer"' in page and "attention-explorer-readout" not in page


class HiddenFigureCaption(Preprocessor):
    """Replace the caption under a hidden figure (:func:`figure_hidden`).

    :data:`HIDDEN_FIGURE_CAPTION` takes its place: the lesson's caption describes the figure a
    live notebook reveals, which the static page never shows. The rest of the cell (a "Show
    answer") stays.
    """

    def preprocess(
        self, nb: nbformat.NotebookNode, resources: dict[str, Any]
    ) -> tuple[nbformat.NotebookNode, dict[str, Any]]:
        for cell, below in zip(nb.cells, nb.cells[1:], strict=False):
            if cell.cell_type != "code" or below.cell_type != "markdown":
                continue
            if not any(figure_hidden(o) for o in cell.get("outputs", [])):
                continue
            first, sep, rest = below.source.strip().partition("\n\n")
            if caption_text(first):
                below.source = HIDDEN_FIGURE_CAPTION + sep + rest
        return nb, resources


@dataclass
class Lesson:
    """One page: the file name it gets, its title and the (executed) notebook."""

    name: str
    title: str
    notebook: nbformat.NotebookNode

    @property
    def href(self) -> str:
        return f"{self.name}.html"


def _title(nb: nbformat.NotebookNode, fallback: str) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return re.sub(r"[*_`]", "", line[2:]).strip()
    return fallback


def execute(path: Path, timeout: int = 180) -> nbformat.NotebookNode:
    """Run a lesson top to bottom in its folder, as a student would, without widget state."""
    from nbclient import NotebookClient
    from traitlets.config import Config

    nb: nbformat.NotebookNode = nbformat.read(path, as_version=4)
    config = Config()
    # A local kernel over a Unix socket: over TCP (the default) ipykernel warns on every lesson
    # that the connection is unencrypted, a warning `make html` has no use for. The socket's
    # path is absolute: the kernel runs in the lesson's folder, not ours.
    with tempfile.TemporaryDirectory(prefix="attention-lesson-") as sockets:
        if os.name == "posix":
            config.KernelManager.transport = "ipc"
            config.KernelManager.ip = f"{sockets}/kernel"
        NotebookClient(
            nb,
            config=config,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(path.parent)}},
            store_widget_state=False,  # the template loads no widget JavaScript: static HTML
            # One print, one block on the page: on a busy machine the kernel may send a line
            # in two messages (its output flushes on a timer), which the page showed as two.
            coalesce_streams=True,
        ).execute()
    return nb


@dataclass(frozen=True)
class SiteChrome:
    """What a site around the lessons puts on each of their pages (:mod:`attention_grader.pages.docs_site`).

    ``nav`` is the site's navigation bar and ``css`` its stylesheet, both trusted HTML/CSS.
    """

    nav: str
    css: str


def read_lessons(paths: list[Path], run: bool = True, timeout: int = 180) -> list[Lesson]:
    """Return the lessons at ``paths`` (course order), each executed unless ``run`` is False."""
    lessons = []
    for path in paths:
        nb = execute(path, timeout) if run else nbformat.read(path, as_version=4)
        lessons.append(Lesson(path.stem, _title(nb, path.stem), nb))
        print(f"{'executed' if run else 'read'} {path}", flush=True)
    return lessons


# Standalone (no site around it), the contents page has a style of its own.
_INDEX_CSS = (
    "main{font-family:system-ui,sans-serif;max-width:48em;margin:2em auto;padding:0 1em;"
    "line-height:1.5}"
)


def _index_page(lessons: list[Lesson], site: SiteChrome | None) -> str:
    items = "\n".join(
        f'<li><a href="{html.escape(x.href)}">{html.escape(x.title)}</a></li>' for x in lessons
    )
    css, bar, body_class = _INDEX_CSS, "", ""
    if site:
        css, bar, body_class = site.css, site.nav + "\n", ' class="site-doc"'
    return add_csp_meta(
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1.0">\n'
        f"<title>Attention Lab: the lessons</title>\n<style>{css}</style>\n</head>\n"
        f"<body{body_class}>\n{bar}<main>\n"
        "<h1>Attention Lab: the lessons</h1>\n<p>In course order; start with the first.</p>\n"
        f'<nav aria-label="Lessons"><ol>\n{items}\n</ol></nav>\n</main>\n</body>\n</html>\n',
        STATIC_PAGE_POLICY,
    )


def build_pages(
    lessons: list[Lesson],
    out_dir: Path,
    index_name: str = "index.html",
    site: SiteChrome | None = None,
) -> list[Path]:
    """Write one page per lesson, in the given (course) order, and their contents page.

    Parameters
    ----------
    lessons : list of Lesson
        In course order, notebooks already executed (or not: then without outputs).
    out_dir : Path
    index_name : str
        The contents page's file name (the docs site names it ``lessons.html``).
    site : SiteChrome, optional
        The site's navigation bar and stylesheet, put on every page (:mod:`attention_grader.pages.docs_site`);
        without it the pages stand alone.

    Returns
    -------
    list of Path
        The lesson pages, then the contents page.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    # after nbconvert's default preprocessors, in this order (nbconvert's own way to add them)
    exporter = OfflineHTMLExporter(preprocessors=[HiddenFigureCaption, CaptionAltText])
    written = []
    for i, lesson in enumerate(lessons):
        prev = lessons[i - 1] if i > 0 else None
        nxt = lessons[i + 1] if i + 1 < len(lessons) else None
        nav = {
            "index": index_name,
            "prev": prev and {"href": prev.href, "title": prev.title},
            "next": nxt and {"href": nxt.href, "title": nxt.title},
        }
        page, _ = exporter.from_notebook_node(
            lesson.notebook,
            resources={"metadata": {"name": lesson.title}, "course_nav": nav, "site": site},
        )
        path = out_dir / lesson.href
        path.write_text(page, encoding="utf-8")
        written.append(path)
    index = out_dir / index_name
    index.write_text(_index_page(lessons, site), encoding="utf-8")
    return [*written, index]


def main(argv: list[str] | None = None) -> int:
    """Build the lessons' static pages from the command line; return the exit status."""
    p = argparse.ArgumentParser(
        prog="python -m attention_grader.pages.lesson_pages", description=__doc__
    )
    p.add_argument("notebooks", nargs="+", type=Path, help="the lessons, in course order")
    p.add_argument("--out", type=Path, default=Path("build/html"))
    p.add_argument("--timeout", type=int, default=180, help="seconds per cell")
    p.add_argument("--no-execute", action="store_true", help="export as stored")
    args = p.parse_args(argv)
    lessons = read_lessons(args.notebooks, run=not args.no_execute, timeout=args.timeout)
    for page in build_pages(lessons, args.out):
        print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
