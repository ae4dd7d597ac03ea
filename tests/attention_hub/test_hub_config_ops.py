"""The classroom's operations settings without a hub: roster files, limits, the idle culler
(tests/hub/test_hub_limits.py runs them on a real hub). Imports JupyterHub (the hub extra).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from attention_hub.roster import read_roster, students_csv
from attention_hub.spawner_limits import LimitedLocalProcessSpawner

from tests.support.hub_configs import HUB_DIR, load_hub_config

GOOD = "id,role,first_name,last_name,email\nteach,instructor,Ada,L,\ns01,student,Grace,H,g@x.org\n"


def test_the_shipped_config_reads_the_roster_and_sets_limits_and_culler(monkeypatch, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text(GOOD)
    cfg = load_hub_config(
        "jupyterhub_config.py", monkeypatch,
        ATTENTION_LAB_ROSTER=str(roster), ATTENTION_LAB_STUDENTS="s02",
        ATTENTION_LAB_MEM_LIMIT="1G", ATTENTION_LAB_CULL_IDLE="1800",
    )  # fmt: skip
    groups = cfg.JupyterHub.load_groups
    assert groups["nbgrader-attention-lab"]["users"] == ["s02", "s01"]
    assert groups["formgrade-attention-lab"]["users"] == ["teach"]
    assert cfg.JupyterHub.spawner_class is LimitedLocalProcessSpawner
    assert (cfg.Spawner.mem_limit, cfg.Spawner.cpu_limit) == ("1G", 1.0)
    culler = next(s for s in cfg.JupyterHub.services if s["name"] == "idle-culler")
    assert "--timeout=1800" in culler["command"]
    role = next(r for r in cfg.JupyterHub.load_roles if r["name"] == "idle-culler")
    assert set(role["scopes"]) == {"list:users", "read:users:activity", "read:servers",
                                   "delete:servers"}  # fmt: skip
    # Activity reaches the hub well within the timeout (else a working student could be culled).
    assert int(cfg.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"]) <= 1800 // 4


def test_the_several_classes_hub_gets_the_culler_and_each_class_its_roster(monkeypatch, tmp_path):
    roster = tmp_path / "roster-9a.csv"
    roster.write_text(GOOD)
    classes = json.loads((HUB_DIR / "classes.example.json").read_text())
    classes["exchange"] = str(tmp_path / "exchange")
    classes["courses"][0]["roster"] = str(roster)
    (tmp_path / "classes.json").write_text(json.dumps(classes))
    cfg = load_hub_config(
        "jupyterhub_config_multi.py", monkeypatch,
        ATTENTION_LAB_CLASSES=str(tmp_path / "classes.json"), ATTENTION_LAB_CULL_IDLE="1800",
    )  # fmt: skip
    culler = next(s for s in cfg.JupyterHub.services if s["name"] == "idle-culler")
    assert "--timeout=1800" in culler["command"]
    assert any(r["name"] == "idle-culler" for r in cfg.JupyterHub.load_roles)
    assert int(cfg.Spawner.environment["JUPYTERHUB_ACTIVITY_INTERVAL"]) <= 1800 // 4
    groups = cfg.JupyterHub.load_groups
    # the roster's people join the class that names it, and only that one
    assert groups["nbgrader-attention-lab-9a"]["users"] == ["ravi", "meera", "kabir", "s01"]
    assert "teach" in groups["formgrade-attention-lab-9a"]["users"]
    assert "s01" not in groups["nbgrader-attention-lab-9b"]["users"]
    assert "teach" not in groups["formgrade-attention-lab-9b"]["users"]
    assert {"s01", "teach"} <= set(cfg.Authenticator.allowed_users)


@pytest.mark.parametrize("name", ["jupyterhub_config.py", "jupyterhub_config_multi.py"])
def test_both_hubs_are_set_by_the_one_configure_hub(name, monkeypatch):
    """Culler, limits, origins, proxy and state folder: the same for one class or several."""
    from attention_hub import configure

    calls = []
    real = configure.configure_hub
    monkeypatch.setattr(
        configure, "configure_hub", lambda c, *a, **k: calls.append(1) or real(c, *a, **k)
    )
    cfg = load_hub_config(name, monkeypatch, ATTENTION_LAB_CULL_IDLE="600")
    assert calls == [1]
    assert any(s["name"] == "idle-culler" for s in cfg.JupyterHub.services)
    assert cfg.JupyterHub.subdomain_host == "https://hub.school.example"
    assert cfg.JupyterHub.db_url == "sqlite:///jupyterhub.sqlite"


def test_zero_turns_limits_and_culler_off(monkeypatch):
    cfg = load_hub_config(
        "jupyterhub_config.py", monkeypatch,
        ATTENTION_LAB_MEM_LIMIT="0", ATTENTION_LAB_CPU_LIMIT="0", ATTENTION_LAB_CULL_IDLE="0",
    )  # fmt: skip
    assert cfg.Spawner.mem_limit is None and cfg.Spawner.cpu_limit == 0
    assert not any(s["name"] == "idle-culler" for s in cfg.JupyterHub.get("services", []))


@pytest.mark.parametrize("name", ["jupyterhub_config.py", "jupyterhub_config_multi.py"])
def test_both_configs_ignore_user_config_and_put_each_server_on_its_own_origin(
    name, monkeypatch, capsys
):
    cfg = load_hub_config(
        name, monkeypatch, ATTENTION_LAB_SUBDOMAIN_HOST="https://hub.school.example/"
    )
    assert cfg.Spawner.disable_user_config is True
    assert cfg.JupyterHub.subdomain_host == "https://hub.school.example"
    assert "FORMGRADER_IFRAME=1 without subdomains" not in capsys.readouterr().err


@pytest.mark.parametrize("name", ["jupyterhub_config.py", "jupyterhub_config_multi.py"])
def test_a_hub_without_a_subdomain_host_refuses_to_start_and_says_what_to_set(name, monkeypatch):
    with pytest.raises(ValueError) as refused:
        load_hub_config(name, monkeypatch, ATTENTION_LAB_SUBDOMAIN_HOST="")
    message = str(refused.value)
    assert message.startswith("the hub does not start")
    for line in (
        "*.hub.school.example.   IN A",  # the wildcard DNS record
        "certbot certonly --manual --preferred-challenges dns -d hub.school.example "
        "-d '*.hub.school.example'",
        "ATTENTION_LAB_SUBDOMAIN_HOST=https://hub.school.example",
        "ATTENTION_LAB_ONE_ORIGIN=1",
    ):
        assert line in message, line


@pytest.mark.parametrize("name", ["jupyterhub_config.py", "jupyterhub_config_multi.py"])
def test_one_origin_is_kept_only_when_the_admin_names_it(name, monkeypatch):
    cfg = load_hub_config(name, monkeypatch, ATTENTION_LAB_ONE_ORIGIN="1")
    assert "subdomain_host" not in cfg.JupyterHub
    assert cfg.Spawner.disable_user_config is True


@pytest.mark.parametrize(
    "env, message",
    [
        ({"ATTENTION_LAB_ONE_ORIGIN": "yes"}, "ATTENTION_LAB_ONE_ORIGIN is 1 or unset"),
        (
            {"ATTENTION_LAB_ONE_ORIGIN": "1", "ATTENTION_LAB_SUBDOMAIN_HOST": "https://h.example"},
            "contradict each other",
        ),  # fmt: skip
        ({"ATTENTION_LAB_SUBDOMAIN_HOST": "hub.school.example"}, "is not the hub's own address"),
        ({"ATTENTION_LAB_SUBDOMAIN_HOST": "https://h.example/hub"}, "(no path)"),
    ],
)
def test_a_wrong_origin_setting_is_refused_with_its_fix(env, message):
    from attention_hub.origins import subdomain_host

    with pytest.raises(ValueError, match=re.escape(message)):
        subdomain_host(env)


def test_the_formgrader_iframe_on_one_origin_is_said_to_be_unsafe(monkeypatch, capsys):
    load_hub_config(
        "jupyterhub_config.py", monkeypatch,
        ATTENTION_LAB_FORMGRADER_IFRAME="1", ATTENTION_LAB_ONE_ORIGIN="1",
    )  # fmt: skip
    assert "FORMGRADER_IFRAME=1 without subdomains" in capsys.readouterr().err
    load_hub_config(
        "jupyterhub_config.py", monkeypatch,
        ATTENTION_LAB_FORMGRADER_IFRAME="1", ATTENTION_LAB_SUBDOMAIN_HOST="https://hub.example",
        ATTENTION_LAB_ONE_ORIGIN="",
    )  # fmt: skip
    assert "without subdomains" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "text, message",
    [
        ("name,role\nx,student\n", "needs the columns id and role"),
        ("id,role\nBad Name,student\n", "line 2: id 'Bad Name' is not a usable account name"),
        ("id,role\n../etc,student\n", "not a usable account name"),
        ("id,role\ns01,teacher\n", "line 2: role 'teacher' of s01 must be one of"),
        ("id,role\ns01,student\ns01,student\n", "line 3: s01 is listed twice"),
    ],
)
def test_a_bad_roster_is_refused_with_the_line_and_the_fix(tmp_path, text, message):
    path = tmp_path / "roster.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        read_roster(path)


def test_only_students_go_to_the_gradebook_import(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("\ufeff" + GOOD)  # spreadsheets save a byte-order mark
    roster = read_roster(path)
    assert (roster.instructors, roster.students) == (("teach",), ("s01",))
    out = students_csv(roster, tmp_path / "students.csv").read_text().splitlines()
    assert out == ["id,first_name,last_name,email", "s01,Grace,H,g@x.org"]


def test_cgroup_v2_files_are_written_as_the_kernel_expects(tmp_path):
    """The test machine has no cgroup v2 (it has v1, and test_hub_limits.py uses it): check the
    files the v2 path writes on a stand-in tree, as a v2 kernel would read them.
    """
    from attention_hub.user_cgroup import (
        HUB_GROUP,
        PARENT_NAME,
        UserCgroup,
        _own_cgroups,
        find_layout,
    )

    # The stand-in tree has this process's own v2 cgroup where find_layout looks for it.
    own = _own_cgroups(open("/proc/self/cgroup").read()).get("", "/")
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    base = tmp_path / own.lstrip("/")
    base.mkdir(parents=True, exist_ok=True)
    (base / "cgroup.controllers").write_text("cpu io memory pids\n")
    (base / "cgroup.subtree_control").write_text("")
    (base / "cgroup.procs").write_text("4242\n")
    layout = find_layout(tmp_path)
    assert layout is not None and layout.version == 2
    # The hub moved to a leaf, then handed memory, cpu and pids to its children.
    assert (base / HUB_GROUP / "cgroup.procs").read_text() == "4242"
    assert (base / "cgroup.subtree_control").read_text() == "+memory +cpu +pids"
    group = UserCgroup.create(layout, "s01", 512 * 1024**2, 1.5, 512)
    folder = base / PARENT_NAME / "s01"
    assert group.folders == (folder,)
    assert (folder.parent / "cgroup.subtree_control").read_text() == "+memory +cpu +pids"
    assert (folder / "pids.max").read_text() == "512"
    assert (folder / "memory.max").read_text() == str(512 * 1024**2)
    assert (folder / "memory.swap.max").read_text() == "0"
    assert (folder / "cpu.max").read_text() == "150000 100000"
    # the hub's leaf weighs as much as the class (one user, starting)
    assert (base / HUB_GROUP / "cpu.weight").read_text() == "100"
    with pytest.raises(ValueError, match="not usable as a cgroup folder name"):
        UserCgroup.of(layout, "../escape")


def test_cgroup_v1_groups_get_a_pids_limit(tmp_path, monkeypatch):
    """v1 (this machine): the pids hierarchy gets its own group per user with pids.max."""
    from attention_hub.user_cgroup import PARENT_NAME, UserCgroup, _own_cgroups, find_layout

    own = _own_cgroups(open("/proc/self/cgroup").read())
    for controller in ("memory", "cpu", "pids"):
        (tmp_path / controller / own.get(controller, "/").lstrip("/")).mkdir(parents=True, exist_ok=True)  # fmt: skip
    layout = find_layout(tmp_path)
    assert layout is not None and layout.version == 1 and layout.pids is not None
    group = UserCgroup.create(layout, "s01", None, None, 300)
    pids = layout.pids / "s01"
    assert pids in group.folders and (pids / "pids.max").read_text() == "300"
    assert pids.parent.name == PARENT_NAME


@pytest.mark.slow  # root's cgroups, a child process as another user
def test_an_ordinary_user_reads_nothing_of_the_users_cgroups():
    """A student read a classmate's cgroup.procs to learn the instant their server started."""
    import os
    import secrets
    import subprocess
    import sys

    from attention_hub.user_cgroup import UserCgroup, find_layout

    layout = find_layout()
    if os.geteuid() != 0 or layout is None:
        pytest.skip("needs root and a writable cgroup (as the hub has)")
    group = UserCgroup.create(layout, f"al_probe_{secrets.token_hex(3)}", None, None, None)
    try:
        files = [str(f / "cgroup.procs") for f in group.folders]
        parents = sorted({str(f.parent) for f in group.folders})
        probe = (
            "import json, os, sys\n"
            "os.setgid(65534); os.setuid(65534)\n"  # nobody: an ordinary user
            "out = {}\n"
            "for path in sys.argv[1:]:\n"
            "    try:\n"
            "        out[path] = os.listdir(path) if os.path.isdir(path) else open(path).read()\n"
            "    except PermissionError:\n"
            "        out[path] = 'refused'\n"
            "print(json.dumps(out))\n"
        )
        done = subprocess.run([sys.executable, "-c", probe, *parents, *files],
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == dict.fromkeys([*parents, *files], "refused")
        assert group.pids() == []  # the hub (root) still reads them
    finally:
        group.remove()


@pytest.mark.slow  # root's mount namespace, in a child process
def test_private_tmp_is_a_capped_tmpfs_of_its_own(tmp_path):
    """In a child (as root): every folder all may write becomes a fresh capped tmpfs, unseen outside."""
    import os
    import subprocess
    import sys

    from attention_hub.server_namespace import private_tmp_works

    if os.geteuid() != 0:
        pytest.skip("mount namespaces need root")
    assert private_tmp_works() == ""
    from attention_hub.server_namespace import PRIVATE_MOUNTS

    assert {"/tmp", "/var/tmp", "/run/lock", "/dev/shm"} <= set(PRIVATE_MOUNTS)
    code = (
        "import json, os, sys; sys.path.insert(0, sys.argv[1])\n"
        "from attention_hub import server_namespace\n"
        "server_namespace.private_tmp(8 << 20)\n"
        "out = {}\n"
        "for d in server_namespace.PRIVATE_MOUNTS:\n"
        "    open(d + '/al-probe', 'w').write('x')\n"
        "    st = os.statvfs(d); out[d] = [st.f_blocks * st.f_frsize, os.listdir(d)]\n"
        "print(json.dumps(out))\n"
    )
    hub_dir = str(Path(__import__("attention_hub").__file__).parents[1])  # autograder/
    out = json.loads(subprocess.run([sys.executable, "-c", code, hub_dir], capture_output=True,
                                    text=True, timeout=60, check=True).stdout)  # fmt: skip
    assert out == {d: [8 << 20, ["al-probe"]] for d in PRIVATE_MOUNTS}  # fresh and capped
    assert not any(os.path.exists(f"{d}/al-probe") for d in PRIVATE_MOUNTS)


@pytest.mark.slow  # root's mount namespace, in a child process
def test_a_course_installed_under_tmp_stays_visible_in_the_private_tmp(tmp_path):
    """A course under /tmp (mktemp -d, a CI clone): its folders are bound into the fresh /tmp.

    The rest of the machine's /tmp stays hidden and what the server writes there stays its own.
    """
    import os
    import subprocess
    import sys
    import tempfile

    if os.geteuid() != 0:
        pytest.skip("mount namespaces need root")
    course = Path(tempfile.mkdtemp(prefix="al-course-", dir="/tmp"))
    other = Path(tempfile.mkdtemp(prefix="al-other-", dir="/tmp"))
    link = Path(tempfile.mkdtemp(prefix="al-link-", dir="/tmp")) / "venv"
    try:
        (course / "venv" / "bin").mkdir(parents=True)
        (course / "venv" / "bin" / "tool").write_text("env")
        (other / "secret").write_text("classmate")
        link.symlink_to(course / "venv")
        from attention_hub.server_namespace import kept_paths

        # outermost only; a symlink is kept at its own path and at its target's
        assert kept_paths([str(course / "venv"), str(course), "/srv/x", str(link)]) == tuple(
            sorted([str(course), str(link)])
        )
        keep = kept_paths([str(course), str(link)])
        code = (
            "import json, os, sys; sys.path.insert(0, sys.argv[1])\n"
            "from attention_hub import server_namespace\n"
            f"server_namespace.private_tmp(8 << 20, {keep!r})\n"
            "open('/tmp/al-probe', 'w').write('x')\n"
            f"print(json.dumps([open({str(course / 'venv/bin/tool')!r}).read(),"
            f" open({str(link / 'bin/tool')!r}).read(), os.path.exists({str(other)!r}),"
            f" sorted(os.listdir('/tmp')), oct(os.stat({str(link.parent)!r}).st_mode & 0o777)]))\n"
        )
        hub_dir = str(Path(__import__("attention_hub").__file__).parents[1])  # autograder/
        done = subprocess.run([sys.executable, "-c", code, hub_dir], capture_output=True,
                              text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0, done.stderr
        seen = json.loads(done.stdout)
        tops = sorted({course.name, link.parent.name, "al-probe"})
        # the folder leading to the link is 0700 on the machine (mkdtemp): so it stays
        assert seen == ["env", "env", False, tops, "0o700"], seen
        assert not os.path.exists("/tmp/al-probe")  # its own /tmp: the machine's is untouched
    finally:
        for folder in (course, other, link.parent):
            shutil.rmtree(folder, ignore_errors=True)


def test_the_spawner_keeps_its_env_checkout_exchange_and_config_visible(tmp_path):
    """What a server needs from /tmp: the env of Spawner.cmd, its base Python, the checkout."""
    import tempfile

    from attention_hub.server_namespace import COURSE_CHECKOUT, PRIVATE_MOUNTS, needed_paths

    root = Path(tempfile.mkdtemp(prefix="al-install-", dir="/tmp"))
    try:
        venv, base = root / "course" / ".venv", root / "python"
        (venv / "bin").mkdir(parents=True)
        (base / "bin").mkdir(parents=True)
        (venv / "pyvenv.cfg").write_text(f"home = {base / 'bin'}\nversion = 3.11\n")
        (root / "exchange").mkdir()
        cmd = [str(venv / "bin" / "python"), "-s", "server_launch.py"]  # Spawner.cmd
        environment = {"ATTENTION_LAB_EXCHANGE": str(root / "exchange"),
                       "JUPYTER_CONFIG_PATH": f"/etc/jupyter:{root / 'exchange'}"}  # fmt: skip
        kept = needed_paths(cmd, environment)
        assert str(root / "course") not in kept  # the env, not the folder above it
        assert {str(venv), str(base), str(root / "exchange")} <= set(kept), kept
        private = tuple(m + "/" for m in PRIVATE_MOUNTS)
        assert (COURSE_CHECKOUT in kept) == COURSE_CHECKOUT.startswith(private), (
            kept
        )  # a clone under /tmp
        assert all(k.startswith(private) for k in kept), kept  # nothing else is bound in
    finally:
        shutil.rmtree(root, ignore_errors=True)
