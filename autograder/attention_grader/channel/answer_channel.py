"""The answer channel: a student's answers leave the kernel as plain data, and only as that.

During autograde the hidden tests never run in the student's kernel (see
:mod:`attention_grader.checking.trusted`). When a test needs an answer, :class:`AnswerChannel` runs one
small request in the kernel (``_kernel_side.py``, sent by
:mod:`~attention_grader.channel.answer_encoding`) that encodes the named values as JSON, or calls
a student's function on arguments the grader chose and encodes what it returns. The reply is
decoded strictly (:mod:`~attention_grader.channel.answer_decoding`): numbers, booleans, strings,
None, numeric numpy arrays and scalars, and lists, tuples, sets and dicts of those. Anything else
becomes an :class:`~attention_grader.wire.unsupported_answer.UnsupportedAnswer` (which every
check rejects as "not numbers"), and a reply that is not valid plain data raises
:class:`~attention_grader.wire.answer_errors.UnreadableAnswer`. No object made by student
code ever reaches the grader's process, so no ``__eq__``, ``__array_function__`` or patched module
of the student's can touch a check.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TypeAlias

import numpy as np
from nbformat import NotebookNode

from attention_grader.channel.answer_decoding import decode, hash_budget, is_count, read_reply
from attention_grader.channel.answer_encoding import (
    agent_missing,
    encode,
    request_call,
    request_source,
)
from attention_grader.channel.handle_table import HandleTable
from attention_grader.channel.student_function import StudentFunction
from attention_grader.config.settings import AnswerLimits
from attention_grader.wire.answer_codec import Wire
from attention_grader.wire.answer_errors import (
    CannotGrade,
    KernelGone,
    StudentCodeError,
    UnreadableAnswer,
    student_error,
)
from attention_grader.wire.unsupported_answer import UnsupportedAnswer

__all__ = ["AnswerChannel", "update_in_place"]

#: ``run_request(source) -> outputs``: run one hidden request cell in the student's kernel.
RunRequest: TypeAlias = Callable[[str], list[NotebookNode]]


def update_in_place(target: object, new: object) -> None:
    """Make the mutable ``target`` hold ``new`` (a list, dict, set or array of the same shape)."""
    if isinstance(target, list) and isinstance(new, list):
        target[:] = new
    elif isinstance(target, dict) and isinstance(new, dict):
        target.clear()
        target.update(new)
    elif isinstance(target, set) and isinstance(new, set):
        target.clear()
        target.update(new)
    elif isinstance(target, np.ndarray) and isinstance(new, np.ndarray):
        if target.shape == new.shape and target.flags.writeable:
            with contextlib.suppress(TypeError, ValueError):
                np.copyto(target, new, casting="unsafe")


class AnswerChannel:
    """Asks one student's kernel for answers.

    Parameters
    ----------
    run_request : callable
        ``f(source) -> outputs``: run a hidden request cell in the student's kernel and return
        its outputs; raises :class:`KernelGone` when the kernel is dead or stuck.
    limits : AnswerLimits
    library_use : callable, optional
        ``f(function_name) -> str | None`` (see :class:`StudentFunction`).
    """

    def __init__(
        self,
        run_request: RunRequest,
        limits: AnswerLimits | None = None,
        library_use: Callable[[str], str | None] | None = None,
    ) -> None:
        self._run = run_request
        self.limits = limits or AnswerLimits()
        self._library_use: Callable[[str], str | None] = library_use or (lambda name: None)
        self.broken: str | None = None
        #: Why values the current test received could not be carried (set by the checker).
        self.uncarried: list[str] = []
        #: ``f(name) -> type | None``: the teacher's exception class of that name.
        self.exception_class: Callable[[str], type | None] | None = None
        #: ``f(text)``: what the student's function printed during a call, for the test.
        self.stdout_sink: Callable[[str], None] | None = None
        #: What the student's code wrote to stderr during the current test's calls.
        self.stderr: list[str] = []
        self.handle_ops = 0  # uses of objects in the kernel during the current test
        #: Why the current test's result says nothing, pass or fail (it used a placeholder).
        self.untrusted: list[str] = []
        #: The stand-ins of the kernel's objects and classes (one per object, one per class).
        self.handles = HandleTable(self)

    def bind(self, name: str, value: object) -> None:
        """Bind a student's ``name`` in the kernel too, as the test did (kernel_bindings)."""
        self.request({"op": "bind", "name": name, "value": self._encoded(value, f"`{name}`")})

    def unbind(self, name: str) -> None:
        """Delete a student's ``name`` in the kernel too, as the test did (kept aside)."""
        self.request({"op": "unbind", "name": name})

    def touched(self, cause: str) -> None:
        """Note that the test used a value that could not be carried: its result needs a teacher."""
        if cause not in self.untrusted:
            self.untrusted.append(cause)

    def _classes(self, name: str) -> type | None:
        teacher = self.exception_class(name) if self.exception_class else None
        return teacher or self.handles.exceptions.get(name)

    def _raised(self, reply: dict[str, Wire]) -> StudentCodeError:
        bases = reply.get("bases")
        if not isinstance(bases, list):
            bases = []
        return student_error(reply["raised"], reply.get("message", ""), bases, self._classes)

    def request(self, request: dict[str, object]) -> dict[str, Wire]:
        """Send one request; raise what the student's code raised, return the reply."""
        reply = self._request(request)
        if "raised" in reply:
            raise self._raised(reply)
        return reply

    def _request(self, request: dict[str, object]) -> dict[str, Wire]:
        if self.broken:
            raise KernelGone(self.broken)
        try:
            outputs = self._run(request_call(request, self.limits))
            if agent_missing(outputs):  # the kernel's first request, or her code removed it
                outputs = self._run(request_source(request, self.limits))
            return read_reply(outputs, self.limits)
        except KernelGone as gone:
            self.broken = str(gone)
            raise

    def _function(self, name: str) -> StudentFunction:
        return StudentFunction(name, self, self._library_use(name))

    def get(self, names: list[str], read: set[str] | None = None) -> dict[str, object]:
        """``{name: value}`` for the names the kernel defines (others are left out).

        A placeholder for a name in ``read`` (default: all) counts as used at once.
        """
        if not names:
            return {}
        reply = self._request({"op": "get", "names": list(names)})
        values: dict[str, object] = {}
        hashed = hash_budget(self.limits)
        for name in names:
            entry = reply.get(name)
            if not isinstance(entry, dict) or entry.get("missing") or "value" not in entry:
                continue
            value = decode(
                entry["value"],
                self.limits,
                self._caller(name),
                None,
                self.uncarried,
                self.handles.stand_in,
                hashed,
                self._toucher(name),
            )
            if isinstance(value, UnsupportedAnswer) and (read is None or name in read):
                value._used()  # the test reads the name: it uses the placeholder
            key = entry["value"].get("handle") if isinstance(entry["value"], dict) else None
            if isinstance(value, StudentFunction) and is_count(key):
                value._key = key  # called as the object it was, whatever the name holds
            values[name] = value
        return values

    def _caller(self, name: str) -> Callable[[str], StudentFunction]:
        """Return the stand-in maker for ``name``: a function is called back by the name asked for."""
        return lambda _own_name: self._function(name)

    def _toucher(self, name: str) -> Callable[[str], None]:
        """Return what marks the test untrusted when it uses the placeholder read as ``name``."""
        return lambda what: self.touched(
            f"the test used `{name}`, {what} that could not be carried out of the student's kernel"
        )

    def handle_op(
        self,
        handle: int,
        action: str,
        *,
        args: tuple[object, ...] | list[object] = (),
        kwargs: dict[str, object] | None = None,
        **fields: object,
    ) -> object:
        """One use of an object in the kernel (see :mod:`~attention_grader.channel.object_handles`).

        At most ``c.Answers.max_handle_ops`` per test: numpy reading a student's "sequence" item by
        item must not spend the grader's time one request at a time.
        """
        self.handle_ops += 1
        most = self.limits.max_handle_ops
        if self.handle_ops > most:
            cause = f"the test uses a student's object more than {most} times"
            if cause not in self.uncarried:
                self.uncarried.append(cause)
            raise CannotGrade(cause)
        request: dict[str, object] = {"op": "handle", "handle": handle, "action": action}
        request.update(fields)
        for field in ("key", "value", "other"):
            if field in fields:
                request[field] = self._encoded(fields[field], f"a {action} of a student's object")
        label = f"{fields.get('name') or 'an object'}"
        return self.call(label, tuple(args), kwargs or {}, request)

    def _encoded(self, value: object, where: str) -> Wire:
        try:
            return encode(value, self.limits)
        except (TypeError, ValueError) as exc:
            what = str(exc).removeprefix("cannot send ").removesuffix(" to a student's function")
            cause = f"the test passes {what} to {where}, which runs in the student's kernel"
            self.uncarried.append(cause)
            raise CannotGrade(cause) from None

    def call(
        self,
        name: str,
        args: tuple[object, ...],
        kwargs: dict[str, object],
        request: dict[str, object] | None = None,
    ) -> object:
        """Call the student's function ``name`` on grader-chosen plain data; return its result."""
        try:
            request = dict(request or {"op": "call", "name": name})
            request["args"] = [encode(a, self.limits) for a in args]
            request["kwargs"] = {str(k): encode(v, self.limits) for k, v in kwargs.items()}
        except (TypeError, ValueError) as exc:
            what = str(exc).removeprefix("cannot send ").removesuffix(" to a student's function")
            cause = f"the test passes {what} to `{name}`, which runs in the student's kernel"
            self.uncarried.append(cause)
            raise CannotGrade(cause) from None
        try:
            reply = self._request(request)
        except KernelGone as gone:
            message = f"the kernel stopped while {name} ran ({gone})"
            raise student_error("KernelDied", message) from None
        self._replay(reply.get("stdout"))
        if isinstance(reply.get("stderr"), str) and reply["stderr"]:
            self.stderr.append(str(reply["stderr"])[:2000])  # counted, never shown
        self._copy_back(args, reply.get("changed"))
        if "raised" in reply:
            raise self._raised(reply)
        if "value" not in reply:
            raise UnreadableAnswer(f"no result from {name}")
        same = reply.get("same_as")
        if is_count(same) and same < len(args):
            return args[same]  # the function returned its argument itself (`result is xs`)

        def touch(what: str) -> None:
            self.touched(
                f"`{name}` returned {what}, which could not be carried out of the student's kernel"
            )

        value = decode(
            reply["value"], self.limits, None, None, self.uncarried, self.handles.stand_in,
            touch=touch,
        )  # fmt: skip
        if isinstance(value, UnsupportedAnswer):
            value._used()  # the test receives it: it uses the placeholder
        return value

    def _replay(self, text: object) -> None:
        """Send what the student's function printed to the test's stdout (``redirect_stdout``)."""
        if isinstance(text, str) and text and self.stdout_sink is not None:
            self.stdout_sink(text[: self.limits.max_reply_chars])

    def _copy_back(self, args: tuple[object, ...], changed: object) -> None:
        """Arguments the student's function changed in place are changed here too."""
        if not isinstance(changed, list):
            return
        for entry in changed[: len(args)]:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)):
                continue
            index, encoded = entry
            if 0 <= index < len(args):
                update_in_place(args[index], decode(encoded, self.limits))
