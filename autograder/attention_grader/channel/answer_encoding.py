"""Grader to kernel: a request cell's code, and the grader's arguments in the wire format.

A request runs the kernel-side agent (``_kernel_handles.py`` and ``_kernel_side.py``) in the student's kernel on one JSON
request, with the source of :mod:`~attention_grader.wire.answer_codec` (the very module
imported here) and the caps of ``c.Answers``; the reply comes back as one display of
:data:`MIME` (read by :func:`attention_grader.channel.answer_decoding.read_reply`).

The agent is sent once per kernel: the first request (:func:`request_source`) compiles it and
keeps it in the kernel's ``sys.modules`` under :data:`AGENT_MODULE`; later ones
(:func:`request_call`) are one short line that runs it. Sent with every request, its 36 kB
were tokenised, hashed and compiled by the kernel each time. Like all of the agent, the kept
copy is not trusted: a student's code that replaces it changes only what its own answers look
like; one that removes it makes the grader send it again (:func:`agent_missing`).
"""

from __future__ import annotations

import hashlib
import inspect
import json
from importlib import resources

from nbformat import NotebookNode

from attention_grader.channel.object_handles import ObjectHandle, StudentClass
from attention_grader.channel.student_function import StudentFunction
from attention_grader.config.settings import AnswerLimits
from attention_grader.wire import answer_codec
from attention_grader.wire.answer_caps import answer_caps, caps_wire
from attention_grader.wire.answer_codec import MIME, Encoder, Wire

__all__ = [
    "AGENT_MODULE",
    "CODEC_SOURCE",
    "KERNEL_SIDE",
    "MIME",
    "agent_missing",
    "encode",
    "request_call",
    "request_source",
]

#: The kernel-side agent: what must run in the kernel (handles, calls, figures), as one text.
KERNEL_SIDE = "\n\n".join(
    resources.files(__package__).joinpath(name).read_text()
    for name in ("_kernel_handles.py", "_kernel_side.py")
)
#: The codec's own source, compiled by the agent in the kernel.
CODEC_SOURCE = inspect.getsource(answer_codec)
#: Where the kernel keeps the compiled agent: named by a digest of what it runs, so a kernel never
#: serves a request with another version of it.
AGENT_MODULE = (
    "attention_grader_agent_"
    + hashlib.sha256((KERNEL_SIDE + CODEC_SOURCE).encode()).hexdigest()[:16]
)
# Run in the kernel by the first request: keeps the agent, compiled once, then serves the request.
_INSTALL = """\
import sys as _sys, types as _types

def serve(user_ns, request, _code=compile(_SOURCE, '<attention-grader>', 'exec'), _codec=_CODEC):
    exec(_code, {'_USER_NS': user_ns, '_REQUEST': request, '_CODEC': _codec})

_agent = _types.ModuleType(_NAME)
_agent.serve = serve
_sys.modules[_NAME] = _agent
serve(_USER_NS, _REQUEST)
"""


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


def _request_json(request: dict[str, object], limits: AnswerLimits | None) -> str:
    return json.dumps({**request, "caps": caps_wire(answer_caps(limits))})


def request_source(request: dict[str, object], limits: AnswerLimits | None = None) -> str:
    """Return the code of a hidden request cell that sends the agent, keeps it and runs it."""
    globals_ = (
        f"{{'_USER_NS': globals(), '_REQUEST': {_request_json(request, limits)!r}, "
        f"'_CODEC': {CODEC_SOURCE!r}, '_SOURCE': {KERNEL_SIDE!r}, '_NAME': {AGENT_MODULE!r}}}"
    )
    return f"exec(compile({_INSTALL!r}, '<attention-grader install>', 'exec'), {globals_})"


def request_call(request: dict[str, object], limits: AnswerLimits | None = None) -> str:
    """Return the code of a hidden request cell that runs the agent the kernel keeps.

    Without it (or with something there that has no ``serve``) the cell raises ``KeyError``
    naming :data:`AGENT_MODULE` (:func:`agent_missing`).
    """
    kept = f"getattr(__import__('sys').modules.get({AGENT_MODULE!r}), 'serve', None)"
    return f"({kept} or {{}}[{AGENT_MODULE!r}])(globals(), {_request_json(request, limits)!r})"


def agent_missing(outputs: list[NotebookNode]) -> bool:
    """Tell whether a :func:`request_call` cell's ``outputs`` say the kernel keeps no agent."""
    return any(
        o.get("output_type") == "error"
        and o.get("ename") == "KeyError"
        and AGENT_MODULE in str(o.get("evalue", ""))
        for o in outputs
    )
