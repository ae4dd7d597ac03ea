"""The classroom's configuration, without a hub: autograder/jupyterhub/{classroom,install}.py and
the two jupyterhub_config files as JupyterHub would load them (tests/hub/test_hub.py runs a hub).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from types import SimpleNamespace

import install  # autograder/jupyterhub/install.py (on pytest's pythonpath)
import pytest
from attention_hub import classroom
from attention_hub.classroom import Course
from traitlets.config import Config
from traitlets.config.loader import PyFileConfigLoader

HUB_DIR = Path(__file__).resolve().parents[2] / "autograder" / "jupyterhub"


def exchange_with_courses(root: Path, course_ids) -> Path:
    """An exchange whose course folders are this test's own (root, as install.py makes them)."""
    me = __import__("pwd").getpwuid(os.geteuid()).pw_name
    install.ensure_exchange(str(root), list(course_ids), me)
    return root


def load_hub_config(name: str, monkeypatch, **env) -> Config:
    """A shipped hub config as JupyterHub loads it, over an exchange made as install.py makes it
    (the config refuses to load without one).
    """
    import atexit
    import shutil
    import tempfile

    if env.get("ATTENTION_LAB_ONE_ORIGIN") != "1":  # as the docs say: a subdomain per user
        env.setdefault("ATTENTION_LAB_SUBDOMAIN_HOST", "https://hub.school.example")
    tmp = Path(tempfile.mkdtemp(prefix="hubcfg-"))
    atexit.register(shutil.rmtree, tmp, True)
    if name == "jupyterhub_config_multi.py" and "ATTENTION_LAB_CLASSES" not in env:
        classes = json.loads((HUB_DIR / "classes.example.json").read_text())
        classes["exchange"] = str(tmp / "exchange")
        env["ATTENTION_LAB_CLASSES"] = str(tmp / "classes.json")
        Path(env["ATTENTION_LAB_CLASSES"]).write_text(json.dumps(classes))
    if name == "jupyterhub_config_multi.py":
        classes = json.loads(Path(env["ATTENTION_LAB_CLASSES"]).read_text())
        exchange_with_courses(Path(classes["exchange"]), [c["course_id"] for c in classes["courses"]])  # fmt: skip
    else:
        env.setdefault("ATTENTION_LAB_EXCHANGE", str(tmp / "exchange"))
        if not Path(env["ATTENTION_LAB_EXCHANGE"], "attention-lab").exists():
            exchange_with_courses(Path(env["ATTENTION_LAB_EXCHANGE"]), ["attention-lab"])
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    state = tmp / "hub-state"
    state.mkdir(mode=0o700)  # the hub starts only in a private folder
    monkeypatch.chdir(state)
    return PyFileConfigLoader(name, path=str(HUB_DIR)).load_config()


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


def test_roles_give_instructors_their_own_class_list_only():
    courses = [Course("a-9", instructors=("t",), students=("s",))]
    staff, students = classroom.hub_roles(courses)
    assert staff["groups"] == ["formgrade-a-9"] and students["groups"] == ["nbgrader-a-9"]
    assert "groups!group=nbgrader-a-9" in staff["scopes"]
    assert not any(scope.startswith("groups") for scope in students["scopes"])
    # The server token may carry the class-list scope; JupyterHub grants it to holders only.
    assert "groups!group=nbgrader-a-9" in classroom.server_token_scopes(courses)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"course_id": "Attention Lab"}, "lower case"),
        ({"course_id": "x", "instructors": ("a",), "students": ("a",)}, "both as instructor"),
        ({"course_id": "x", "grader": "grader-x"}, "service_port"),
    ],
)
def test_bad_courses_are_refused_with_a_reason(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Course(**kwargs)


def test_pre_spawn_hook_hides_instructor_tools_from_students():
    hook = classroom.make_pre_spawn_hook(config_root="/etc/jupyter", formgrader_iframe=True)

    def spawn(groups):
        user = SimpleNamespace(groups=[SimpleNamespace(name=g) for g in groups])
        spawner = SimpleNamespace(user=user, environment={"A": "1"}, args=[])
        hook(spawner)
        return spawner

    student = spawn(["nbgrader-attention-lab"])
    assert student.environment["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [
        classroom.student_config_dir("/etc/jupyter"),
        "/etc/jupyter",
    ]
    assert student.args == [] and student.environment["A"] == "1"
    teacher = spawn(["formgrade-attention-lab"])
    assert teacher.environment["JUPYTER_CONFIG_PATH"] == "/etc/jupyter"
    assert teacher.args == [classroom.frame_ancestors_arg()]


def test_pre_spawn_hook_gives_each_student_her_own_variant_seed_never_the_key(tmp_path):
    from attention_lab.variants import SEED_ENV, StudentSeed

    key = bytes(range(32))
    (tmp_path / "variant.key").write_text(key.hex() + "\n")
    course = Course("attention-lab", variant_key_file=str(tmp_path / "variant.key"))
    hook = classroom.make_pre_spawn_hook(
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
    hook = classroom.make_pre_spawn_hook(
        config_root="/etc/jupyter", formgrader_iframe=False,
        courses=[Course("attention-lab", variant_key_file=str(key))],
    )  # fmt: skip
    user = SimpleNamespace(name="alice", groups=[SimpleNamespace(name="nbgrader-attention-lab")])
    spawner = SimpleNamespace(user=user, environment={}, args=[])
    hook(spawner)
    assert spawner.environment[SEED_ENV].startswith("alice:")
    assert classroom.ensure_variant_keys([Course("x", variant_key_file=str(key))]) == []
    assert key.read_text() == text  # never a new key over the old: every number would change
    with pytest.raises(ValueError, match="in no folder yet"):
        classroom.ensure_variant_keys([Course("x", variant_key_file=str(tmp_path / "no" / "k"))])


def test_system_install_makes_the_exchange_and_a_loadable_config(tmp_path):
    exchange, config_dir = tmp_path / "exchange", tmp_path / "etc"
    me = __import__("pwd").getpwuid(os.geteuid()).pw_name
    written = install.install_system(str(exchange), str(config_dir), ["attention-lab"], me)
    assert stat.S_IMODE(exchange.stat().st_mode) == 0o1777
    assert (exchange / "attention-lab" / "inbound").is_dir()  # made now, not at first release
    cfg = PyFileConfigLoader("nbgrader_config.py", path=str(written.parent)).load_config()
    assert cfg.Exchange.root == str(exchange)
    assert cfg.CourseDirectory.course_id == "attention-lab"
    assert cfg.Exchange.path_includes_course is False
    assert cfg.Authenticator.plugin_class.__name__ == "JupyterHubAuthPlugin"
    student = json.loads(
        (
            config_dir
            / "attention-lab"
            / "student"
            / "jupyter_server_config.d"
            / "attention-lab-student.json"
        ).read_text()
    )
    assert (
        student["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"]
        is False
    )


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


def test_several_courses_put_fetched_copies_under_the_course(tmp_path):
    text = install.render_system_config(str(tmp_path), ["a-9", "a-10"])
    assert "c.Exchange.path_includes_course = True" in text
    assert "c.CourseDirectory.course_id" not in text.replace("# (several", "")
    with pytest.raises(ValueError, match="absolute"):
        install.render_system_config("exchange", ["a-9"])


def test_course_folders_get_nbgraders_modes(tmp_path):
    owner = __import__("pwd").getpwuid(os.getuid()).pw_name
    install.ensure_exchange(str(tmp_path / "x"), ["attention-lab"], owner=owner)
    course = tmp_path / "x" / "attention-lab"
    modes = {sub: stat.S_IMODE((course / sub).stat().st_mode) for sub in install.COURSE_DIR_MODES}
    # inbound: students may write and enter but not list (nbgrader's 2733 with setgid), and
    # sticky: nobody renames or deletes a classmate's submission
    assert modes == {"": 0o755, "outbound": 0o755, "inbound": 0o3733, "feedback": 0o711}


def test_course_folders_need_an_owner_at_install(tmp_path):
    with pytest.raises(ValueError, match="--owner <instructor>"):
        install.ensure_exchange(str(tmp_path / "x"), ["attention-lab"], None)
    with pytest.raises(SystemExit):  # argparse: --owner is required
        install.main(["system", "--exchange", str(tmp_path / "x"), "--config-dir",
                      str(tmp_path / "etc"), "--course", "attention-lab"])  # fmt: skip
    # several classes: one owner per course, or one for all
    owners = install.course_owners(["a", "b"], ["a=ann", "bob"])
    assert owners == {"a": "ann", "b": "bob"}


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


def test_untraversable_dirs_names_the_blocking_folder(tmp_path):
    private = tmp_path / "private"
    (private / "env" / "bin").mkdir(parents=True)
    target = private / "env" / "bin" / "python"
    target.write_text("")
    os.chmod(tmp_path, 0o755)
    os.chmod(private, 0o700)
    assert str(private) in install.untraversable_dirs(str(target))
    os.chmod(private, 0o711)
    assert str(private) not in install.untraversable_dirs(str(target))
