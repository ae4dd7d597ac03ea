"""What a stand-in asks of the student's kernel: the requests the answer channel answers.

:mod:`~attention_grader.channel.object_handles`, :mod:`~attention_grader.channel.student_function`
and :mod:`~attention_grader.channel.handle_table` hold a channel and call it; the channel
(:class:`~attention_grader.channel.answer_channel.AnswerChannel`) makes them. They name the
channel by this protocol, so the channel imports them and they never import the channel.
"""

from __future__ import annotations

from typing import Protocol

from attention_grader.config.settings import AnswerLimits
from attention_grader.wire.answer_codec import Wire

__all__ = ["KernelRequests"]


class KernelRequests(Protocol):
    """The answer channel as a stand-in sees it.

    Attributes
    ----------
    limits : AnswerLimits
        The caps of this notebook's answers (``c.Answers``).
    uncarried : list of str
        Why each value the test used could not be carried (the cell then needs a teacher).
    """

    limits: AnswerLimits
    uncarried: list[str]

    def touched(self, cause: str) -> None:
        """Note that the test used a value that could not be carried."""

    def request(self, request: dict[str, object]) -> dict[str, Wire]:
        """Send one request; raise what the student's code raised, return the reply."""

    def handle_op(
        self,
        handle: int,
        action: str,
        *,
        args: tuple[object, ...] | list[object] = (),
        kwargs: dict[str, object] | None = None,
        **fields: object,
    ) -> object:
        """One use of an object in the kernel; the reply decoded."""

    def call(
        self,
        name: str,
        args: tuple[object, ...],
        kwargs: dict[str, object],
        request: dict[str, object] | None = None,
    ) -> object:
        """Call the student's function ``name`` on plain data; return its result."""
