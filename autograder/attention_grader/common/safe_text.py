r"""Student-chosen text (ids, names, reasons, file names) made safe for a terminal, a page, a CSV.

Three functions, one per place a student's text ends up; every writer of that place uses its one:

* :func:`printable`: a teacher's terminal (and logs);
* :func:`html_text`: any HTML page (text, quoted attribute, or a quoted script string);
* :func:`csv_cell`: any CSV cell a spreadsheet may open.

A student picks their notebook's file name, their files' names and, through the exchange, even
the student id the grader sees. A name holding ``ESC ] 0 ; … BEL`` (OSC) retitles the teacher's
terminal, ``ESC [ 2 J`` (CSI) clears it, and a right-to-left override makes ``evil.html`` read
as ``lmth.live``. Everything the grader prints goes through :func:`printable`, which shows such
characters as visible escapes (``\x1b``) instead of sending them to the terminal.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["csv_cell", "html_text", "printable"]

#: Unicode characters that reorder or hide text (bidi overrides/isolates, line separators).
_INVISIBLE = {
    *range(0x200B, 0x2010),  # zero-width spaces and joiners, LRM/RLM
    *range(0x202A, 0x202F),  # bidi embeddings and overrides
    *range(0x2066, 0x206A),  # bidi isolates
    0x2028,  # line separator
    0x2029,  # paragraph separator
    0xFEFF,  # zero-width no-break space
}


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _unsafe(ch: str, keep_newlines: bool) -> bool:
    if keep_newlines and ch in "\n\t":
        return False
    return ord(ch) in _INVISIBLE or unicodedata.category(ch) in ("Cc", "Cs")


def printable(text: object, *, keep_newlines: bool = False) -> str:
    r"""``text`` with every control or invisible character shown as a visible escape.

    Parameters
    ----------
    text : object
        Anything; it is converted with ``str`` first.
    keep_newlines : bool
        Keep ``\n`` and ``\t`` (for multi-line messages and logs); by default they are escaped
        too, so one name always stays on one line.

    Returns
    -------
    str
        The same text when it holds only ordinary characters; otherwise each C0/C1 control
        character (``ESC``, ``BEL``, ``CSI`` …), ``DEL``, bidi override and zero-width character is
        replaced by ``\xNN`` / ``\uNNNN``.

    Examples
    --------
    >>> printable("\x1b]0;pwned\x07ana")
    '\\x1b]0;pwned\\x07ana'
    """
    text = str(text)
    if text.isprintable() and not any(ord(ch) in _INVISIBLE for ch in text):
        return text  # the common case, and fast
    return "".join(_escape(ch) if _unsafe(ch, keep_newlines) else ch for ch in text)


#: What ``html.escape`` leaves that still matters in a quoted script string (nbgrader's templates
#: put ids into ``var student_id = "..."``): a backslash would escape the closing quote, a
#: backtick end a template literal.
_SCRIPT_STRING = str.maketrans({"\\": "&#92;", "`": "&#96;"})


def html_text(text: object) -> str:
    """``text`` as HTML that shows it and can do nothing else, wherever a template prints it.

    Safe in element text, in a single- or double-quoted attribute and inside a quoted string of
    a ``<script>`` (no ``<``, ``>``, ``&``, quotes, backslash or backtick survive); control and
    invisible characters are shown as escapes first (:func:`printable`).

    Examples
    --------
    >>> html_text('<img src=x onerror="a()">')
    '&lt;img src=x onerror=&quot;a()&quot;&gt;'
    """
    return html.escape(printable(text), quote=True).translate(_SCRIPT_STRING)


#: First characters a spreadsheet reads as a formula or a command (OWASP, "CSV Injection"):
#: ``=``, ``+``, ``-``, ``@``, and tab and carriage return, which some read past.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: A plain number written as text ("-1.5"): a value, not a formula, kept as it is.
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def csv_cell(value: object) -> str | int | float:
    r"""Return ``value`` for a CSV cell a spreadsheet may open: no formula, one line, printable.

    Numbers (``int``/``float``, not ``bool``) stay numbers. Text has control characters shown as
    escapes (:func:`printable`: a tab, carriage return or newline inside becomes ``\x09``...),
    and text starting with ``= + - @``, a tab or a carriage return gets a leading ``'`` (OWASP's
    advice: the cell then reads as text, and the ``'`` shows what was done), unless it is a plain
    number (``-1.5``). ``None`` is empty.

    Examples
    --------
    >>> csv_cell('=HYPERLINK("http://x","y")')
    '\'=HYPERLINK("http://x","y")'
    >>> csv_cell(-1.5)
    -1.5
    """
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = str(value)
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        text = "'" + text
    return printable(text)
