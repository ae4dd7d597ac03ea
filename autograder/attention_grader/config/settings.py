"""The course's settings: every limit the grader enforces is a traitlet set in ``nbgrader_config.py``.

One route for a value, whoever grades (``make grade``, ``nbgrader autograde``, the formgrader):

* the course config sets it (``c.Intake.max_cells = 2000``); nothing else holds a copy;
* every route loads that config the same way, nbgrader's (the system's and the user's
  ``nbgrader_config.py``, the course's, the command line):
  :func:`attention_grader.config.config_door.load_config`; an ``ATTENTION_LAB_*`` variable is
  only ever a setting's default (:mod:`attention_grader.config.environment`);
* ``python -m attention_grader grade``'s limit flags (``--cell-timeout``) write into that config
  (:data:`GRADE_ALIASES`), as nbgrader's own apps turn ``--force`` into ``BaseConverter.force``;
* whoever needs the value reads it from the config it was given: a preprocessor through its own
  traits, code without a configurable through :func:`intake_limits` / :func:`answer_limits`,
  which build the small frozen dataclasses the intake and the answer reader take.

:mod:`attention_grader.limits` lists every limit, these and the other classes' (it sits at the
top of the package because it names classes of every layer); ``python -m attention_grader.limits``
prints them as the table in docs/teachers.md ("Every limit").
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from traitlets import Bool, Float, Integer, Set, Unicode, default
from traitlets.config import Config, Configurable

from attention_grader.config.environment import variable_value

__all__ = [
    "AnswerLimits",
    "IntakeLimits",
    "PageLimits",
    "ALLOW_ENV",
    "Answers",
    "Batch",
    "Intake",
    "Pages",
    "Protections",
    "answer_limits",
    "intake_limits",
    "page_limits",
]

#: The container-friendly switch for :attr:`Protections.allow_unsandboxed_in_pod`
#: (:mod:`attention_grader.config.environment` reads it).
ALLOW_ENV = "ATTENTION_LAB_ALLOW_UNSANDBOXED"

_MiB = 2**20


@dataclass(frozen=True)
class IntakeLimits:
    """Caps on what a submission may hold (the defaults fit this course's notebooks many times)."""

    max_notebook_bytes: int = 20 * 2**20
    max_cells: int = 2000
    max_nesting: int = 64
    max_data_file_bytes: int = 2 * 2**20
    max_bookkeeping_bytes: int = 4096
    max_entries: int = 200
    max_submission_bytes: int = 50 * 2**20
    max_depth: int = 3
    max_flags: int = 20
    max_released_hash_bytes: int = 256 * 2**20
    max_history_hash_bytes: int = 64 * 2**20
    max_history_hash_entries: int = 500
    max_time_entries: int = 5000
    data_suffixes: frozenset[str] = frozenset(
        {".csv", ".tsv", ".txt", ".json", ".npy", ".npz", ".png", ".jpg", ".jpeg", ".gif"}
    )


@dataclass(frozen=True)
class AnswerLimits:
    """Caps on what one reply from a student's kernel may hold.

    Attributes
    ----------
    max_reply_chars : int
        Longest JSON reply read (a bigger one is an unreadable answer, not a worker's memory).
    max_depth : int
        Deepest nesting of lists, tuples, sets and dicts.
    max_items : int
        Most values (numbers, strings, ...) in one reply.
    max_set_items : int
        Most items in one set, or entries in one dict (see :mod:`attention_grader.wire.answer_sets`).
    max_hashed_items : int
        Most values hashed into sets and dict keys over one reply; with ``max_set_items`` it
        bounds what rebuilding them can cost, even when every hash collides.
    max_classes : int
        Most classes of one notebook's kernel the grader makes a stand-in class for.
    max_handles : int
        Most objects of one notebook's kernel the grader holds a handle for.
    max_text_chars : int
        Longest string carried out of (or into) the kernel.
    max_yields : int
        Most items a generator, or an object the test iterates, is carried as.
    max_printed_chars : int
        Most characters of what a student's function prints during one call kept for the test.
    max_handle_ops : int
        Most uses of a student's objects (handles) one test may make.
    max_output_chars : int
        Longest text of a trusted test's output (error message, printed text, result).

    The depth, items, text, yields and printed caps are sent into the kernel with each request
    (:class:`attention_grader.wire.answer_codec.Caps`): both sides cut at the same place.
    """

    max_reply_chars: int = 32 * 2**20
    max_depth: int = 20
    max_items: int = 2_000_000
    max_set_items: int = 1_000
    max_hashed_items: int = 10_000
    max_classes: int = 1_000
    max_handles: int = 100_000
    max_text_chars: int = 200_000
    max_yields: int = 10_000
    max_printed_chars: int = 1_000_000
    max_handle_ops: int = 2000
    max_output_chars: int = 20_000


@dataclass(frozen=True)
class PageLimits:
    """Caps on the work one page (feedback, the formgrader's view, a report) spends on HTML.

    Attributes
    ----------
    max_checked_html : int
        Longest HTML output (characters) read for unsafe parts; a longer one is shown as text.
    max_problems : int
        Most distinct findings one ``unsafe_html`` flag lists.
    max_maths_chars : int
        Most characters of TeX one rendering converts to MathML; the rest is shown as source.
    """

    max_checked_html: int = 4 * 2**20
    max_problems: int = 20
    max_maths_chars: int = 20_000


def _limit(value: int, text: str) -> Integer[int, int]:
    return Integer(value, help=text).tag(config=True)


class Intake(Configurable):
    """What one submission may hold; collect, ``make grade`` and autograde's intake all read it.

    Over a cap, the file is refused (moved to the quarantine, flagged) and the rest is graded.
    """

    max_notebook_bytes = _limit(
        IntakeLimits.max_notebook_bytes,
        "Largest notebook file read (bytes); a bigger one is refused.",
    )
    max_cells = _limit(IntakeLimits.max_cells, "Most cells in one notebook.")
    max_nesting = _limit(IntakeLimits.max_nesting, "Deepest JSON nesting in a notebook.")
    max_data_file_bytes = _limit(
        IntakeLimits.max_data_file_bytes, "Largest data file (.csv, .npy, ...) kept (bytes)."
    )
    max_bookkeeping_bytes = _limit(
        IntakeLimits.max_bookkeeping_bytes,
        "Largest timestamp.txt / submission_secret.txt read (bytes).",
    )
    max_entries = _limit(IntakeLimits.max_entries, "Most files and folders in one submission.")
    max_submission_bytes = _limit(
        IntakeLimits.max_submission_bytes, "Most bytes collect copies of one submission."
    )
    max_depth = _limit(IntakeLimits.max_depth, "Deepest folder level inside a submission.")
    max_flags = _limit(
        IntakeLimits.max_flags,
        "Most flags listed for one submission's refused files; the rest are summed up in one "
        "more (a folder of 10 000 links is not 10 000 lines).",
    )
    max_released_hash_bytes = _limit(
        IntakeLimits.max_released_hash_bytes,
        "Largest file compared by content with the teacher's released one (bytes); a file "
        "handed back unchanged is the teacher's, a bigger one is the student's.",
    )
    max_history_hash_bytes = _limit(
        IntakeLimits.max_history_hash_bytes,
        "Most bytes of one exchange folder hashed for the submission history; past it the "
        "hash covers what was read and ends in '+partial'.",
    )
    max_history_hash_entries = _limit(
        IntakeLimits.max_history_hash_entries,
        "Most files and folders of one exchange folder hashed for the submission history.",
    )
    max_time_entries = _limit(
        IntakeLimits.max_time_entries,
        "Most entries of one exchange folder looked at for its time (the latest change the "
        "system stamped); past it the folder's own time is used, never an earlier one.",
    )
    data_suffixes = Set(
        Unicode(),
        default_value=set(IntakeLimits.data_suffixes),
        help="File endings kept as data beside the notebooks; anything else is refused.",
    ).tag(config=True)

    def limits(self) -> IntakeLimits:
        """Return these settings as the intake's frozen :class:`~attention_grader.intake.intake_files.IntakeLimits`."""
        values = {f.name: getattr(self, f.name) for f in fields(IntakeLimits)}
        values["data_suffixes"] = frozenset(values["data_suffixes"])
        return IntakeLimits(**values)


class Answers(Configurable):
    """Caps on one reply from a student's kernel when the grader reads an answer as data.

    Over a cap, the answer is unreadable (its tests score 0, flag ``unreadable_answer``).
    """

    max_reply_chars = _limit(
        AnswerLimits.max_reply_chars, "Longest JSON reply read from the kernel (characters)."
    )
    max_depth = _limit(
        AnswerLimits.max_depth,
        "Deepest nesting of lists, tuples, sets and dicts (the student's kernel cuts there too).",
    )
    max_items = _limit(AnswerLimits.max_items, "Most values (numbers, strings, ...) in one reply.")
    max_set_items = _limit(
        AnswerLimits.max_set_items, "Most items in one set, or entries in one dict."
    )
    max_hashed_items = _limit(
        AnswerLimits.max_hashed_items,
        "Most values hashed into sets and dict keys over one reply (bounds the cost of "
        "rebuilding them even when every hash collides).",
    )
    max_classes = _limit(
        AnswerLimits.max_classes,
        "Most classes of one notebook's kernel given a stand-in class in the grader (past it, "
        "the test needs a teacher: fresh classes without end must not grow the grader).",
    )
    max_handles = _limit(
        AnswerLimits.max_handles,
        "Most objects of one notebook's kernel the grader holds a handle for (past it, the "
        "test needs a teacher).",
    )
    max_text_chars = _limit(
        AnswerLimits.max_text_chars,
        "Longest string carried out of or into the student's kernel (characters).",
    )
    max_yields = _limit(
        AnswerLimits.max_yields,
        "Most items a generator, or an object the test iterates, is carried as.",
    )
    max_printed_chars = _limit(
        AnswerLimits.max_printed_chars,
        "Most characters of what a student's function prints during one call kept for the test.",
    )

    max_handle_ops = _limit(
        AnswerLimits.max_handle_ops,
        "Most uses of a student's objects one test may make (numpy reading a student's "
        "sequence item by item costs one each); past it, the test needs a teacher.",
    )
    max_output_chars = _limit(
        AnswerLimits.max_output_chars,
        "Longest text kept of a trusted test's output in the graded notebook (its error "
        "message, printed text, result; characters); the rest is cut.",
    )

    def limits(self) -> AnswerLimits:
        """Return these settings as the answer reader's frozen :class:`AnswerLimits`."""
        return AnswerLimits(**{f.name: getattr(self, f.name) for f in fields(AnswerLimits)})


class Pages(Configurable):
    """What one page (feedback, the formgrader's view, a report) spends on a student's HTML."""

    max_checked_html = _limit(
        PageLimits.max_checked_html,
        "Longest HTML output read for unsafe parts (characters; a pandas table of 10 000 cells "
        "is about 1 MB); a longer one is shown as its text, unread.",
    )
    max_problems = _limit(
        PageLimits.max_problems,
        "Most distinct findings one unsafe_html flag lists (a page of made-up tags is one attempt).",
    )
    max_maths_chars = _limit(
        PageLimits.max_maths_chars,
        "Most characters of TeX one page converts to MathML (the conversion's time grows "
        "faster than a formula's length); the rest is shown as TeX source.",
    )

    def limits(self) -> PageLimits:
        """Return these settings as the pages' frozen :class:`PageLimits`."""
        return PageLimits(**{f.name: getattr(self, f.name) for f in fields(PageLimits)})


class Batch(Configurable):
    """How ``make grade``'s parent watches its worker processes."""

    worker_grace = Float(
        60.0,
        help="Seconds make grade's parent adds to c.GradingExecute.submission_budget before it "
        "kills a worker still on one submission (the steps after execution, saving grades and "
        "sanitising HTML, run in the worker).",
    ).tag(config=True)
    max_crashes = _limit(
        3,
        "Worker pools replaced after a crash no budget explains before the rest of the class is "
        "given up (reported as crashed, never graded wrongly).",
    )


class Protections(Configurable):
    """What grading does when the sandbox's walls are missing."""

    allow_unsandboxed_in_pod = Bool(
        help=f"Grade in a Kubernetes pod although filesystem isolation or the empty network "
        f"are OFF (trusted submissions only). Default: True when ${ALLOW_ENV}=1 (for a "
        "container's environment), else False.",
    ).tag(config=True)

    @default("allow_unsandboxed_in_pod")
    def _from_environment(self) -> bool:
        return variable_value(ALLOW_ENV) is True


def intake_limits(config: Config | None) -> IntakeLimits:
    """Return the intake's caps as ``config`` sets them (``c.Intake``)."""
    return Intake(config=config or Config()).limits()


def answer_limits(config: Config | None) -> AnswerLimits:
    """Return the answer reader's caps as ``config`` sets them (``c.Answers``)."""
    return Answers(config=config or Config()).limits()


def page_limits(config: Config | None) -> PageLimits:
    """Return the pages' caps as ``config`` sets them (``c.Pages``)."""
    return Pages(config=config or Config()).limits()
