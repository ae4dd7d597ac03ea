"""Markup that broke the sanitiser's stdlib parser: ``<a <a <a ...`` (quadratic in
``html.parser`` before CVE-2025-6069's fix) and ``<![x y`` (``html.parser`` raised, after the
score was saved, so the autograded notebook and its flags were lost), in maths of a written
cell and in an HTML output.
"""

BOMB = "<a " * 20000
EXTRA_CELLS = [
    {"after": "q3", "cell_type": "markdown", "source": "$<![x y$ and $" + BOMB + "$"},
]
ANSWERS = {
    "q3": (
        'answer_q3 = "values"\n'
        "from IPython.display import HTML, display\n"
        f"display(HTML({BOMB + '<![x y'!r}))"
    )
}
EXPECT_SCORE = 3
EXPECT_FLAGS = {"unsafe_html"}
