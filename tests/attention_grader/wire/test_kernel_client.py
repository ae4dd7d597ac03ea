"""The grader's kernel client: its start-up wait, against real sandboxed kernels."""

from __future__ import annotations

import asyncio
import os

import pytest
from attention_grader.sandbox.sandbox import SandboxedKernelManager
from attention_grader.wire.kernel_client import CappedKernelClient

pytestmark = pytest.mark.slow


async def _started(cwd: str) -> tuple[SandboxedKernelManager, CappedKernelClient]:
    km = SandboxedKernelManager(kernel_name="python3")
    km.client_factory = CappedKernelClient
    await km.start_kernel(cwd=cwd)
    kc = km.client()
    kc.start_channels()
    return km, kc


async def _first_cell_outputs(kc: CappedKernelClient) -> list[dict]:
    """Run one cell; return every IOPub message's content that answers it, up to idle."""
    msg_id = kc.execute("print('mine')")
    seen = []
    while True:
        msg = await kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return seen
        seen.append(msg)


def test_a_ready_kernel_answers_and_its_first_cell_shows_only_its_own_output(tmp_path):
    """After the (shortened) start-up drain the kernel is ready and nothing from its start
    reaches the first cell's outputs.
    """

    async def scenario() -> tuple[str, list[dict]]:
        km, kc = await _started(str(tmp_path))
        try:
            await kc.wait_for_ready(timeout=60)
            language = kc.session.adapt_version  # set from the kernel_info reply
            msgs = await _first_cell_outputs(kc)
            return str(language), msgs
        finally:
            kc.stop_channels()
            await km.shutdown_kernel(now=True)

    version, msgs = asyncio.run(scenario())
    assert version.isdigit()
    streams = [m["content"]["text"] for m in msgs if m["msg_type"] == "stream"]
    assert streams == ["mine\n"]


def test_waiting_for_a_kernel_that_died_says_so(tmp_path):
    async def scenario() -> None:
        km, kc = await _started(str(tmp_path))
        try:
            await km.shutdown_kernel(now=True)  # gone before it ever answered kernel_info
            await kc.wait_for_ready(timeout=60)
        finally:
            kc.stop_channels()

    with pytest.raises(RuntimeError, match="died before replying"):
        asyncio.run(scenario())


def test_an_immediate_shutdown_returns_only_once_the_kernel_is_gone(tmp_path):
    """The manager's shorter look-again interval still waits for the process to end."""

    async def scenario() -> int:
        km, kc = await _started(str(tmp_path))
        await kc.wait_for_ready(timeout=60)
        pid = km.provisioner.process.pid
        kc.stop_channels()
        await km.shutdown_kernel(now=True)
        return pid

    pid = asyncio.run(scenario())
    with pytest.raises(ProcessLookupError):  # reaped: no such process, not even a zombie
        os.kill(pid, 0)
