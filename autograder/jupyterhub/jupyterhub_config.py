"""JupyterHub for ONE Attention Lab class on one machine (nbgrader: "one class, one grader").

    jupyterhub -f autograder/jupyterhub/jupyterhub_config.py     # as root, from the course env

Every user is a local Unix account whose server runs as that account (LocalProcessSpawner), so
the shared exchange's file permissions keep students apart. The formgrader runs inside the
instructor's own server, on the course copied to their home by ``install.py instructor``.
Before the first start: ``install.py system --owner <instructor>`` (exchange, the course's
folders owned by the instructor, /etc/jupyter/nbgrader_config.py; the hub refuses to start while
they are missing or someone else's) and
``install.py check`` (every user can run the course env). docs/hub-admins.md: "Classroom JupyterHub".

Settings come from the environment (or edit the defaults below):
    ATTENTION_LAB_INSTRUCTORS   user names, comma separated (group formgrade-attention-lab)
    ATTENTION_LAB_STUDENTS      user names, comma separated (group nbgrader-attention-lab)
    ATTENTION_LAB_EXCHANGE      shared exchange            (default /srv/nbgrader/exchange)
    ATTENTION_LAB_CONFIG_ROOT   system Jupyter config dir  (default /etc/jupyter)
    ATTENTION_LAB_VENV          course environment         (default: the hub's own, sys.prefix)
    ATTENTION_LAB_SUBDOMAIN_HOST  e.g. https://hub.school.example: each user's server on its own
                                origin, https://<user>.hub.school.example (wildcard DNS and
                                certificate: docs/hub-admins.md, "Origins apart"). Required:
                                the hub refuses to start without it, unless
    ATTENTION_LAB_ONE_ORIGIN=1      one origin for everyone, on purpose (only if all users are trusted)
    ATTENTION_LAB_FORMGRADER_IFRAME=1   show the formgrader inside JupyterLab (see below)
    ATTENTION_LAB_ROSTER        a roster CSV (roster.py), added to the two lists above
    ATTENTION_LAB_MEM_LIMIT     memory per student, swap included   (default 1G; 0: none)
    ATTENTION_LAB_CPU_LIMIT     CPUs per student                    (default 1; 0: none)
    ATTENTION_LAB_STAFF_MEM_LIMIT, ATTENTION_LAB_STAFF_CPU_LIMIT    the same for instructors, who
                                grade in their server           (default 2G, no CPU limit)
    ATTENTION_LAB_CULL_IDLE     stop servers idle this many seconds (default 3600; 0: never)
    ATTENTION_LAB_DISK_SIZE     each student's own filesystem: home + exchange folder (default 2G;
                                0: none)
docs/hub-admins.md explains limits, culling, the roster, HTTPS and a systemd unit.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classroom import Course, configure_classroom, names_from_env, refuse_public_state_folder
from culler import configure_idle_culler
from origins import subdomain_host
from roster import Roster, read_roster
from spawner_settings import configure_spawner

c = get_config()  # noqa: F821 -- injected by traitlets
_env = os.environ.get


ROSTER = read_roster(_env("ATTENTION_LAB_ROSTER")) if _env("ATTENTION_LAB_ROSTER") else Roster(())
COURSE = Course(
    course_id="attention-lab",
    instructors=names_from_env("ATTENTION_LAB_INSTRUCTORS") + ROSTER.instructors,
    students=names_from_env("ATTENTION_LAB_STUDENTS") + ROSTER.students,
    # Each student's own numbers (docs/design.md, "Every student's own numbers"): the course
    # key (c.Variants.key_file), e.g. <course>/variant.key; made here, as the hub starts, when
    # missing (classroom.ensure_variant_keys), so that every server gets its seed.
    variant_key_file=_env("ATTENTION_LAB_VARIANT_KEY") or None,
)

# JupyterHub >= 4.1 forbids framing single-user pages, which blanks the formgrader panel in
# JupyterLab. nbgrader's docs: keep it that way and open the formgrader in its own browser tab
# (/user/<instructor>/formgrader), or set ATTENTION_LAB_FORMGRADER_IFRAME=1 together with
# ATTENTION_LAB_SUBDOMAIN_HOST (unsafe with ATTENTION_LAB_ONE_ORIGIN=1, unless every user is
# trusted: the hub log says so). Users' own ~/.jupyter config is ignored (disable_user_config).
configure_classroom(
    c,
    [COURSE],
    exchange=os.environ.get("ATTENTION_LAB_EXCHANGE", "/srv/nbgrader/exchange"),
    config_root=os.environ.get("ATTENTION_LAB_CONFIG_ROOT", "/etc/jupyter"),
    venv=os.environ.get("ATTENTION_LAB_VENV", sys.prefix),
    formgrader_iframe=os.environ.get("ATTENTION_LAB_FORMGRADER_IFRAME") == "1",
    subdomain_host=subdomain_host(os.environ),
)

# Local accounts, system passwords (PAM, JupyterHub's default authenticator); servers run as
# their users. Only root can start servers as other users. LocalProcessSpawner, plus the
# per-user limits it does not enforce by itself (spawner_limits.py): memory, CPU and pids in a
# cgroup per user (over its memory a student's kernel is killed, nobody else's), private
# temporary folders, and each student's own filesystem on their home and inbound/<student>/.
_EXCHANGE = _env("ATTENTION_LAB_EXCHANGE", "/srv/nbgrader/exchange")
configure_spawner(c, [os.path.join(_EXCHANGE, COURSE.course_id, "inbound")])
# Idle servers are stopped (their files stay) so that a class's memory goes to who is working.
configure_idle_culler(
    c, timeout=int(_env("ATTENTION_LAB_CULL_IDLE", "3600")),
    venv=_env("ATTENTION_LAB_VENV", sys.prefix),
)  # fmt: skip
# The proxy: `make hub-deps` installs the pinned configurable-http-proxy into build/node/;
# otherwise the one on PATH (`npm install -g configurable-http-proxy`).
_CHP = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    *("..", "..", "build", "node", "node_modules", ".bin", "configurable-http-proxy"),
)
if os.path.exists(_CHP):
    c.ConfigurableHTTPProxy.command = [os.path.abspath(_CHP)]
# The hub's state (sqlite database, cookie secret) lives where it is started, which must be a
# private folder (0700): the database holds every user's tokens.
c.JupyterHub.db_url = "sqlite:///jupyterhub.sqlite"
refuse_public_state_folder()
# Sandboxed grading: the kernel that runs students' code during `autograde` is chosen in the
# course's nbgrader_config.py (attention_grader's sandbox hooks), not here: see
# docs/hub-admins.md, "Classroom JupyterHub" > "Sandboxed grading".
