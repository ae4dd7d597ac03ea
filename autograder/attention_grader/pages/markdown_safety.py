"""A written answer's markdown as it may be rendered: unchanged when safe, else shown as its text.

Its rendering (maths as MathML: :mod:`attention_grader.pages.offline_html`) is read with the
allowlist's :func:`~attention_grader.pages.html_clean.problems`, the formulas' TeX too.
"""

from __future__ import annotations

from attention_grader.config.settings import PageLimits
from attention_grader.pages.html_clean import (
    DEFAULT_LIMITS,
    Attachments,
    markdown_as_text,
    problems,
)
from attention_grader.pages.offline_html import inspect_markdown

__all__ = ["is_safe_markdown", "sanitize_markdown"]


def is_safe_markdown(
    source: str, attachments: Attachments | None = None, limits: PageLimits = DEFAULT_LIMITS
) -> bool:
    r"""Tell whether the rendering of ``source`` has only allowed HTML, none hidden in maths.

    The rendering has maths as MathML; a formula hiding HTML
    (``$\text{<img onerror=...>}$``) is drawn as text now, but it is an attempt a
    grader should see and that a flag should name.
    """
    try:
        rendered, formulas = inspect_markdown(source, attachments, limits=limits)
    except Exception:  # e.g. a missing attachment: nbconvert would fail the whole page
        return False
    return not problems(rendered, limits=limits) and not any(
        problems(tex, limits=limits) for tex in formulas
    )


def sanitize_markdown(
    source: str, attachments: Attachments | None = None, limits: PageLimits = DEFAULT_LIMITS
) -> str:
    r"""Return a markdown answer as it may be rendered: unchanged when safe, else shown as its text.

    An unsafe answer (raw HTML with scripts or handlers, ``javascript:`` links, iframes, HTML
    smuggled through maths such as ``$\text{<img onerror>}$``...) becomes a note and the
    student's exact text in a code block, which nbconvert escapes: the grader still reads every
    word, nothing runs. Pages also run
    :func:`~attention_grader.pages.html_clean.clean_fragment` on the rendered result.
    """
    if is_safe_markdown(source, attachments, limits):
        return source
    return markdown_as_text(
        source,
        "The grader shows this answer as plain text: it contained HTML or links that could "
        "run code in a browser.",
    )
