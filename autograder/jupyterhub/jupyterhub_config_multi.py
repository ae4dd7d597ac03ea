"""JupyterHub for SEVERAL Attention Lab classes on one machine (nbgrader: "multiple classes").

    ATTENTION_LAB_CLASSES=/etc/jupyterhub/classes.json \
        jupyterhub -f autograder/jupyterhub/jupyterhub_config_multi.py      # as root

Each class is an nbgrader course with its own id (``attention-lab-9a``), its own grader account
(``grader-attention-lab-9a``) whose formgrader runs as a hub service named like the course, the
groups ``formgrade-<id>`` (instructors, who reach the service at /services/<id>/) and
``nbgrader-<id>`` (students). One student may be in several classes: nbgrader's
JupyterHubAuthPlugin shows each student the courses of their groups, and fetched assignments go
to ~/<course>/<assignment> (``Exchange.path_includes_course``, set by ``install.py system`` when
it is given several ``--course``). The classes file is ``classes.example.json``'s format.
Each student's home and their ``inbound/<student>/`` of every course they are in are on a
filesystem of their own (``ATTENTION_LAB_DISK_SIZE``, default 2G; 0: none), as with
jupyterhub_config.py.

Install, as root (docs/hub-admins.md, "Classroom JupyterHub" > "Several classes"):
    python install.py system --exchange /srv/nbgrader/exchange \
        --course attention-lab-9a --course attention-lab-9b \
        --owner attention-lab-9a=grader-attention-lab-9a --owner attention-lab-9b=grader-attention-lab-9b
    python install.py instructor --user grader-attention-lab-9a --course attention-lab-9a \
        --course-dir /home/grader-attention-lab-9a/attention-lab-9a          # per class
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from classroom import Course, configure_classroom, refuse_public_state_folder
from origins import subdomain_host
from spawner_settings import configure_spawner

c = get_config()  # noqa: F821 -- injected by traitlets

_CLASSES = os.environ.get(
    "ATTENTION_LAB_CLASSES",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "classes.example.json"),
)
with open(_CLASSES) as handle:
    _SETTINGS = json.load(handle)

COURSES = [Course(**course) for course in _SETTINGS["courses"]]
EXCHANGE = _SETTINGS.get("exchange", "/srv/nbgrader/exchange")
configure_classroom(
    c,
    COURSES,
    exchange=EXCHANGE,
    config_root=os.environ.get("ATTENTION_LAB_CONFIG_ROOT", "/etc/jupyter"),
    venv=os.environ.get("ATTENTION_LAB_VENV", sys.prefix),
    # Instructors use the formgrader services in their own browser tab (/services/<id>/):
    # nothing to frame, so JupyterHub's frame-ancestors 'none' stays.
    formgrader_iframe=False,
    # each user's server on its own origin (docs/hub-admins.md, "Origins apart"): the hub
    # refuses to start without ATTENTION_LAB_SUBDOMAIN_HOST unless ATTENTION_LAB_ONE_ORIGIN=1
    subdomain_host=subdomain_host(os.environ),
)

# As jupyterhub_config.py (the same environment variables): memory, CPU and pids per user,
# private temporary folders, and each student's own filesystem on their home and on
# inbound/<student>/ of every course they are enrolled in (group nbgrader-<id>); every course's
# inbound/ is closed to students.
configure_spawner(c, [os.path.join(EXCHANGE, course.course_id, "inbound") for course in COURSES])
# The hub's state (database, cookie secret) lives where it is started: a private folder.
c.JupyterHub.db_url = "sqlite:///jupyterhub.sqlite"
refuse_public_state_folder()
_CHP = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    *("..", "..", "build", "node", "node_modules", ".bin", "configurable-http-proxy"),
)
if os.path.exists(_CHP):
    c.ConfigurableHTTPProxy.command = [os.path.abspath(_CHP)]
