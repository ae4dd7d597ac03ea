"""Student-chosen text (names, reasons, file names) made safe to print in a teacher's terminal.

A student picks their notebook's file name, their files' names and, through the exchange, even
the student id the grader sees. A name holding ``ESC ] 0 ; … BEL`` (OSC) retitles the teacher's
terminal, ``ESC [ 2 J`` (CSI) clears it, and a right-to-left override makes ``evil.html`` read
as ``lmth.live``. Everything the grader prints goes through :func:`printable`, which shows such
characters as visible escapes (``\\x1b``) instead of sending them to the terminal.
"""

from __future__ import annotations

import unicodedata

__all__ = ["printable"]

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
    """``text`` with every control or invisible character shown as a visible escape.

    Parameters
    ----------
    text : object
        Anything; it is converted with ``str`` first.
    keep_newlines : bool
        Keep ``\\n`` and ``\\t`` (for multi-line messages and logs); by default they are escaped
        too, so one name always stays on one line.

    Returns
    -------
    str
        The same text when it holds only ordinary characters; otherwise each C0/C1 control
        character (``ESC``, ``BEL``, ``CSI`` …), ``DEL``, bidi override and zero-width character is
        replaced by ``\\xNN`` / ``\\uNNNN``.

    Examples
    --------
    >>> printable("\\x1b]0;pwned\\x07ana")
    '\\\\x1b]0;pwned\\\\x07ana'
    """
    text = str(text)
    if text.isprintable() and not any(ord(ch) in _INVISIBLE for ch in text):
        return text  # the common case, and fast
    return "".join(_escape(ch) if _unsafe(ch, keep_newlines) else ch for ch in text)
