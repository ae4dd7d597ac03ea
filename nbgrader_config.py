"""nbgrader settings for the Attention Lab course. The repository root is the course directory."""

import os

c = get_config()  # noqa: F821 -- injected by traitlets when nbgrader loads this file

_root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = _root
c.CourseDirectory.course_id = "attention-lab"
# One machine: the exchange is a folder inside the course. On a JupyterHub, point it at the
# shared path with ATTENTION_LAB_EXCHANGE=/srv/nbgrader/exchange (see README, teacher section).
c.Exchange.root = os.environ.get("ATTENTION_LAB_EXCHANGE", os.path.join(_root, "exchange"))
