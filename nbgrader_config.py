"""nbgrader settings for the Attention Lab course. The repository root is the course directory.

Every limit the grader enforces is set below with its value (docs/teachers.md, "Every limit",
lists them with what each does). The lines may come in any order.
"""

import os

try:
    from attention_grader.plugins import SharePerDay, apply_environment, configure
except ImportError as err:  # never fall back to grading in the student's kernel without saying so
    raise ImportError(
        f"nbgrader_config.py needs the course's grader ({err}): run nbgrader from the course "
        "environment (`make setup`, then .venv/bin/nbgrader), or `pip install -e .` here"
    ) from err

c = get_config()  # noqa: F821 -- injected by traitlets when nbgrader loads this file

# The course's steps for nbgrader autograde, the formgrader, make grade, release, feedback and
# validate: student code in a sandboxed kernel, hidden tests in the grader's own process,
# feedback without answers (attention_grader.pipeline; docs/design.md, "Grading safely").
configure(c)

_root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = _root
c.CourseDirectory.course_id = "attention-lab"
# One machine: the exchange is a folder inside the course. On a JupyterHub, point it at the
# shared path with ATTENTION_LAB_EXCHANGE=/srv/nbgrader/exchange (docs/teachers.md, "The exchange").
c.Exchange.root = os.path.join(_root, "exchange")
# The ATTENTION_LAB_* variables a hub or a Job sets (the exchange, the gradebook) win over the
# lines above: `python -m attention_grader.config.environment` lists each and its setting.
# Kubernetes' ATTENTION_LAB_PER_STUDENT_MOUNTS=1 is c.ExchangeLayout.per_student_mounts' default.
apply_environment(c)

# The course's time zone (an IANA name): a due date without one (make release DUE="2026-12-07
# 17:00") is read in it, and release prints the due date in it. The exchange stamps hand-ins in
# it too.
c.CourseTime.timezone = "UTC"
c.Exchange.timezone = c.CourseTime.timezone

# Late work (docs/teachers.md, "Late work"): 10% of the notebook's score for each started day
# after the due date, never more than half; 15 minutes of grace. nbgrader's AssignLatePenalties
# applies it when a notebook is autograded; the formgrader, `make grades` and the feedback page
# show it.
c.AssignLatePenalties.plugin_class = SharePerDay
c.SharePerDay.share_per_day = 0.1
c.SharePerDay.max_share = 0.5
c.SharePerDay.grace_minutes = 15

# Per-student variants (docs/authoring.md, "Every student's own numbers"): the course key every
# student's numbers derive from. Only the classroom hub gives each student her seed, and it makes
# the key as it starts (ATTENTION_LAB_VARIANT_KEY); without a key everyone works on, and is
# graded on, the practice numbers. On the hub, uncomment this line: grading then refuses if the
# key is ever lost. Keep the key out of git and out of source/, release/ and the exchange
# (refused there); back it up with the gradebook.
# c.Variants.key_file = "variant.key"

# ---- Time: a cell, a notebook, the grader's whole budget for one submission.
# `make grade GRADE_ARGS="--cell-timeout 20"` overrides the first two for one run.
c.Execute.timeout = 30  # seconds per cell; the feedback page quotes the limit that applied
c.GradingExecute.notebook_timeout = 300  # seconds for a notebook's cells together
# Enforced from outside the process that grades: over it, that process is killed, the tests not
# reached score 0, the student is flagged grading_budget and the class goes on. Keep it above
# notebook_timeout, which bounds the student's cells alone.
c.GradingExecute.submission_budget = 400
c.GradingExecute.grader_memory_mb = 4096  # the grader's own memory for one notebook

# ---- Output a student's code may print (streamed, capped as it arrives).
c.GradingExecute.max_cell_output_bytes = 10 * 2**20
c.GradingExecute.max_notebook_output_bytes = 50 * 2**20
c.GradingExecute.drain_timeout = 30
c.LimitOutput.max_lines = 1000
c.LimitOutput.max_traceback = 3  # feedback shows the error, not a page of traceback

# ---- The sandbox of a student's kernel (make sandbox-check shows what this machine provides).
# Grading refuses to start when the sandbox's filesystem or network wall is off (the fix:
# `make sandbox-deps` as root); "off" grades without it on purpose (trusted work only).
c.SandboxedKernelManager.sandbox = "auto"
c.SandboxedKernelManager.cpu_seconds = 120
c.SandboxedKernelManager.memory_mb = 3072
c.SandboxedKernelManager.file_size_mb = 64
c.SandboxedKernelManager.max_processes = 512
c.SandboxedKernelManager.tmp_size_mb = 256
c.SandboxedKernelManager.copy_limit_mb = 256
# In a Kubernetes pod grading refuses to start without the sandbox's walls; True grades trusted
# work anyway. Left unset, a container's ATTENTION_LAB_ALLOW_UNSANDBOXED=1 turns it on.
# c.Protections.allow_unsandboxed_in_pod = False

# ---- What a submission may hold (collect, make grade and autograde refuse the rest).
c.Intake.max_notebook_bytes = 20 * 2**20
c.Intake.max_cells = 2000
c.Intake.max_nesting = 64
c.Intake.max_data_file_bytes = 2 * 2**20
c.Intake.max_bookkeeping_bytes = 4096
c.Intake.max_entries = 200
c.Intake.max_submission_bytes = 50 * 2**20
c.Intake.max_depth = 3
c.Intake.max_flags = 20  # refused files listed per submission; the rest in one "and N more"
c.Intake.max_released_hash_bytes = 256 * 2**20  # a released file handed back, compared up to it
c.Intake.max_history_hash_bytes = 64 * 2**20  # submission_history/ hashes each folder up to it
c.Intake.max_history_hash_entries = 500
c.Intake.max_time_entries = 5000  # an exchange folder's time: its newest ctime, over this many
c.SafeExchangeCollect.clock_slack = 600  # seconds timestamp.txt may be off before a flag
c.Intake.data_suffixes = {
    ".csv", ".tsv", ".txt", ".json", ".npy", ".npz", ".png", ".jpg", ".jpeg", ".gif",
}  # fmt: skip

# ---- An answer read from a student's kernel as plain data (over a cap: unreadable, flagged).
c.Answers.max_reply_chars = 32 * 2**20
c.Answers.max_depth = 20
c.Answers.max_items = 2_000_000
c.Answers.max_set_items = 1_000
c.Answers.max_hashed_items = 10_000
c.Answers.max_classes = 1_000
c.Answers.max_handles = 100_000
c.Answers.max_text_chars = 200_000
c.Answers.max_yields = 10_000
c.Answers.max_printed_chars = 1_000_000
c.Answers.max_handle_ops = 2000  # uses of a student's objects per test; past it a teacher grades
c.Answers.max_output_chars = 20_000  # a trusted test's error, printed text and result, cut there

# ---- What one page (feedback, the formgrader's view) spends on a student's HTML and maths.
c.Pages.max_checked_html = 4 * 2**20  # a longer HTML output is shown as its text, unread
c.Pages.max_problems = 20  # findings one unsafe_html flag lists
c.Pages.max_maths_chars = 20_000  # TeX converted to MathML per page; the rest shown as source

# ---- make grade's parent and its worker processes.
c.Batch.worker_grace = 60.0  # seconds past submission_budget before the parent kills a worker
c.Batch.max_crashes = 3  # pools a crash nobody explains may break before the rest is given up
