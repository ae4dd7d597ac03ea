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
filesystem of their own (``ATTENTION_LAB_DISK_SIZE``, default 2G; 0: none), and idle servers
are stopped (``ATTENTION_LAB_CULL_IDLE``), as with jupyterhub_config.py: both call
``attention_hub.configure.configure_hub`` with the same environment variables. A class's entry
may name a ``roster`` CSV (roster.py's format), whose people join that class.

Install, as root (docs/hub-admins.md, "Classroom JupyterHub" > "Several classes"):
    python install.py system --exchange /srv/nbgrader/exchange \
        --course attention-lab-9a --course attention-lab-9b \
        --owner attention-lab-9a=grader-attention-lab-9a --owner attention-lab-9b=grader-attention-lab-9b
    python install.py instructor --user grader-attention-lab-9a --course attention-lab-9a \
        --course-dir /home/grader-attention-lab-9a/attention-lab-9a          # per class
"""

import os
import sys

# the hub's package, autograder/attention_hub, beside this folder (run by path, not installed)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from attention_hub.configure import configure_hub, several_classes

c = get_config()  # noqa: F821 -- injected by traitlets

# Instructors use the formgrader services in their own browser tab (/services/<id>/): nothing
# to frame, so JupyterHub's frame-ancestors 'none' stays. Each user's server on its own origin
# (docs/hub-admins.md, "Origins apart"): the hub refuses to start without
# ATTENTION_LAB_SUBDOMAIN_HOST unless ATTENTION_LAB_ONE_ORIGIN=1.
_CLASSES = os.environ.get(
    "ATTENTION_LAB_CLASSES",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "classes.example.json"),
)
configure_hub(c, several_classes(_CLASSES))
