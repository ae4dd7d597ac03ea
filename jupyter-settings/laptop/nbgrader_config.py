"""nbgrader settings for one person on a laptop, who is both the teacher and the student.

`make lab` puts this folder on JUPYTER_CONFIG_PATH. It has to: nbgrader's Assignment List (and
its Validate button) read nbgrader_config.py from the server's root folder, which is
work/ (make lab's root), and from Jupyter's config path, never from the course folder above it, so without
this file they fall back to nbgrader's system-wide exchange (/usr/local/share/nbgrader/exchange,
which a normal user cannot create) and know no course ("Error fetching courses!").

It names the same exchange and course as the course's own nbgrader_config.py (so `make release`
and the Assignment List meet), and puts fetched assignments in work/assignments/, inside the
folder JupyterLab shows (the Makefile's WORK_DIR). `make setup` creates both folders.
"""

import os

c = get_config()  # noqa: F821 -- injected by traitlets when nbgrader loads this file

_course = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
c.CourseDirectory.course_id = "attention-lab"
c.Exchange.root = os.environ.get("ATTENTION_LAB_EXCHANGE", os.path.join(_course, "exchange"))
# Fetch puts <assignment>/<assignment>.ipynb here; `make check` reads the working copy from here.
c.Exchange.assignment_dir = os.path.join(_course, "work", "assignments")

# `nbgrader validate` in JupyterLab's terminal names the question of each failing cell, as the
# Validate button does (attention_grader.term.validate_labels).
try:
    from attention_grader.plugins import name_questions
except ImportError:  # the course package is missing: validate still works, unlabelled
    pass
else:
    name_questions()
