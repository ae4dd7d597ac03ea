"""Checks for answers in words: one option of a multiple choice, true/false, a few names.

A wrong option or a wrong true/false answer that reveals a misconception names it, with the
registry entry's teaching idea as the feedback.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from attention_lab import misconceptions

from ._base import AnswerFormatError, Misconception, WrongAnswer

__all__ = ["check_choice", "check_names", "check_true_false"]


def _normalise_choice(answer: object, labels: Sequence[str] = ()) -> str:
    """``" (B) "``, ``"b)"``, ``"Option B"``, ``"b) Raw scores can be..."`` -> ``"b"``.

    A label followed by the option's text (copied from the question) counts as that label;
    anything else is returned lower-cased for the format message.
    """
    text = str(answer).strip().lower()
    text = re.sub(r"^(option|answer|choice)\s*[:\-]?\s*", "", text)
    bare = text.strip("().").strip()
    if bare in labels or not labels:
        return bare
    for label in labels:
        # "b) ...", "b: ...", "k3 because ..."; a lone letter then a space may be the word "a"
        end = r"(\)|\.|:|,|$)" if len(label) == 1 else r"(\)|\.|:|,|\s|$)"
        if re.match(rf"^\(?{re.escape(label)}{end}", text):
            return label
    return bare


def check_choice(
    answer: object,
    options: Iterable[str],
    correct: str | None = None,
    misconceptions: dict[str, str] | None = None,
    name: str = "your answer",
) -> None:
    """Check a multiple-choice answer given as one option label, e.g. ``answer_q2 = "b"``.

    Parameters
    ----------
    answer : str
    options : iterable of str
        The allowed labels (``"abcd"`` or ``["k1", "k2", "k3"]``).
    correct : str, optional
        The right label; ``None`` checks the format only (the visible test).
    misconceptions : dict of str to str, optional
        Wrong label -> the registry id of the misconception it reveals; choosing it shows that
        entry's teaching idea.
    name : str
        The answer variable's name, used in messages.
    """
    labels = [str(o).lower() for o in options]
    listed = ", ".join(f'"{label}"' for label in labels)
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: set it to one of {listed}.")
    if not isinstance(answer, str):
        raise AnswerFormatError(
            f"{name} is a {type(answer).__name__}; expected one of {listed} (a string in quotes)."
        )
    choice = _normalise_choice(answer, labels)
    if choice not in labels:
        raise AnswerFormatError(f"{name} is {answer!r}; expected one of {listed}.")
    if correct is None or choice == _normalise_choice(correct, labels):
        return
    slug = (misconceptions or {}).get(choice)
    if slug:
        raise Misconception(slug, f"{name} ({choice!r})", message=_teaching(slug))
    raise WrongAnswer(f"{name}: {choice!r} is not the best answer; reread the options.")


def _teaching(slug: str) -> str:
    return misconceptions.get(slug).teaching


def _as_bool(answer: object, name: str) -> bool:
    """Accept True/False (Python or numpy) or the strings "true"/"false"."""
    if isinstance(answer, bool | np.bool_):
        return bool(answer)
    word = answer.strip().strip(".!'\"").strip().lower() if isinstance(answer, str) else None
    if word in ("true", "false"):
        return word == "true"
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: set it to True or False.")
    raise AnswerFormatError(
        f"{name} is {answer!r} ({type(answer).__name__}); expected True or False."
    )


def check_true_false(
    answer: object,
    correct: bool | None = None,
    misconception: str | None = None,
    name: str = "your answer",
) -> None:
    """Check a true/false answer; ``correct=None`` checks the format only (the visible test).

    ``misconception`` is the registry id a wrong answer reveals.
    """
    value = _as_bool(answer, name)
    if correct is None or value == bool(correct):
        return
    if misconception:
        raise Misconception(misconception, name, message=_teaching(misconception))
    raise WrongAnswer(f"{name} is not right yet; reread the statement.")


_NAME_WORDS = {
    "query": "query",
    "queries": "query",
    "q": "query",
    "key": "key",
    "keys": "key",
    "k": "key",
    "value": "value",
    "values": "value",
    "v": "value",
}
_FILLER = {"the", "a", "an", "vector", "vectors", "matrix", "matrices", "of", "word"}


def _normalise_name(text: str) -> str:
    """``"Query (Q)"``, ``"queries"``, ``"the query vector"``, ``"Q"`` -> ``"query"``.

    Words are read case-insensitively, ignoring punctuation and filler (``vector``, ``the``);
    a text whose words all name the same vector is that vector, anything else stays as typed.
    """
    words = [w for w in re.split(r"[^a-z]+", text.lower()) if w and w not in _FILLER]
    found = {_NAME_WORDS.get(w) for w in words}
    if words and len(found) == 1 and None not in found:
        name = found.pop()
        assert name is not None  # None was ruled out just above
        return name
    return text.strip().lower()


def check_names(
    answer: object, count: int, correct: Iterable[str] | None = None, name: str = "your answer"
) -> None:
    """Check a list of ``count`` names, in any order, any capitalisation, singular or plural.

    ``correct=None`` checks the format only (the visible test).
    """
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: give a list of {count} names (strings).")
    if isinstance(answer, str) or not isinstance(answer, list | tuple | set):
        raise AnswerFormatError(
            f"{name} is a {type(answer).__name__}; expected a list of {count} names, "
            'like ["first", "second", "third"].'
        )
    items = list(answer)
    if len(items) != count or not all(isinstance(item, str) for item in items):
        raise AnswerFormatError(f"{name} should hold exactly {count} names, each a string.")
    if correct is None:
        return
    given = {_normalise_name(item) for item in items}
    wanted = {_normalise_name(item) for item in correct}
    strays = sorted(given - wanted)
    if strays:
        raise WrongAnswer(
            f"{name}: {', '.join(repr(s) for s in strays)} is not one of the vectors each word "
            "computes before any score (scores and weights come later, from those vectors)."
        )
    if len(given) != count:
        raise WrongAnswer(f"{name} repeats a name; the {count} vectors are all different.")
