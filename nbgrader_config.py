"""nbgrader settings for the Attention Lab course. The repository root is the course directory."""

import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import ClearHiddenTests, GetGrades

try:
    from attention_grader import html_safety
    from attention_grader.tamper import configure
except ImportError as err:  # never fall back to grading unsandboxed without saying so
    raise ImportError(
        f"nbgrader_config.py needs the course's grader ({err}): run nbgrader from the course "
        "environment (`make setup`, then .venv/bin/nbgrader), or `pip install -e .` here"
    ) from err

c = get_config()  # noqa: F821 -- injected by traitlets when nbgrader loads this file

_root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = _root
c.CourseDirectory.course_id = "attention-lab"
# One machine: the exchange is a folder inside the course. On a JupyterHub, point it at the
# shared path with ATTENTION_LAB_EXCHANGE=/srv/nbgrader/exchange (see README, teacher section).
c.Exchange.root = os.environ.get("ATTENTION_LAB_EXCHANGE", os.path.join(_root, "exchange"))

# Feedback must not reveal answers. nbgrader puts hidden tests back into feedback by default
# (jupyter/nbgrader#917): strip them as in the released notebook. Tracebacks quote the lines
# around the failing one, which may be hidden tests: keep only the first and last traceback
# entries (the error name and message); attention_lab.checks failures are one line anyway.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
c.LimitOutput.max_traceback = 3

# Student code runs sandboxed during autograde (here, in `make grade` and in the formgrader),
# with the tamper checks: see README, "Grading safely". ATTENTION_LAB_SANDBOX=0 turns both off,
# e.g. to compare with plain nbgrader (`make grade SAFE=0` sets it).
if os.environ.get("ATTENTION_LAB_SANDBOX", "1") != "0":
    configure(c)

# Nothing a student wrote runs in a browser, sandbox or not: outputs and written answers are
# sanitised in the autograded notebook (what the formgrader shows) and in feedback, and feedback
# pages carry a Content-Security-Policy. Keep this after every setting of those pipelines.
html_safety.configure(c)
