"""`make html` (attention_grader.pages.lesson_pages): the lessons as static pages that work offline.

The pages are built from the lessons test_notebooks.py already executed (one run per session):
linked in course order, every explorer's readout table present, every picture with real alt
text, nothing loaded from the internet, maths as MathML.
"""

from __future__ import annotations

import copy
import re

import nbformat
import pytest
from attention_grader.pages.lesson_pages import (
    HIDDEN_FIGURE_CAPTION,
    CaptionAltText,
    Lesson,
    _title,
    build_pages,
    caption_text,
    figure_hidden,
)
from attention_grader.pages.offline_html import PLACEHOLDER_ALT
from bs4 import BeautifulSoup
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from tests.support.lesson_run import LESSONS, ROOT, executed

# Alt texts that describe nothing.
GENERIC_ALT = {"", PLACEHOLDER_ALT.lower(), "image", "figure", "plot", "chart", "widget"}


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, BeautifulSoup]:
    out = tmp_path_factory.mktemp("html")
    nbs = executed()
    lessons = [Lesson(n, _title(nbs[n], n), copy.deepcopy(nbs[n])) for n in LESSONS]
    written = build_pages(lessons, out)
    assert [p.name for p in written] == [f"{n}.html" for n in LESSONS] + ["index.html"]
    return {p.stem: BeautifulSoup(p.read_text(), "html.parser") for p in written}


def _links(soup: BeautifulSoup, rel: str) -> list[str]:
    return [a["href"] for a in soup.find_all("a", rel=rel)]


@pytest.mark.slow
def test_pages_link_to_each_other_in_course_order(pages):
    for i, name in enumerate(LESSONS):
        prev = [f"{LESSONS[i - 1]}.html"] * 2 if i > 0 else []
        nxt = [f"{LESSONS[i + 1]}.html"] * 2 if i + 1 < len(LESSONS) else []
        assert _links(pages[name], "prev") == prev, name  # top and bottom of the page
        assert _links(pages[name], "next") == nxt, name
        assert _links(pages[name], "index") == ["index.html"] * 2, name
    listed = [a["href"] for a in pages["index"].select("main ol a")]
    assert listed == [f"{n}.html" for n in LESSONS]


@pytest.mark.slow
def test_every_explorer_shows_its_readout_table(pages):
    total = 0
    for name in LESSONS:
        shown = [
            o
            for cell in executed()[name].cells
            for o in cell.get("outputs", [])
            if o.get("data", {}).get("text/plain", "").startswith("QueryExplorer(")
        ]
        # An explorer in prediction mode shows its hint, not the weights it asks to guess.
        guessing = [o for o in shown if "reveal the weights" in o["data"].get("text/html", "")]
        tables = pages[name].select(".attention-explorer-readout table")
        assert len(tables) == len(shown) - len(guessing), name
        for table in tables:
            assert table.find("th", string="weight") and table.find("tfoot"), name
        total += len(tables)
    assert total >= 3  # lessons 1, 4, 5 show an explorer outside prediction mode


@pytest.mark.slow
def test_every_image_has_real_alt_text(pages):
    undescribed = []
    for name, soup in pages.items():
        for img in soup.find_all("img"):
            alt = (img.get("alt") or "").strip()
            if alt.lower() in GENERIC_ALT or len(alt) < 20:
                undescribed.append(f"{name}: {alt!r}")
    assert not undescribed, undescribed
    explorer_alt = [
        i["alt"] for soup in pages.values() for i in soup.select(".attention-explorer img")
    ]
    assert explorer_alt and all("weights" in a for a in explorer_alt)


@pytest.mark.slow
def test_nothing_is_loaded_from_the_internet(pages):
    for name, soup in pages.items():
        for tag in soup.find_all(["script", "link", "img", "iframe"]):
            url = tag.get("src") or tag.get("href") or ""
            assert not re.match(r"(https?:)?//", url), f"{name}: {tag.name} loads {url}"
        for script in soup.find_all("script"):
            assert "://" not in script.get_text(), f"{name}: a script fetches a URL"


@pytest.mark.slow
def test_no_maths_is_left_as_tex_in_the_lessons(pages):
    for name, soup in pages.items():
        assert not soup.select(".tex-fallback"), name
        prose = " ".join(m.get_text() for m in soup.select(".jp-RenderedMarkdown"))
        assert not re.search(r"\$[^$\s][^$]*\\[A-Za-z]+", prose), f"{name}: raw TeX"


def test_maths_in_markdown_is_rendered_as_mathml(tmp_path):
    source = nbformat.read(ROOT / "source" / "focus_in_the_noise" / "focus_in_the_noise.ipynb", 4)
    markdown = [c.source for c in source.cells if c.cell_type == "markdown"]
    formulas = sum(len(re.findall(r"\$[^$]+\$", s)) for s in markdown)
    page = build_pages([Lesson("focus", "Focus", source)], tmp_path)[0].read_text()
    soup = BeautifulSoup(page, "html.parser")
    maths = soup.find_all("math")
    assert formulas >= 5 and len(maths) == formulas
    assert any(m.find("msqrt") for m in maths)  # $\sqrt{d_k}$ as a square root, not text
    assert "\\sqrt" not in " ".join(m.get_text() for m in soup.select(".jp-RenderedMarkdown"))
    assert all(m.get("alttext") for m in maths) and "ns0:" not in page


def test_caption_text_is_the_description_without_the_label():
    assert caption_text('*Figure (alt text): a 3 × 3 heatmap titled\n"Self-attention"*') == (
        'a 3 × 3 heatmap titled "Self-attention"'
    )
    assert caption_text("*Figure: left, the keys `K` and *values*.*") == (
        "left, the keys K and values."
    )
    assert caption_text("## 1. No peeking") is None


def test_a_figure_takes_the_caption_below_it_as_alt_text():
    png = new_output("display_data", data={"image/png": "iVBORw0KGgo="})
    nb = new_notebook(
        cells=[
            new_code_cell("plot()", outputs=[png]),
            new_markdown_cell("*Figure (alt text): two line charts of the output.*"),
            new_code_cell("plot()", outputs=[copy.deepcopy(png)]),
            new_markdown_cell("Some text, no caption."),
        ]
    )
    nb, _ = CaptionAltText().preprocess(nb, {})
    assert nb.cells[0].outputs[0].metadata["image/png"]["alt"] == "two line charts of the output."
    assert "image/png" not in nb.cells[2].outputs[0].metadata


@pytest.mark.slow
def test_make_html_runs_lessons_without_the_kernels_tcp_warning(tmp_path):
    """Issue 29: every lesson printed ipykernel's "Kernel is running over TCP without encryption"."""
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-m", "attention_grader.pages.lesson_pages", "--out", str(tmp_path),
         str(ROOT / "notebooks" / "00_start_here.ipynb")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "executed" in run.stdout and (tmp_path / "00_start_here.html").exists()
    assert "WARNING" not in run.stderr + run.stdout, run.stderr


@pytest.mark.slow
def test_a_line_printed_in_two_messages_is_one_block_on_the_page(tmp_path):
    """A busy machine's kernel may send one printed line in two messages (its output flushes
    on a timer): the page shows it as one line, not two blocks (a flush forces the split here).
    """
    from attention_grader.pages.lesson_pages import execute
    from nbformat.v4 import new_code_cell, new_notebook

    path = tmp_path / "lesson.ipynb"
    code = 'import sys\nprint("size:", end=" ")\nsys.stdout.flush()\nprint("[1. 1.]")'
    nbformat.write(new_notebook(cells=[new_code_cell(code)]), path)
    (out,) = execute(path).cells[0].outputs
    assert out.output_type == "stream" and out.text == "size: [1. 1.]\n"


def _explorer_output(predict: bool):
    """What a lesson's cell stores for a displayed explorer (prediction mode or not)."""
    from attention_lab.explorer.query_explorer import QueryExplorer

    explorer = QueryExplorer.tiffin(controls=("query", "beta", "predict"))
    explorer.prediction_checkbox.value = predict
    data = explorer._repr_mimebundle_()
    explorer.close()
    data.pop("application/vnd.jupyter.widget-view+json", None)
    return new_output("display_data", data=data)


@pytest.mark.slow
def test_a_hidden_figures_caption_is_replaced_by_what_the_page_shows(tmp_path):
    """Issue 29: under an explorer in prediction mode lesson 02's static page read a caption for
    the live figure ("β = 1, not divided by √2 ...") that the page does not show.
    """
    live_caption = (
        "*Figure (static version): the explorer for the tiffin sentence, query (1, 1): weights "
        "tiffin 0.610, bag 0.083.*\n\n<details><summary>Show answer</summary>\n\nAt β = 4 "
        "nearly one-hot.\n\n</details>"
    )
    nb = new_notebook(
        cells=[
            new_code_cell("explorer", outputs=[_explorer_output(predict=True)]),
            new_markdown_cell(live_caption),
            new_code_cell("explorer", outputs=[_explorer_output(predict=False)]),
            new_markdown_cell("*Figure: the explorer, weights tiffin 0.610.*"),
        ]
    )
    assert [figure_hidden(c.outputs[0]) for c in nb.cells[::2]] == [True, False]
    page = build_pages([Lesson("l", "L", nb)], tmp_path)[0].read_text()
    soup = BeautifulSoup(page, "html.parser")
    first, second = soup.select(".jp-MarkdownCell")
    assert caption_text(HIDDEN_FIGURE_CAPTION).split(".")[0] in first.get_text(" ")
    assert "0.610" not in first.get_text() and "Show answer" in first.get_text()  # kept
    assert "weights tiffin 0.610" in second.get_text()  # a shown figure keeps its caption


@pytest.mark.slow
def test_no_static_page_captions_a_figure_it_does_not_show(pages):
    hidden = 0
    for name in LESSONS:
        cells = pages[name].select(".jp-Cell")
        for cell, below in zip(cells, cells[1:], strict=False):
            explorer = cell.select_one(".attention-explorer")
            if explorer is None or explorer.select_one(".attention-explorer-readout"):
                continue
            hidden += 1
            caption = " ".join(below.get_text(" ").split())
            assert caption.startswith("Figure: not shown on this page"), (name, caption[:200])
    assert hidden >= 2  # lessons 02 and 03 ask for a prediction before the reveal
