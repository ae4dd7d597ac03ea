"""Grader to kernel: a request cell's code, and the grader's arguments in the wire format.

A request runs the kernel-side agent (``_kernel_handles.py`` and ``_kernel_side.py``) in the student's kernel on one JSON
request, with the source of :mod:`~attention_grader.wire.answer_codec` (the very module
imported here) and the caps of ``c.Answers``; the reply comes back as one display of
:data:`MIME` (read by :func:`attention_grader.channel.answer_decoding.read_reply`).
"""

from __future__ import annotations

import inspect
import json
from importlib import resources

from attention_grader.channel.object_handles import ObjectHandle, StudentClass
from attention_grader.channel.student_function import StudentFunction
from attention_grader.config.settings import AnswerLimits
from attention_grader.wire import answer_codec
from attention_grader.wire.answer_caps import answer_caps, caps_wire
from attention_grader.wire.answer_codec import MIME, Encoder, Wire

__all__ = ["CODEC_SOURCE", "KERNEL_SIDE", "MIME", "encode", "request_source"]

#: The kernel-side agent: what must run in the kernel (handles, calls, figures), as one text.
KERNEL_SIDE = "\n\n".join(
    resources.files(__package__).joinpath(name).read_text()
    for name in ("_kernel_handles.py", "_kernel_side.py")
)
#: The codec's own source, compiled by the agent in the kernel.
CODEC_SOURCE = inspect.getsource(answer_codec)


class _GraderEncoder(Encoder):
    """The grader's arguments: its stand-ins go back as what they stand for."""

    def special(self, value: object, depth: int) -> Wire:
        if isinstance(value, ObjectHandle):
            return {"handle": value._ag_key}
        if isinstance(value, StudentClass):
            return {"handle": value._ag_class_key}
        if isinstance(value, StudentFunction):
            if value._key is not None:
                return {"handle": value._key}
            return {"global": value.__name__}
        return None


def encode(value: object, limits: AnswerLimits | None = None) -> Wire:
    """Encode a grader-chosen argument in the wire format (numpy arrays keep dtype and shape).

    Raises ``TypeError`` (``"cannot send ..."``) for what is not data, and ``ValueError`` for an
    argument nested deeper than ``limits.max_depth`` (the kernel's decoder stops there too).
    """
    return _GraderEncoder(answer_caps(limits).depth_only())(value)


def request_source(request: dict[str, object], limits: AnswerLimits | None = None) -> str:
    """Return the code of one hidden request cell: the kernel-side agent run on ``request``."""
    sent = {**request, "caps": caps_wire(answer_caps(limits))}
    globals_ = (
        f"{{'_USER_NS': globals(), '_REQUEST': {json.dumps(sent)!r}, '_CODEC': {CODEC_SOURCE!r}}}"
    )
    return f"exec(compile({KERNEL_SIDE!r}, '<attention-grader>', 'exec'), {globals_})"
