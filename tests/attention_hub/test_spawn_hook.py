"""Each user's Jupyter config chosen at spawn (autograder/attention_hub/spawn_hook.py), without a
hub: the spawner is a stand-in with the attributes the hook reads and sets.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

from attention_hub.course import Course
from attention_hub.spawn_hook import frame_ancestors_arg, make_pre_spawn_hook, student_config_dir


def test_pre_spawn_hook_hides_instructor_tools_from_students():
    hook = make_pre_spawn_hook(config_root="/etc/jupyter", formgrader_iframe=True)

    def spawn(groups):
        user = SimpleNamespace(groups=[SimpleNamespace(name=g) for g in groups])
        spawner = SimpleNamespace(user=user, environment={"A": "1"}, args=[])
        hook(spawner)
        return spawner

    student = spawn(["nbgrader-attention-lab"])
    assert student.environment["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [
        student_config_dir("/etc/jupyter"),
        "/etc/jupyter",
    ]
    assert student.args == [] and student.environment["A"] == "1"
    teacher = spawn(["formgrade-attention-lab"])
    assert teacher.environment["JUPYTER_CONFIG_PATH"] == "/etc/jupyter"
    assert teacher.args == [frame_ancestors_arg()]


def test_pre_spawn_hook_gives_each_student_her_own_variant_seed_never_the_key(tmp_path):
    from attention_lab.variants import SEED_ENV, StudentSeed

    key = bytes(range(32))
    (tmp_path / "variant.key").write_text(key.hex() + "\n")
    course = Course("attention-lab", variant_key_file=str(tmp_path / "variant.key"))
    hook = make_pre_spawn_hook(
        config_root="/etc/jupyter", formgrader_iframe=False, courses=[course]
    )

    def spawn(name, groups):
        user = SimpleNamespace(name=name, groups=[SimpleNamespace(name=g) for g in groups])
        spawner = SimpleNamespace(user=user, environment={}, args=[])
        hook(spawner)
        return spawner.environment

    alice, bob = (spawn(n, ["nbgrader-attention-lab"]) for n in ("alice", "bob"))
    assert alice[SEED_ENV] == StudentSeed.from_key(key, "alice").to_text()
    assert bob[SEED_ENV] != alice[SEED_ENV]
    assert all(key.hex() not in v for env in (alice, bob) for v in env.values())
    assert SEED_ENV not in spawn("carol", ["nbgrader-other-course"])
    (tmp_path / "variant.key").unlink()  # before the first release: the practice numbers
    assert SEED_ENV not in spawn("alice", ["nbgrader-attention-lab"])
