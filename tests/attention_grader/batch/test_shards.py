"""``grade --shard I/N`` (attention_grader.batch.shards) and the pod guard (protections.pod_refusal)."""

from __future__ import annotations

import pytest
from attention_grader.batch.shards import Shard, parse_shard
from attention_grader.sandbox.protections import (
    ALLOW_ENV,
    Protection,
    format_protections,
    pod_refusal,
)

CLASS = [f"s{i:02d}" for i in range(23)]


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7, 23, 30])
def test_the_shards_cover_the_class_once_and_differ_by_at_most_one(count):
    parts = [Shard(i, count).pick(reversed(CLASS)) for i in range(count)]
    flat = [s for part in parts for s in part]
    assert sorted(flat) == CLASS and len(flat) == len(set(flat))  # nobody twice, nobody missed
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1


def test_the_split_is_round_robin_over_sorted_ids_whatever_the_order_seen():
    seen = ["eli", "alice", "dana", "bob", "alice"]
    assert [Shard(i, 3).pick(seen) for i in range(3)] == [["alice", "eli"], ["bob"], ["dana"]]


@pytest.mark.parametrize("text", ["", "2", "a/b", "4/4", "-1/4", "1/0", "1/2/3"])
def test_a_bad_shard_says_how_to_write_one(text):
    with pytest.raises(ValueError, match=r"I/N|0 <= I < N"):
        parse_shard(text)


def test_parse_shard_reads_what_the_job_passes():
    assert parse_shard("3/4") == Shard(3, 4)
    assert parse_shard(" 0 / 1 ").label() == "shard-0-of-1"


WALLS = [
    Protection("filesystem isolation (no access to source/ ...)", True, "bubblewrap"),
    Protection("no network (not even the grader's loopback ports)", True, "empty netns"),
    Protection("separate unprivileged user", False, "kernels keep the grader's uid"),
]
POD = {"KUBERNETES_SERVICE_HOST": "10.96.0.1"}


def _down(items):
    return [Protection(p.name, False, "bwrap cannot create namespaces here") for p in items[:2]]


def test_a_pod_with_the_walls_up_grades_even_without_a_separate_user():
    assert pod_refusal(WALLS, environ=POD) is None
    assert "In a Kubernetes pod: grading may start" in format_protections(WALLS, environ=POD)


def test_a_pod_without_the_sandbox_refuses_and_says_what_the_pod_needs():
    down = _down(WALLS) + WALLS[2:]
    why = pod_refusal(down, environ=POD)
    assert "refusing to grade in a Kubernetes pod" in why
    assert "filesystem isolation is OFF" in why and "no network is OFF" in why
    assert "hostUsers: false" in why and "procMount: Unmasked" in why and ALLOW_ENV in why
    assert why in format_protections(down, environ=POD)
    assert "refusing" in pod_refusal(WALLS, sandboxed=False, environ=POD)  # no pipeline at all


def test_one_machine_only_warns_and_the_override_is_said_out_loud(monkeypatch):
    from attention_grader.config.settings import Protections
    from traitlets.config import Config

    monkeypatch.delenv(ALLOW_ENV, raising=False)
    down = _down(WALLS)
    assert pod_refusal(down, environ={}) is None  # a teacher's laptop: the loud warning as before
    assert pod_refusal(down, environ=POD, allow=True) is None
    said = format_protections(down, environ=POD, allow=True)
    assert "allow_unsandboxed_in_pod: grading starts although" in said
    # The setting is a traitlet; the container's variable maps onto its default, in one place.
    c = Config()
    c.Protections.allow_unsandboxed_in_pod = True
    assert (
        Protections(config=c).allow_unsandboxed_in_pod
        and not Protections().allow_unsandboxed_in_pod
    )
    assert "refusing" in pod_refusal(down, environ=POD)
    monkeypatch.setenv(ALLOW_ENV, "1")
    assert Protections().allow_unsandboxed_in_pod and pod_refusal(down, environ=POD) is None


def _course_config(sandbox: str):
    from types import SimpleNamespace

    from traitlets.config import Config

    c = Config()
    c.Autograde.autograde_preprocessors = ["attention_grader.executor.execute.GradingExecute"]
    c.SandboxedKernelManager.sandbox = sandbox
    return SimpleNamespace(config=c)


def test_a_course_config_that_switches_the_sandbox_off_is_refused_in_a_pod(monkeypatch, capsys):
    from attention_grader.cli import _announce_protections
    from attention_grader.config.course import GradingStepError

    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    with pytest.raises(GradingStepError, match="filesystem isolation is OFF.*sandbox switched off"):
        _announce_protections(_course_config("off"))
    assert "[OFF] filesystem isolation" in capsys.readouterr().out
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST")
    _announce_protections(_course_config("off"))  # one machine: the loud report, no refusal
    assert "WARNING" in capsys.readouterr().out


def test_shards_on_a_sqlite_gradebook_are_refused_with_the_way_out(tmp_path, capsys):
    from attention_grader.cli import main

    from tests.support.grading_course import FIXTURE, make_course

    course = make_course(tmp_path)
    assert main(["--course", str(course.root), "grade", FIXTURE, "--shard", "0/2"]) == 2
    err = capsys.readouterr().err
    assert "SQLite cannot take" in err and "PostgreSQL" in err
    assert main(["--course", str(course.root), "grade", FIXTURE, "--shard", "2/2"]) == 2
    assert "0 <= I < N" in capsys.readouterr().err


@pytest.mark.slow
def test_make_sandbox_check_in_a_pod_says_whether_grading_would_start():
    """What an admin runs in a grading pod (`kubectl exec ... make sandbox-check`)."""
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, **POD}
    env.pop(ALLOW_ENV, None)
    done = subprocess.run(
        ["make", "-s", "sandbox-check"], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    if "[ON ] filesystem isolation" in done.stdout and "[ON ] no network" in done.stdout:
        assert (
            last
            == "  In a Kubernetes pod: grading may start (filesystem isolation and no network are ON)"
        )
    else:  # a machine without bubblewrap or user namespaces: the refusal the pod would print
        assert last.startswith("  In a Kubernetes pod: refusing to grade")
    env.pop("KUBERNETES_SERVICE_HOST")
    done = subprocess.run(
        ["make", "-s", "sandbox-check"], cwd=root, env=env, capture_output=True, text=True
    )
    assert "Kubernetes" not in done.stdout  # one machine: the report as before


def test_every_grading_route_refuses_in_a_pod_without_the_sandbox(monkeypatch):
    """Not only `attention_grader grade`: plain `nbgrader autograde` and the formgrader's
    autograde button run GradingExecute too, which refuses before any student kernel starts.
    """
    from attention_grader.executor import execute, grading_walls
    from nbformat.v4 import new_code_cell, new_notebook

    monkeypatch.setattr(execute.GradingExecute, "_reported", False)
    monkeypatch.setattr(execute.GradingExecute, "_refusal", None)
    monkeypatch.setattr(grading_walls, "protections", lambda *a, **k: _down(WALLS) + WALLS[2:])
    for name, value in POD.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    nb = new_notebook(cells=[new_code_cell("open('/etc/hostname').read()")])
    grader = execute.GradingExecute(print_protections=False)
    with pytest.raises(execute.KernelStartError, match="refusing to grade in a Kubernetes pod"):
        grader.preprocess(nb, {})
    assert not nb.cells[0].get("outputs")  # nothing ran


# --------------------------------------------------------------------------- safe by default


def test_one_machine_without_the_walls_refuses_and_gives_the_one_command():
    from attention_grader.sandbox.protections import unsandboxed_refusal

    down = _down(WALLS) + WALLS[2:]
    why = unsandboxed_refusal(down, sandboxed=True, sandbox="auto", environ={})
    assert why.startswith("refusing to grade without the sandbox")
    assert "filesystem isolation is OFF" in why and "no network is OFF" in why
    assert "`make sandbox-deps`" in why and 'c.SandboxedKernelManager.sandbox = "off"' in why
    assert unsandboxed_refusal(down, sandboxed=True, sandbox="require")
    assert unsandboxed_refusal(down, sandboxed=True, sandbox="off") is None  # on purpose
    assert unsandboxed_refusal(WALLS, sandboxed=True, sandbox="auto") is None  # walls up
    assert unsandboxed_refusal(down, sandboxed=False, sandbox="auto") is None  # plain nbgrader
    # in a pod, pod_refusal decides (with the pod's own override)
    assert unsandboxed_refusal(down, sandboxed=True, sandbox="auto", environ=POD) is None


def test_make_grade_refuses_without_the_walls_unless_the_course_switched_them_off(
    monkeypatch, capsys
):
    from attention_grader.cli import _announce_protections
    from attention_grader.config.course import GradingStepError
    from attention_grader.sandbox import protections as protections_module

    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setattr(protections_module, "bwrap_available", lambda: (False, "bwrap not found"))
    with pytest.raises(GradingStepError, match="make sandbox-deps"):
        _announce_protections(_course_config("auto"))
    _announce_protections(_course_config("off"))  # the course's deliberate choice: a warning
    assert "WARNING" in capsys.readouterr().out


def test_nbgrader_autograde_and_the_formgrader_refuse_without_the_walls(monkeypatch):
    """Every route runs GradingExecute, which refuses before a student's kernel starts; the
    release check (the teacher's own solution) and a course that says "off" still run.
    """
    from attention_grader.executor import execute, grading_walls
    from nbformat.v4 import new_code_cell, new_notebook
    from traitlets.config import Config

    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setattr(grading_walls, "protections", lambda *a, **k: _down(WALLS) + WALLS[2:])

    def fresh(**config) -> execute.GradingExecute:
        monkeypatch.setattr(execute.GradingExecute, "_reported", False)
        c = Config()
        for key, value in config.items():
            c.SandboxedKernelManager[key] = value
        return execute.GradingExecute(config=c, print_protections=False)

    nb = new_notebook(cells=[new_code_cell("open('/etc/hostname').read()")])
    with pytest.raises(execute.KernelStartError, match="make sandbox-deps"):
        fresh().preprocess(nb, {})
    assert not nb.cells[0].get("outputs")  # nothing ran
    teacher = fresh()
    teacher.students_code = False
    teacher._report_protections()  # no refusal for the release check
    fresh(sandbox="off")._report_protections()  # nor for a course that switched it off
