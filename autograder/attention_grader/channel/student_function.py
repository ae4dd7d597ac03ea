"""A student's function, seen from the grader: calling it runs it in the student's kernel."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from attention_grader.wire.answer_errors import KernelGone, StudentCodeError, UnreadableAnswer
from attention_grader.wire.kernel_requests import KernelRequests

__all__ = ["StudentFunction", "reference_source"]


class StudentFunction:
    """A student's function, seen from the grader: calling it runs it in the student's kernel.

    Arguments go in as plain data; what comes back is decoded like any answer. If the student's
    code raises, :class:`StudentCodeError` is raised here. ``attention_library_use`` says
    whether the student's source calls a library the exercise forbids (found statically from
    the submitted cells by :func:`attention_grader.executor.library_use.library_in_source`), since the function's
    code object never leaves the kernel.
    """

    def __init__(self, name: str, channel: KernelRequests, library_use: str | None = None):
        self.__name__ = name
        self._channel = channel
        self._key: int | None = None  # its number in the kernel's table, when it has one
        self.attention_library_use = library_use

    def __call__(self, *args: object, **kwargs: object) -> object:
        request: dict[str, object] | None = None
        if self._key is not None:
            request = {"op": "handle", "handle": self._key, "action": "call"}
        return self._channel.call(self.__name__, args, kwargs, request)

    @contextlib.contextmanager
    def substituting(self, global_name: str, reference_path: str) -> Iterator[None]:
        """Bind ``global_name`` in the student's kernel to the grader's reference while inside.

        The reference is a function such as ``"attention_lab._steps.softmax"``, so checking this
        function is not charged
        for a mistake in another graded function it calls (see ``checks._library.substituted``).
        """
        request: dict[str, object] = {
            "op": "substitute",
            "name": global_name,
            "path": reference_path,
        }
        # Its code, not its path: an implement-it kernel has no attention_lab to import from.
        request["source"] = reference_source(reference_path)
        self._channel.request(request)
        try:
            yield
        finally:
            with contextlib.suppress(KernelGone, UnreadableAnswer, StudentCodeError):
                self._channel.request({"op": "restore", "name": global_name})

    def __repr__(self) -> str:
        return f"<student function {self.__name__}>"


def reference_source(path: str) -> str:
    """Return the source of the grader's reference function ``path`` (in ``attention_lab``)."""
    import importlib
    import inspect
    import textwrap

    module, _, attr = path.rpartition(".")
    if module.split(".")[0] != "attention_lab":
        raise ValueError(f"only attention_lab functions are substituted, not {path!r}")
    source = textwrap.dedent(inspect.getsource(getattr(importlib.import_module(module), attr)))
    # As its module compiles it: its annotations name types only that module imports
    # (``ArrayLike``), which the kernel, compiling the text alone, must not evaluate.
    return "from __future__ import annotations\n" + source
