"""nbgrader settings for the Attention Lab course. The repository root is the course directory."""

import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

try:
    from attention_grader import feedback_page, formgrader_view
    from attention_grader.late import SharePerDay
    from attention_grader.pipeline import configure
    from attention_grader.validate_labels import name_questions
except ImportError as err:  # never fall back to grading in the student's kernel without saying so
    raise ImportError(
        f"nbgrader_config.py needs the course's grader ({err}): run nbgrader from the course "
        "environment (`make setup`, then .venv/bin/nbgrader), or `pip install -e .` here"
    ) from err

c = get_config()  # noqa: F821 -- injected by traitlets when nbgrader loads this file

_root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = _root
c.CourseDirectory.course_id = "attention-lab"
# One machine: the exchange is a folder inside the course. On a JupyterHub, point it at the
# shared path with ATTENTION_LAB_EXCHANGE=/srv/nbgrader/exchange (docs/teachers.md, "The exchange").
c.Exchange.root = os.environ.get("ATTENTION_LAB_EXCHANGE", os.path.join(_root, "exchange"))

# The course's time zone (an IANA name): a due date without one (make release DUE="2026-12-07
# 17:00") is read in it, and release prints the due date in it. The exchange stamps hand-ins in
# it too.
c.CourseTime.timezone = "UTC"
c.Exchange.timezone = c.CourseTime.timezone

# Feedback must not reveal answers. nbgrader puts hidden tests back into feedback by default
# (jupyter/nbgrader#917): strip them as in the released notebook. Test outputs are written by
# the grader (one line per failed check, never test code), see attention_grader.trusted.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
c.LimitOutput.max_traceback = 3

# Late work (docs/teachers.md, "Late work"): 10% of the notebook's score for each started day
# after the due date, never more than half; 15 minutes of grace. nbgrader's AssignLatePenalties
# applies it when a notebook is autograded; the formgrader, `make grades` and the feedback page
# show it.
c.AssignLatePenalties.plugin_class = SharePerDay
c.SharePerDay.share_per_day = 0.1
c.SharePerDay.max_share = 0.5
c.SharePerDay.grace_minutes = 15

# The grading pipeline, for `nbgrader autograde`, the formgrader and `make grade` alike: student
# code in a sandboxed kernel, hidden tests in the grader's own process (docs/design.md,
# "Grading safely").
# Its options live here too, e.g. c.SandboxedKernelManager.sandbox = "require".
configure(c)
# The grader's own wall-clock budget per submission (cells + reading answers + checks), enforced
# from outside the process that grades: over it, that process is killed, the tests not reached
# score 0, the student is flagged grading_budget and the class goes on (attention_grader.budget).
# Keep it above GradingExecute.notebook_timeout (300 s, the student's cells alone).
c.GradingExecute.submission_budget = 400
# Feedback pages: plain words first, maths offline, "not graded yet" for written answers a
# teacher has not graded (attention_grader.feedback_page; keeps the CSP). After configure(c).
feedback_page.configure(c)
# The formgrader: each written answer's model answer and rubric (from source/) beside it, and
# maths as MathML (attention_grader.formgrader_view; never on a student's feedback page).
formgrader_view.configure(c)
# `nbgrader validate` names the question of each failing cell (the Validate button's server
# extension does the same: attention_grader.validate_labels).
name_questions()
