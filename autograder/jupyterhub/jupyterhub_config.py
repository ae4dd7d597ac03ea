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
    ATTENTION_LAB_VARIANT_KEY   the course key for each student's own numbers (made when missing)
    ATTENTION_LAB_MEM_LIMIT     memory per student, swap included   (default 1G; 0: none)
    ATTENTION_LAB_CPU_LIMIT     CPUs per student                    (default 1; 0: none)
    ATTENTION_LAB_STAFF_MEM_LIMIT, ATTENTION_LAB_STAFF_CPU_LIMIT    the same for instructors, who
                                grade in their server           (default 2G, no CPU limit)
    ATTENTION_LAB_CULL_IDLE     stop servers idle this many seconds (default 3600; 0: never)
    ATTENTION_LAB_DISK_SIZE     each student's own filesystem: home + exchange folder (default 2G;
                                0: none)
docs/hub-admins.md explains limits, culling, the roster, HTTPS and a systemd unit. Everything
is set by ``attention_hub.configure.configure_hub`` (autograder/attention_hub/), which the
several-classes config calls too.
"""

import os
import sys

# the hub's package, autograder/attention_hub, beside this folder (run by path, not installed)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from attention_hub.configure import configure_hub, one_class

c = get_config()  # noqa: F821 -- injected by traitlets

# JupyterHub >= 4.1 forbids framing single-user pages, which blanks the formgrader panel in
# JupyterLab. nbgrader's docs: keep it that way and open the formgrader in its own browser tab
# (/user/<instructor>/formgrader), or set ATTENTION_LAB_FORMGRADER_IFRAME=1 (unsafe with
# ATTENTION_LAB_ONE_ORIGIN=1 unless every user is trusted: the hub log says so). Users' own
# ~/.jupyter config is ignored (Spawner.disable_user_config). Servers run as their users
# (LocalProcessSpawner) with the limits it does not enforce by itself (spawner_limits.py);
# idle servers are stopped (their files stay). The hub's state (sqlite database, cookie
# secret) lives where it is started, which must be a private folder (0700). Sandboxed grading
# is chosen in the course's nbgrader_config.py, not here (docs/hub-admins.md, "Classroom
# JupyterHub" > "Sandboxed grading").
configure_hub(c, one_class(os.environ))
