"""The answer codec's caps as the grader's config sets them (``c.Answers``), and as they travel.

The codec (:mod:`attention_grader.wire.answer_codec`) is also sent into the student's kernel,
where the grader's settings do not exist: it reads its caps from the JSON object each request
carries (:meth:`~attention_grader.wire.answer_codec.Caps.of`); this is the grader's side of it.
"""

from __future__ import annotations

from dataclasses import asdict

from attention_grader.config.settings import AnswerLimits
from attention_grader.wire.answer_codec import Caps

__all__ = ["answer_caps", "caps_wire"]


def answer_caps(limits: AnswerLimits | None = None) -> Caps:
    """Return the codec's caps as ``limits`` (``c.Answers``; default: the defaults) set them."""
    return Caps.of(dict(asdict(limits or AnswerLimits())))


def caps_wire(caps: Caps) -> dict[str, int]:
    """Return the caps as the JSON object sent with a request."""
    return asdict(caps)
