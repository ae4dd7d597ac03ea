r"""Hides HTML in maths (``\text``, ``\mathrm``, ``\operatorname``, ``\mbox``, an environment)
in a written cell and in a ``display(Markdown(...))`` output: latex2mathml copied it into pages.
"""

RUN = "window.__pwned=(window.__pwned||0)+1;document.title='PWNED'"
IMG = '<img/src="x"/onerror="' + RUN + '">'


def tex(command: str, body: str) -> str:
    r"""``\command{body}``, braces doubled (the batch fills sources with str.format)."""
    return "\\" + command + "{{" + body + "}}"


EXTRA_CELLS = [
    {
        "after": "q3",
        "cell_type": "markdown",
        "source": (
            f"My working: ${tex('text', IMG)}$, ${tex('mathrm', IMG)}$, "
            f"${tex('operatorname', IMG)}$ and $${tex('mbox', '<svg onload=' + RUN + '>')}$$\n\n"
            + tex("begin", "align")
            + tex("text", IMG)
            + tex("end", "align")
        ),
    }
]
_SHOWN = f"${tex('text', IMG)}$ and ${tex('textbf', '<script>' + RUN + '</script>')}$"
ANSWERS = {
    "q3": (
        'answer_q3 = "values"\n'
        "from IPython.display import Markdown, display\n"
        f"display(Markdown({_SHOWN!r}))"
    )
}
EXPECT_SCORE = 3
EXPECT_FLAGS = {"unsafe_html"}
