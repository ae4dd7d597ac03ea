"""Grader to kernel: a request cell's code, and the grader's arguments in the wire format.

A request runs ``_kernel_side.py``'s text in the student's kernel on one JSON request; the
reply comes back as one display of :data:`MIME` (read by
:func:`attention_grader.execution.answer_decoding.read_reply`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from attention_grader.execution.answer_types import Wire, encode_more
from attention_grader.execution.object_handles import ObjectHandle, StudentClass
from attention_grader.execution.student_function import StudentFunction

__all__ = ["KERNEL_SIDE", "MIME", "encode", "request_source"]

KERNEL_SIDE = Path(__file__).with_name("_kernel_side.py").read_text()
MIME = "application/vnd.attention-grader.answer"


def encode(value: object, depth: int = 0) -> Wire:  # noqa: C901 -- one branch per kind of value on the wire
    """Encode a grader-chosen argument in the wire format (numpy arrays keep dtype and shape)."""
    if depth > 20:
        raise ValueError("argument nested too deeply")
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.ndarray):
        return {"array": value.tolist(), "dtype": value.dtype.str, "shape": list(value.shape)}
    if isinstance(value, np.generic):
        return {"scalar": value.item(), "dtype": value.dtype.str}
    more = encode_more(value, lambda v: encode(v, depth + 1))
    if more is not None:
        return more
    if isinstance(value, ObjectHandle):
        return {"handle": value._ag_key}
    if isinstance(value, StudentClass):
        return {"handle": value._ag_class_key}
    if isinstance(value, StudentFunction):
        if value._key is not None:
            return {"handle": value._key}
        return {"global": value.__name__}
    if isinstance(value, int | float):
        return value
    if isinstance(value, list | tuple | set | frozenset):
        kind = "list" if isinstance(value, list) else "tuple" if isinstance(value, tuple) else "set"
        return {kind: [encode(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    what = "a function" if callable(value) else f"a {type(value).__name__}"
    raise TypeError(
        f"cannot send {what} ({getattr(value, '__name__', '?')}) to a student's function"
    )


def request_source(request: dict[str, object]) -> str:
    """Return the code of one hidden request cell: the kernel-side helper run on ``request``."""
    globals_ = f"{{'_USER_NS': globals(), '_REQUEST': {json.dumps(request)!r}}}"
    return f"exec(compile({KERNEL_SIDE!r}, '<attention-grader>', 'exec'), {globals_})"
