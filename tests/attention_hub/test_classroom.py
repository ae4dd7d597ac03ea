"""The classroom's configuration, without a hub: autograder/attention_hub/classroom.py,
autograder/jupyterhub/install.py and the two jupyterhub_config files as JupyterHub would load
them (tests/hub/test_hub.py runs a hub).
"""

from __future__ import annotations

import json
import os
import stat
from types import SimpleNamespace

import install  # autograder/jupyterhub/install.py (on pytest's pythonpath)
import pytest
from attention_hub import classroom
from attention_hub.course import Course
from attention_hub.spawn_hook import make_pre_spawn_hook
from attention_hub.variant_keys import ensure_variant_keys
from traitlets.config.loader import PyFileConfigLoader

from tests.support.hub_configs import HUB_DIR, exchange_with_courses, load_hub_config


def test_one_class_config_sets_groups_kernel_and_exchange(monkeypatch, tmp_path):
    cfg = load_hub_config(
        "jupyterhub_config.py",
        monkeypatch,
        ATTENTION_LAB_INSTRUCTORS="teach",
        ATTENTION_LAB_STUDENTS="ravi, meera",
        ATTENTION_LAB_EXCHANGE=str(tmp_path / "exchange"),
        ATTENTION_LAB_VENV="/opt/attention-lab/venv",
    )
    assert cfg.JupyterHub.load_groups == {
        "formgrade-attention-lab": {"users": ["teach"]},
        "nbgrader-attention-lab": {"users": ["ravi", "meera"]},
    }
    assert cfg.Authenticator.allowed_users == {"teach", "ravi", "meera"}
    # The course env runs every server, hence every kernel; without user site-packages, on the
    # socket the hub holds for it (server_launch.py)
    from attention_hub.classroom import SERVER_LAUNCH

    assert cfg.Spawner.cmd == ["/opt/attention-lab/venv/bin/python", "-s", SERVER_LAUNCH]
    assert cfg.Spawner.environment["PATH"].startswith("/opt/attention-lab/venv/bin:")
    assert cfg.Spawner.environment["ATTENTION_LAB_EXCHANGE"] == str(tmp_path / "exchange")
    # One class: the formgrader is in the instructor's server; the only service is the culler,
    # run by the course env.
    assert [s["name"] for s in cfg.JupyterHub.services] == ["idle-culler"]
    assert cfg.JupyterHub.services[0]["command"][0] == "/opt/attention-lab/venv/bin/python"


def test_several_classes_config_runs_one_formgrader_service_per_class(monkeypatch):
    cfg = load_hub_config("jupyterhub_config_multi.py", monkeypatch)
    example = json.loads((HUB_DIR / "classes.example.json").read_text())
    ids = [course["course_id"] for course in example["courses"]]
    services = {service["name"]: service for service in cfg.JupyterHub.services}
    assert sorted(services) == sorted([*ids, "idle-culler"])  # the culler as on one class
    for course in example["courses"]:
        service = services[course["course_id"]]
        assert service["user"] == course["grader"]
        assert service["url"] == f"http://127.0.0.1:{course['service_port']}"
        assert service["environment"]["JUPYTERHUB_DEFAULT_URL"] == "/formgrader"
        groups = cfg.JupyterHub.load_groups
        assert course["grader"] in groups[f"formgrade-{course['course_id']}"]["users"]
        roles = {role["name"]: role for role in cfg.JupyterHub.load_roles}
        staff = roles[f"formgrade-{course['course_id']}"]
        assert f"access:services!service={course['course_id']}" in staff["scopes"]
        assert staff["services"] == [course["course_id"]]


@pytest.mark.parametrize("name", ["jupyterhub_config.py", "jupyterhub_config_multi.py"])
def test_both_configs_limit_each_user_from_the_same_settings(name, monkeypatch):
    """The several-classes hub had no memory or CPU limit at all (only pids, /tmp and disks)."""
    from attention_hub.spawner_limits import LimitedLocalProcessSpawner

    default = load_hub_config(name, monkeypatch)
    assert default.JupyterHub.spawner_class is LimitedLocalProcessSpawner
    assert (default.Spawner.mem_limit, default.Spawner.cpu_limit) == ("1G", 1.0)
    assert default.LimitedLocalProcessSpawner.staff_mem_limit == "2G"
    assert default.LimitedLocalProcessSpawner.disk_size == "2G"
    assert all(p.endswith("/inbound") for p in default.LimitedLocalProcessSpawner.disk_inbound)
    chosen = load_hub_config(name, monkeypatch, ATTENTION_LAB_MEM_LIMIT="512M",
                             ATTENTION_LAB_CPU_LIMIT="0.5", ATTENTION_LAB_DISK_SIZE="0")  # fmt: skip
    assert (chosen.Spawner.mem_limit, chosen.Spawner.cpu_limit) == ("512M", 0.5)
    assert chosen.LimitedLocalProcessSpawner.disk_size is None


def test_the_hub_makes_a_missing_variant_key_before_any_server(monkeypatch, tmp_path):
    """A server started before the first release got no seed: its student worked on the
    practice numbers and was marked wrong. The hub makes the key as it starts, 0600, the
    course folder's owner's; a key already there stays as it is.
    """
    from attention_lab.variants import SEED_ENV

    course_dir = tmp_path / "course"
    course_dir.mkdir()
    key = course_dir / "variant.key"
    load_hub_config("jupyterhub_config.py", monkeypatch, ATTENTION_LAB_STUDENTS="alice",
                    ATTENTION_LAB_VARIANT_KEY=str(key))  # fmt: skip
    text = key.read_text()
    assert len(bytes.fromhex(text.strip())) == 32
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert key.stat().st_uid == course_dir.stat().st_uid
    hook = make_pre_spawn_hook(
        config_root="/etc/jupyter", formgrader_iframe=False,
        courses=[Course("attention-lab", variant_key_file=str(key))],
    )  # fmt: skip
    user = SimpleNamespace(name="alice", groups=[SimpleNamespace(name="nbgrader-attention-lab")])
    spawner = SimpleNamespace(user=user, environment={}, args=[])
    hook(spawner)
    assert spawner.environment[SEED_ENV].startswith("alice:")
    assert ensure_variant_keys([Course("x", variant_key_file=str(key))]) == []
    assert key.read_text() == text  # never a new key over the old: every number would change
    with pytest.raises(ValueError, match="in no folder yet"):
        ensure_variant_keys([Course("x", variant_key_file=str(tmp_path / "no" / "k"))])


@pytest.mark.parametrize("name", ["jupyterhub_config.py", "jupyterhub_config_multi.py"])
def test_the_hub_refuses_a_working_folder_others_can_read(name, monkeypatch, tmp_path):
    """The hub's database (every user's tokens), cookie secret and log live where it starts."""
    public = tmp_path / "public"
    public.mkdir()
    public.chmod(0o755)
    load_hub_config(name, monkeypatch)  # a private folder: loads
    monkeypatch.chdir(public)
    exchange = exchange_with_courses(tmp_path / "x", ["attention-lab"])
    monkeypatch.setenv("ATTENTION_LAB_EXCHANGE", str(exchange))
    with pytest.raises(ValueError, match="does not start in .*mode 755.*install -d -m 700"):
        PyFileConfigLoader("jupyterhub_config.py", path=str(HUB_DIR)).load_config()


@pytest.mark.slow  # root's, and install.py's check runs as another account
@pytest.mark.skipif(os.geteuid() != 0, reason="handing a folder to another account needs root")
def test_a_course_folder_made_by_someone_else_is_refused_everywhere(tmp_path, monkeypatch, capsys):
    """Attacker mallory (here: nobody) made the course folder before the install: install,
    check and the hub's start refuse it, naming the owner and the fix; nothing is taken over.
    """
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)
    taken = exchange / "attention-lab"
    taken.mkdir()
    os.chown(taken, 65534, 65534)
    me = __import__("pwd").getpwuid(os.geteuid()).pw_name
    with pytest.raises(ValueError, match="owned by nobody, not by an instructor"):
        install.ensure_exchange(str(exchange), ["attention-lab"], "daemon")
    assert taken.stat().st_uid == 65534  # not taken over silently
    code = install.main(["check", "--exchange", str(exchange), "--course", "attention-lab",
                         "--owner", "daemon"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1 and "owned by nobody" in out and "mv " in out
    with pytest.raises(ValueError, match="the hub does not start: .*owned by nobody"):
        load_hub_config("jupyterhub_config.py", monkeypatch, ATTENTION_LAB_EXCHANGE=str(exchange),
                        ATTENTION_LAB_INSTRUCTORS="daemon")  # fmt: skip
    # moved aside, the install makes the instructor's own
    taken.rename(exchange / "attention-lab.suspect")
    install.ensure_exchange(str(exchange), ["attention-lab"], me)
    assert install.main(["check", "--exchange", str(exchange), "--course", "attention-lab",
                         "--owner", me]) in (0, 1)  # fmt: skip
    assert "owned by their owners" in capsys.readouterr().out


def test_the_system_step_needs_an_owner_on_its_command_line(tmp_path):
    with pytest.raises(SystemExit):  # argparse: --owner is required
        install.main(["system", "--exchange", str(tmp_path / "x"), "--config-dir",
                      str(tmp_path / "etc"), "--course", "attention-lab"])  # fmt: skip


#: what classroom.py exported before it was split by job (issue 43): deployed configs import these
OLD_NAMES = (
    "ensure_variant_keys",
    "refuse_foreign_course_folders",
    "refuse_public_state_folder",
    "FORMGRADE_PREFIX",
    "STUDENT_PREFIX",
    "Course",
    "formgrade_group",
    "student_group",
    "hub_groups",
    "hub_roles",
    "server_token_scopes",
    "formgrader_services",
    "student_config_dir",
    "instructor_config_dir",
    "frame_ancestors_arg",
    "make_pre_spawn_hook",
    "configure_classroom",
    "names_from_env",
    "variant_seed",
    "refuse_shared_keys",
    "SERVER_LAUNCH",
)


@pytest.mark.parametrize("name", OLD_NAMES)
def test_the_names_configs_imported_from_classroom_still_work(name):
    """A deployed hub's own config imports ``Course``, ``hub_groups`` ... from classroom, where
    they were before the module was split by job: each is still there, the one object.
    """
    from attention_hub import course, hub_access, spawn_hook, variant_keys

    assert name in classroom.__all__
    homes = [classroom, course, hub_access, spawn_hook, variant_keys]
    found = {id(vars(module)[name]) for module in homes if name in vars(module)}
    assert len(found) == 1, f"{name}: {len(found)} different objects"


#: what install.py defined before its steps moved into attention_hub (issue 43): admins' scripts
#: and the hub tests import them from the command's module
INSTALL_NAMES = (
    "EXCHANGE_ROOT_MODE",
    "COURSE_DIR_MODES",
    "course_owners",
    "STUDENT_DISABLED_LAB_PLUGINS",
    "STUDENT_DISABLED_SERVER_EXTENSIONS",
    "render_system_config",
    "ensure_exchange",
    "write_role_configs",
    "install_system",
    "install_course",
    "untraversable_dirs",
    "check_venv",
    "create_accounts",
    "import_students",
    "main",
)


@pytest.mark.parametrize("name", INSTALL_NAMES)
def test_the_install_command_keeps_its_names(name):
    assert name in install.__all__
    value = getattr(install, name)  # AttributeError: the name is gone
    assert callable(value) or name.isupper()
