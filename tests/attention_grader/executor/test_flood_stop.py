"""The interrupt that stops a flood (attention_grader.executor.flood_stop), with no kernel.

A fake kernel client records what is sent on its control channel and answers when the test
says; nbclient's wait for the reply and its reading of the output are plain futures.
"""

from __future__ import annotations

import asyncio
import logging
from queue import Empty

import pytest
from attention_grader.executor import flood_stop
from attention_grader.executor.flood_stop import FloodStop


class FakeControl:
    """A control channel: keeps what was sent, replies to it once ``answer`` is set."""

    def __init__(self, answers: bool = True) -> None:
        self.sent: list[dict] = []
        self.answer = asyncio.Event()
        if answers:
            self.answer.set()

    def send(self, msg: dict) -> None:
        self.sent.append(msg)

    async def get_msg(self, timeout: float) -> dict:
        try:
            await asyncio.wait_for(self.answer.wait(), timeout)
        except TimeoutError:
            raise Empty from None
        return {"parent_header": {"msg_id": self.sent[-1]["header"]["msg_id"]}}


class FakeSession:
    def msg(self, msg_type: str, content: dict) -> dict:
        return {"header": {"msg_id": f"{msg_type}-1", "msg_type": msg_type}, "content": content}


class FakeClient:
    def __init__(self, control: FakeControl) -> None:
        self.session, self.control_channel = FakeSession(), control


REPLY = {"content": {"status": "ok"}, "parent_header": {"msg_id": "exec-1"}}


async def _reply_after(future: asyncio.Future, seconds: float) -> dict:
    await asyncio.sleep(seconds)
    future.set_result(None)  # the kernel went idle
    await asyncio.sleep(seconds)
    return REPLY


def test_without_an_interrupt_the_reply_is_nbclients():
    async def scenario():
        output, alive = asyncio.Future(), asyncio.Future()
        stop = FloodStop(settle_timeout=5)
        return await stop.reply(_reply_after(output, 0.01), output, alive, "exec-1")

    assert asyncio.run(scenario()) is REPLY


def test_a_reply_dropped_after_the_interrupt_is_stood_in_for_once_the_kernel_is_idle(monkeypatch):
    monkeypatch.setattr(flood_stop, "LOST_REPLY_GRACE", 0.05)

    async def scenario():
        output, alive = asyncio.Future(), asyncio.Future()
        never = asyncio.Future()  # nbclient would wait for the cell's time limit
        control = FakeControl()
        stop = FloodStop(settle_timeout=5)
        stop.interrupt(FakeClient(control))
        stop.interrupt(FakeClient(control))  # the flood goes on: still one interrupt
        output.set_result(None)  # idle, no reply
        reply = await stop.reply(never, output, alive, "exec-1")
        return reply, control, alive, never

    reply, control, alive, never = asyncio.run(scenario())
    assert [m["header"]["msg_type"] for m in control.sent] == ["interrupt_request"]
    # an error, so a test cell the kernel ran fails rather than passes on a cut output
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert "printed too much" in reply["content"]["traceback"][0]  # what her feedback shows
    assert reply["parent_header"] == {"msg_id": "exec-1"}
    assert alive.cancelled() and never.cancelled()


def test_the_next_cell_waits_until_the_kernel_confirmed_the_interrupt():
    async def scenario():
        output, alive = asyncio.Future(), asyncio.Future()
        control = FakeControl(answers=False)
        stop = FloodStop(settle_timeout=5)
        stop.interrupt(FakeClient(control))
        poll = asyncio.ensure_future(_reply_after(output, 0.01))
        waiting = asyncio.ensure_future(stop.reply(poll, output, alive, "exec-1"))
        await poll  # the reply came
        for _ in range(20):  # every step the wait could take without the confirmation
            await asyncio.sleep(0)
        unconfirmed = waiting.done()
        control.answer.set()  # the kernel has signalled itself
        return unconfirmed, await waiting

    unconfirmed, reply = asyncio.run(scenario())
    assert not unconfirmed  # an interrupt still on its way could reach the grader's next request
    assert reply is REPLY


def test_an_interrupt_never_confirmed_is_logged_and_grading_goes_on(caplog):
    async def scenario():
        output, alive = asyncio.Future(), asyncio.Future()
        stop = FloodStop(settle_timeout=0.1, log=logging.getLogger("grader"))
        stop.interrupt(FakeClient(FakeControl(answers=False)))
        return await stop.reply(_reply_after(output, 0.01), output, alive, "exec-1")

    with caplog.at_level(logging.WARNING):
        assert asyncio.run(scenario()) is REPLY
    assert "did not confirm the interrupt" in caplog.text


def test_when_nbclients_wait_is_cancelled_so_is_the_wait_for_the_reply():
    """When the kernel dies nbclient cancels its wait: nothing of it may be left running."""

    async def scenario():
        output, alive = asyncio.Future(), asyncio.Future()
        never = asyncio.ensure_future(asyncio.Event().wait())
        stop = FloodStop(settle_timeout=5)
        task = asyncio.ensure_future(stop.reply(never, output, alive, "exec-1"))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0)
        return never

    assert asyncio.run(scenario()).cancelled()
