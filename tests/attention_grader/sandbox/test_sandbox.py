"""The sandbox for student kernels: what a kernel can see and do, and the protections report.

One sandboxed kernel is started here directly (nbclient + SandboxedKernelManager); the attacks
that go through a whole ``nbgrader autograde`` run come from the shared batch in tests/attacks.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from attacks.batch import graded_batch
from attention_grader.executor.execute import GradingExecute
from attention_grader.sandbox import sandbox_host, sandbox_launch
from attention_grader.sandbox.protections import Protection, format_protections, protections
from attention_grader.sandbox.sandbox import SandboxedKernelManager

from tests.support.sandboxed_kernel import run_sandboxed


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """A fake course next to the submission folder, and what a sandboxed kernel sees of it."""
    course = tmp_path_factory.mktemp("course")
    (course / "source").mkdir()
    (course / "source" / "answers.txt").write_text("secret")
    (course / "gradebook.db").write_text("grades")
    work = course / "autograded" / "alice" / "lab"
    work.mkdir(parents=True)
    (work / "data.csv").write_text("1,2,3")
    (work / "lab.ipynb").write_text("{}  # the notebook on disk holds the hidden tests")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    os.environ["ATTENTION_TEST_SECRET"] = "hub-token"
    try:
        outputs = run_sandboxed(
            [
                "import os, resource; print(os.getuid(), os.getcwd())",
                "print(sorted(os.listdir('.')))",
                f"print(os.path.exists({str(course / 'source')!r}), "
                f"os.path.exists({str(course / 'gradebook.db')!r}))",
                f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)",
                "print(resource.getrlimit(resource.RLIMIT_CPU)[0], "
                "resource.getrlimit(resource.RLIMIT_AS)[0])",
                "print(os.environ.get('ATTENTION_TEST_SECRET'))",
                "open('/tmp/escape-probe.txt', 'w').write('x'); open('out.txt', 'w').write('x')",
                "import numpy as np; np.ones(6 * 2**30 // 8)",
                "print('alive')",
            ],
            work,
        )
    finally:
        listener.close()
        del os.environ["ATTENTION_TEST_SECRET"]
    return {"course": course, "work": work, "out": outputs}


@pytest.mark.slow
def test_kernel_runs_as_an_unprivileged_user_in_the_submission_folder(probe):
    uid, cwd = probe["out"][0].split()
    assert int(uid) != 0
    assert cwd == str(probe["work"])


@pytest.mark.slow
def test_kernel_sees_data_files_but_not_the_notebook_with_hidden_tests(probe):
    assert probe["out"][1] == "['data.csv']"


@pytest.mark.slow
def test_kernel_cannot_see_source_or_gradebook(probe):
    assert probe["out"][2] == "False False"


@pytest.mark.slow
def test_kernel_cannot_reach_the_graders_loopback_ports(probe):
    assert probe["out"][3] in ("ConnectionRefusedError", "OSError", "TimeoutError")


@pytest.mark.slow
def test_kernel_has_cpu_and_memory_limits(probe):
    cpu, mem = map(int, probe["out"][4].split())
    km = SandboxedKernelManager()
    assert cpu == km.cpu_seconds
    assert mem == km.memory_mb * 2**20
    assert probe["out"][7] == "MemoryError"
    assert probe["out"][8] == "alive"


@pytest.mark.slow
def test_kernel_gets_a_clean_environment(probe):
    assert probe["out"][5] == "None"


@pytest.mark.slow
def test_kernel_writes_stay_in_the_sandbox(probe):
    assert probe["out"][6] == ""
    assert not Path("/tmp/escape-probe.txt").exists()
    assert not (probe["work"] / "out.txt").exists()


@pytest.mark.slow
def test_protections_report_everything_on_here():
    # CI and this machine run as root with bubblewrap from `make sandbox-deps`.
    assert sandbox_host.bwrap_available()[0], sandbox_host.bwrap_available()[1]
    items = protections(SandboxedKernelManager(), GradingExecute(timeout=30))
    assert all(p.on for p in items), format_protections(items)
    text = format_protections(items)
    assert "OFF" not in text and "per-notebook timeout 300 s" in text
    assert "grader's budget per submission 400 s" in text


@pytest.mark.slow
def test_grading_without_a_sandbox_still_works_and_says_what_is_off(tmp_path):
    km = SandboxedKernelManager(sandbox="off")
    items = protections(km)
    off = {p.name.split(" (")[0] for p in items if not p.on}
    assert {"filesystem isolation", "no network", "separate unprivileged user"} <= off
    assert "implement-it notebooks graded without attention_lab's numerics" in off
    text = format_protections(items)
    assert "[OFF] filesystem isolation" in text and "WARNING: 4 protection(s) OFF" in text
    out = run_sandboxed(["print(6 * 7)", "import resource; print(resource.getrlimit(0)[0])"], tmp_path,
               sandbox="off")  # fmt: skip
    assert out == ["42", str(km.cpu_seconds)]


def test_format_protections_warns_in_plain_words():
    text = format_protections([Protection("no network", False, "bwrap missing")])
    assert "[OFF] no network -- bwrap missing" in text
    assert "WARNING: 1 protection(s) OFF" in text


@pytest.mark.slow
def test_bwrap_command_binds_only_what_a_kernel_needs(tmp_path):
    km = SandboxedKernelManager()
    km._ctl_dir = str(tmp_path)
    (tmp_path / "ipc").mkdir()
    argv = sandbox_launch.bwrap_argv(
        km, str(tmp_path / "w"), "/course/autograded/a/lab", "/m", True
    )
    assert "--unshare-net" in argv and "--unshare-pid" in argv and "--die-with-parent" in argv
    binds = {argv[i + 2] for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")}
    assert "/course" not in binds and not any(b.startswith("/course/source") for b in binds)
    writable = {argv[i + 2] for i, a in enumerate(argv) if a == "--bind"}
    assert "/course/autograded/a/lab" in writable  # the private copy, mounted at the usual path


# --------------------------------------------------------------------------- from the attack batch


@pytest.fixture(scope="module")
def batch():
    return graded_batch()


@pytest.mark.slow
def test_attacks_could_not_change_source_gradebook_or_reach_the_network(batch):
    assert batch.source_digests_ok
    assert batch.listener_connections == 0
    assert batch.leaked == []
    assert "network: " in batch.outputs("network_loopback")
    assert "CONNECTED" not in batch.outputs("network_loopback")
    assert "FOUND 0" in batch.outputs("read_source")
    assert "MemoryError" in batch.outputs("memory_hog")


@pytest.mark.slow
def test_killed_or_looping_kernels_cost_only_their_own_tests(batch):
    assert "KernelDied" in batch.outputs("kill_kernel")
    assert "KeyboardInterrupt" in batch.outputs("infinite_loop") or "CellTimeoutError" in (
        batch.outputs("infinite_loop")
    )


def test_submission_copy_skips_notebooks_links_and_itself_and_has_a_limit(tmp_path):
    src = tmp_path / "submission"
    (src / "data").mkdir(parents=True)
    (src / "data" / "x.csv").write_text("1,2")
    (src / "lab.ipynb").write_text("{}")
    (src / "answers").symlink_to(tmp_path)
    own = src / "attention-sandbox-1"  # the sandbox folder may sit inside the copied folder
    (own / "work").mkdir(parents=True)
    sandbox_launch.copy_submission(str(src), str(own / "work"), limit_mb=1)
    copied = sorted(p.relative_to(own / "work").as_posix() for p in (own / "work").rglob("*"))
    assert copied == ["data", "data/x.csv"]
    (src / "big.bin").write_bytes(b"0" * (2 * 2**20))
    with pytest.raises(RuntimeError, match="more than 1 MiB"):
        sandbox_launch.copy_submission(str(src), str(tmp_path / "again" / "work"), limit_mb=1)


@pytest.mark.slow
def test_private_folder_is_removed_even_when_the_kernel_killed_itself(tmp_path, short_tmp):
    work = tmp_path / "work"
    work.mkdir()
    control = short_tmp  # the kernel's sockets live in its private folder there
    out = run_sandboxed(["import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], work,
               control_root=str(control), raise_dead=False)  # fmt: skip
    assert out == ["dead"]
    assert list(control.iterdir()) == []
