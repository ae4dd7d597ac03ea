"""The README's two commands: `make lab` serves the lessons, set-up is idempotent, `make help` lists
every target by audience in the order of use, and every `make` command the docs show exists.
"""

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def make(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True, text=True, **kw
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_help_lists_the_readme_targets():
    out = make("help").stdout
    for target in (
        "lab",
        "test",
        "setup",
        "lint",
        "bench",
        "clean",
        "system-deps",
        "check",
        "html",
    ):
        assert re.search(rf"make {target}\s", out), f"`make help` does not list {target}"


HELP_GROUPS = ["Students", "Teachers", "Hub admins", "Maintainers"]
# A term, as docs/teachers.md walks through it.
TERM = ["release", "collect", "grade", "formgrader", "feedback", "grades", "report", "gain"]


def _help_groups() -> dict[str, list[str]]:
    """`make help` read back: each audience's heading and its targets, in the printed order."""
    groups: dict[str, list[str]] = {}
    for line in make("help").stdout.splitlines():
        if line.startswith("  make "):
            groups[list(groups)[-1]].append(line.split()[1])
        else:
            groups[line] = []  # an audience's heading
    return groups


def test_help_groups_every_target_by_audience():
    groups = _help_groups()
    assert list(groups) == HELP_GROUPS  # every comment names one of them, in this order
    makefiles = [ROOT / "Makefile", *sorted((ROOT / "make").glob("*.mk"))]
    commented = {
        m[1] for f in makefiles for m in re.finditer(r"^([a-zA-Z_-]+):.*## ", f.read_text(), re.M)
    }
    listed = [t for targets in groups.values() for t in targets]
    assert sorted(listed) == sorted(commented)  # each once
    assert groups["Students"] == ["setup", "lab", "html", "check"]
    assert {"hub-install", "hub-test", "setup-hub"} <= set(groups["Hub admins"])


def test_help_lists_the_teachers_term_in_the_order_it_is_used():
    teachers = _help_groups()["Teachers"]
    assert [t for t in teachers if t in TERM] == TERM
    start = teachers.index("release")
    assert teachers[start : start + len(TERM)] == TERM  # one block, nothing in between
    assert teachers.index("reset-course") > teachers.index("gain")  # the end of a term


def make_targets() -> set[str]:
    """Every target make knows here, from its database (``make -pRrq :`` prints it, runs none)."""
    db = make("-pRrq", ":").stdout
    return set(re.findall(r"^([a-zA-Z0-9_-]+):", db, re.M))


def make_commands(markdown: str) -> list[list[str]]:
    """The targets of each `make ...` command in a Markdown text's code (blocks and spans)."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", markdown, re.S | re.M)
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    commands = []
    for code in [*blocks, *re.findall(r"`([^`\n]+)`", prose)]:
        for line in code.splitlines():
            for m in re.finditer(r"(?:^|[\s;&|(])make\s+(.*)", line):
                try:
                    words = shlex.split(m[1], comments=True)
                except ValueError:  # a code span that cuts a quoted value in two
                    words = m[1].split()
                targets = []
                for word in words:
                    if re.fullmatch(r"[A-Z_]+=.*", word):  # a variable: DUE="...", A=x
                        continue
                    if not re.fullmatch(r"[a-z][a-z0-9-]*", word):
                        break
                    targets.append(word)
                commands.append(targets)
    return commands


def test_make_commands_are_read_from_code_not_prose():
    text = (
        'To make sure: `make release A=x DUE="2026-12-07 17:00 Asia/Kolkata"` then\n'
        "```bash\nCI=true make lint   # check only\nmake setup hub-deps\n```\n"
    )
    assert make_commands(text) == [["lint"], ["setup", "hub-deps"], ["release"]]


def test_every_make_command_in_the_docs_is_a_real_target():
    known = make_targets()
    assert {"release", "setup-grader", "hub-install", "html"} <= known
    docs = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
    used, unknown = set(), []
    for doc in docs:
        for targets in make_commands(doc.read_text(encoding="utf-8")):
            used |= set(targets)
            unknown += [f"{doc.name}: make {t}" for t in targets if t not in known]
    assert unknown == []
    assert {"lab", "test", "release", "gain", "check", "hub-test", "reset-course"} <= used


def test_setup_is_idempotent_once_installed():
    # -q: exit 0 when the target is up to date, i.e. a second `make setup` would install nothing
    assert make("-q", "setup").returncode == 0, "make setup would re-install with unchanged pins"


def test_setup_reinstalls_from_the_lock_when_the_pins_change(tmp_path):
    # ask make what it would do if the lock (or the pins) were newer than the install stamp
    for changed in ("requirements-lock.txt", "requirements.txt"):
        dry = make("-n", "setup", "-W", changed).stdout
        assert "pip install" in dry and "-c requirements-lock.txt -e ." in dry, dry


def _installs(*target: str) -> str:
    """The pip commands `make <target>` runs in a venv where nothing is installed yet."""
    dry = make("-n", "-B", *target, "VENV=/nonexistent-venv").stdout
    return "\n".join(line for line in dry.splitlines() if "pip install" in line)


def test_every_install_says_what_it_does_and_how_long_before_pip_starts():
    """The first `make lab` was 2+ minutes of silent pip (issue 39): each install step first
    says what it installs and roughly how long it takes.
    """
    dry = make("-n", "-B", "lab", "setup-grader", "VENV=/nonexistent-venv").stdout.splitlines()
    pips = [i for i, line in enumerate(dry) if "pip install" in line]
    assert len(pips) == 2, dry
    for i in pips:
        said = dry[i - 1]
        assert said.startswith("echo ") and "minute" in said, (said, dry[i])
    assert "grader" in dry[pips[1] - 1]


def test_make_lab_installs_the_students_packages_only():
    lab = _installs("lab")
    assert "-c requirements-lock.txt -e ." in lab and "[" not in lab, lab


@pytest.mark.parametrize(
    ("target", "extras"),
    [
        ("test", {"grader", "hub", "test", "postgres"}),  # the PostgreSQL gradebook test
        ("lint", {"grader", "hub", "test", "postgres"}),  # mypy reads the grader and the hub
        ("html", set()),  # a students' target: the site builder needs only their packages
        ("check", {"grader"}),
        ("grades", {"grader"}),
        ("hub-test", {"grader", "hub", "test"}),
        ("setup-postgres", {"postgres"}),
    ],
)
def test_each_target_adds_the_extras_it_needs_from_the_lock(target, extras):
    installs = _installs(target, "A=x").splitlines()
    assert all("-c requirements-lock.txt" in line for line in installs), installs
    named = re.findall(r"-e '\.\[([\w,]+)\]'", "\n".join(installs))
    assert {extra for group in named for extra in group.split(",")} == extras


@pytest.mark.parametrize("target", ["test", "test-fast", "lint"])
def test_the_maintainers_targets_install_every_extra_in_one_pip_run(target):
    """Each pip run resolves the lock again and rebuilds the editable package: the students'
    packages, then every extra at once (a run per extra made `make test` 10 s longer).
    """
    installs = _installs(target).splitlines()
    assert len(installs) == 2, installs
    assert installs[0].endswith("-e .")
    assert installs[1].endswith("-e '.[grader,hub,test,postgres]'")


@pytest.mark.slow
def test_make_lab_serves_the_lessons_headless():
    port = free_port()
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS=--no-browser --port={port}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    url, lines = None, []
    try:
        deadline = time.monotonic() + 90
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            lines.append(line)
            match = re.search(rf"(http://(?:127\.0\.0\.1|localhost):{port}/lab\?token=\w+)", line)
            url = match and match[1]
        assert url, "make lab printed no URL:\n" + "".join(lines[-20:])
        page = None
        while page is None and time.monotonic() < deadline:  # printed URL may precede listening
            try:
                page = urllib.request.urlopen(url, timeout=30)
            except urllib.error.URLError:
                time.sleep(0.2)
        html = page.read() if page is not None else b""
        assert page is not None and page.status == 200 and b"JupyterLab" in html
        # the student's JupyterLab: no news pop-up, none of nbgrader's teacher parts
        config = json.loads(
            re.search(rb'id="jupyter-config-data"[^>]*>(.*?)</script>', html, re.S)[1]
        )
        assert {
            "@jupyter/nbgrader:create-assignment",
            "@jupyter/nbgrader:formgrader",
            "@jupyter/nbgrader:course-list",
        } <= set(config["disabledExtensions"])
        assert not {
            "@jupyter/nbgrader:assignment-list",
            "@jupyter/nbgrader:validate-assignment",
        } & set(config["disabledExtensions"])
        token = url.rsplit("=", 1)[1]
        news = f"http://127.0.0.1:{port}/lab/api/settings/@jupyterlab/apputils-extension:notification?token={token}"
        with urllib.request.urlopen(news, timeout=30) as answer:
            assert json.load(answer)["schema"]["properties"]["fetchNews"]["default"] == "false"
        api = f"http://127.0.0.1:{port}/api/contents?token={token}"
        with urllib.request.urlopen(api, timeout=30) as listing:
            names = {item["name"] for item in json.load(listing)["content"]}
        # the student's copies of the lessons (work/, git-ignored) and the fetched assignments
        lessons = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
        assert lessons <= names and names - lessons <= {"assignments"} | {
            n for n in names if "(course update" in n
        }
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


CLASS_FILES = [
    "submitted/ravi/intro_attention/intro_attention.ipynb",
    "autograded/ravi/intro_attention/intro_attention.ipynb",
    "feedback/ravi/intro_attention/intro_attention.html",
    "quarantine/ravi/intro_attention/flags.json",
    "exchange/attention-lab/inbound/ravi+intro_attention+x/intro_attention.ipynb",
    "reports/intro_attention/index.html",
    "release/intro_attention/intro_attention.ipynb",
    "gradebook.db",
    "grades.csv",
    "grades-canvas.csv",
    "roster.csv",
    "submission_history/intro_attention.csv",
]


def _class_folder(tmp_path: Path) -> Path:
    """A copy of the Makefile next to a graded class's files (and some build output)."""
    tmp_path.mkdir(exist_ok=True)
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copytree(ROOT / "make", tmp_path / "make")
    for rel in [*CLASS_FILES, "build/html/index.html", "attention_lab/__pycache__/x.pyc"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel)
    return tmp_path


def _make_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "-s", "-C", str(folder), *args], capture_output=True, text=True)


def test_clean_removes_build_output_and_keeps_every_file_of_the_class(tmp_path):
    folder = _class_folder(tmp_path)
    assert _make_in(folder, "clean").returncode == 0
    assert not (folder / "build").exists() and not (folder / "attention_lab/__pycache__").exists()
    for rel in CLASS_FILES:
        assert (folder / rel).read_text() == rel, f"make clean removed {rel}"


def test_every_file_of_the_class_is_kept_out_of_git():
    """Names, scores and submissions must never be committed with the course by accident."""
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "check-ignore", "--no-index", *CLASS_FILES],
        capture_output=True,
        text=True,
    )
    assert set(tracked.stdout.split("\n")) - {""} == set(CLASS_FILES)


def test_reset_course_needs_confirmation_and_archives_before_removing(tmp_path):
    folder = _class_folder(tmp_path)
    refused = _make_in(folder, "reset-course")
    assert refused.returncode != 0 and "CONFIRM=yes" in refused.stdout
    assert all((folder / rel).exists() for rel in CLASS_FILES)
    done = _make_in(folder, "reset-course", "CONFIRM=yes")
    assert done.returncode == 0, done.stdout + done.stderr
    (archive,) = (folder / "backups").glob("course-*.tar.gz")
    assert str(archive.relative_to(folder)) in done.stdout  # it says where
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    assert set(CLASS_FILES) <= names
    assert not any((folder / rel).exists() for rel in CLASS_FILES)


def _holding(path: Path) -> subprocess.Popen:
    """A process that keeps `path` open, as a running formgrader keeps the gradebook open."""
    holder = subprocess.Popen(
        [
            "python3",
            "-c",
            "import sys; f = open(sys.argv[1]); print('open', flush=True); sys.stdin.read()",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline() == "open\n"
    return holder


def test_reset_course_refuses_while_a_process_holds_the_gradebook(tmp_path):
    folder = _class_folder(tmp_path / "course")
    holder = _holding(folder / "gradebook.db")
    try:
        refused = _make_in(folder, "reset-course", "CONFIRM=yes")
    finally:
        holder.communicate("")
    assert refused.returncode != 0
    assert f"pid {holder.pid}" in refused.stdout and "Nothing was removed" in refused.stdout
    assert all((folder / rel).exists() for rel in CLASS_FILES)
    assert not (folder / "backups").exists()
    done = _make_in(folder, "reset-course", "CONFIRM=yes")  # once it is gone, the reset goes ahead
    assert done.returncode == 0, done.stdout + done.stderr


def test_reset_course_refuses_while_a_jupyter_server_serves_the_course(tmp_path, monkeypatch):
    """`make lab` runs a server rooted in the course; its formgrader opens the gradebook lazily."""
    folder = _class_folder(tmp_path / "course")
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    server = subprocess.Popen(["sleep", "600"])  # stands in for the live jupyter-lab process
    info = {"pid": server.pid, "root_dir": str(folder / "work"), "url": "http://localhost:8888/"}
    try:
        (runtime / f"jpserver-{server.pid}.json").write_text(json.dumps(info))
        refused = _make_in(folder, "reset-course", "CONFIRM=yes")
        assert refused.returncode != 0 and f"pid {server.pid}" in refused.stdout
        assert "http://localhost:8888/" in refused.stdout
        assert all((folder / rel).exists() for rel in CLASS_FILES)
    finally:
        server.kill()
        server.wait()
    # a stale runtime file of a server that has exited does not block the reset
    done = _make_in(folder, "reset-course", "CONFIRM=yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "kept notebooks/, source/" in done.stdout


def _fake_python(path: Path, version: str) -> Path:
    """An interpreter that says it is `version` (Ubuntu 22.04's python3 is 3.10)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {version}\n")
    path.chmod(0o755)
    return path


def test_setup_refuses_an_unsupported_python_and_says_what_to_install(tmp_path):
    old = _fake_python(tmp_path / "python3.10", "3.10")
    venv = tmp_path / ".venv"
    refused = make("setup", f"PYTHON={old}", f"VENV={venv}")
    assert refused.returncode != 0
    assert "is Python 3.10; the course needs Python 3.11–3.13" in refused.stdout
    assert (
        "sudo apt install python3.11" in refused.stdout and "make setup PYTHON=" in refused.stdout
    )
    assert "ResolutionImpossible" not in refused.stdout + refused.stderr
    assert not venv.exists()  # nothing half-made is left for the next try to trip over


@pytest.mark.slow
def test_setup_rebuilds_a_venv_made_by_an_unsupported_python(tmp_path):
    venv = tmp_path / ".venv"
    _fake_python(venv / "bin" / "python", "3.10")  # what a failed try with Python 3.10 leaves
    supported = ["3.11", "3.12", "3.13"]
    run = subprocess.run(
        ["bash", "make/venv.sh", str(venv), sys.executable, "no", *supported],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "was made by Python 3.10; rebuilding it" in run.stdout
    built = subprocess.run(
        [venv / "bin" / "python", "-c", "import sys; print(sys.version_info[:2])"],
        capture_output=True,
        text=True,
    )
    assert built.stdout.strip() == str(tuple(sys.version_info[:2]))


def test_supported_pythons_agree_with_pyproject():
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    versions = re.search(r"^SUPPORTED_PYTHONS := (.*)$", (ROOT / "Makefile").read_text(), re.M)[1]
    minors = [int(v.split(".")[1]) for v in versions.split()]
    assert requires == f">=3.{minors[0]},<3.{minors[-1] + 1}"
    assert minors == list(range(minors[0], minors[-1] + 1))
    assert f"Python 3.{minors[0]}–3.{minors[-1]}" in (ROOT / "docs/students.md").read_text()
    assert f"Python 3.{minors[0]}–3.{minors[-1]}" in (ROOT / "docs/teachers.md").read_text()


@pytest.mark.parametrize(
    "target", ["test", "test-fast", "test-browser", "hub-test", "test-sandbox"]
)
def test_the_test_targets_keep_bytecode_where_the_environment_turns_it_off(target):
    """Where PYTHONDONTWRITEBYTECODE is set (CI's machines set it), every process the tests start
    compiled the course's packages again, and every worker rewrote every test module.
    """
    dry = make("-n", target, "PYTEST_ARGS=-k nothing").stdout
    runs = [line for line in dry.splitlines() if "-m pytest" in line]
    assert runs and all(line.startswith("env -u PYTHONDONTWRITEBYTECODE ") for line in runs), runs
