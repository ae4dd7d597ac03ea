"""The flag registry: one entry per kind of finding grading hands a teacher, and its one store.

A flag is something a teacher should look at even though the submission was graded: a late
hand-in, a cell over its time limit, a file set aside at intake, a tool of tampering in the code,
a test only a teacher can grade. Each kind is one :class:`FlagKind` entry here (shaped like the
misconception registry, :mod:`attention_lab.misconceptions`): its id, how serious it is, what it
means in plain words and what the teacher does about it. Every grading step builds its findings
as :class:`Flag` values of a registered kind (an unknown kind is refused with a clear error), the
batch summary, the report and the CLI show the registry's text for a kind, and
:data:`attention_grader.executor.tamper.TAMPER_KINDS` is the registry's tampering entries.

Flags are kept in one place per submission, written by one function and read by one
(:mod:`attention_grader.common.flag_store`: ``record_flags`` and ``read_flags``).

A new kind is one new entry here (``tests/attention_grader/common/test_flags.py`` finds every kind the grader emits and
checks each is registered and says what the teacher does).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

__all__ = [
    "GRADER_METADATA",
    "REGISTRY",
    "SEVERITIES",
    "Flag",
    "FlagKind",
    "describe",
    "get",
    "tampering_kinds",
]

#: The one metadata key the grader writes under, in a notebook (flags, how execution stopped,
#: the per-cell time limit used) and in a cell (the formgrader's rubric box, a test's
#: misconception). Intake strips it from every submission (:mod:`attention_grader.executor.tamper`): a
#: student cannot write it.
GRADER_METADATA = "attention_grader"

#: How much a kind asks of the teacher. ``info``: nothing changed the grade, read it when
#: convenient; ``review``: look at the notebook, the grade may not mean what it says;
#: ``grade``: some points wait for, or depend on, the teacher's decision.
SEVERITIES = ("info", "review", "grade")


@dataclass(frozen=True)
class FlagKind:
    """One kind of flag.

    Attributes
    ----------
    id : str
        lower_snake_case; what a :class:`Flag` carries and the batch summary prints.
    severity : str
        One of :data:`SEVERITIES`.
    text : str
        What it means, in plain words for a teacher (never a student's text).
    action : str
        What the teacher does about it.
    tampering : bool
        A sign that the student tried to change how grading works (the tamper checks).
    blocks_points : bool
        The cells it names got no automatic points (scored 0, or left to a teacher).
    holds_feedback : bool
        Feedback is not released while it stands (the cell waits for a teacher's grade).
    """

    id: str
    severity: str
    text: str
    action: str
    tampering: bool = False
    blocks_points: bool = False
    holds_feedback: bool = False

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"flag kind {self.id!r}: severity must be one of {SEVERITIES}")


_LOOK = "Open the autograded notebook in the formgrader and look at the cell named in the detail."
_SCAN = (
    "Read the student's cell named in the detail; the flag changes no score (tests run outside "
    "the student's kernel), so adjust the grade in the formgrader only if the code cheated."
)

# --- how the work ran
LATE = FlagKind(
    "late",
    "info",
    "handed in after the due date: the detail says how late and the penalty subtracted",
    "Nothing, unless you excuse it: then change the late penalty in the gradebook.",
)
CELL_TIMEOUT = FlagKind(
    "cell_timeout",
    "review",
    "a cell ran past the per-cell time limit and was interrupted (e.g. an infinite loop)",
    "Look at the cell; regrade with a longer --cell-timeout if honest code is just slow.",
    blocks_points=True,
)
TIMEOUT = FlagKind(
    "timeout",
    "review",
    "the notebook ran out of time (its budget) or its kernel stopped answering: the tests it "
    "did not reach scored 0",
    "Look at the notebook for a slow or endless cell; regrade it alone if it deserves more time.",
    blocks_points=True,
)
GRADING_BUDGET = FlagKind(
    "grading_budget",
    "grade",
    "grading the submission took longer than the per-submission budget: the grader stopped "
    "there and the tests from there on scored 0",
    "Look at the notebook and regrade it alone (with a larger budget) if it deserves more time.",
    blocks_points=True,
)
EXIT = FlagKind(
    "exit",
    "review",
    "the kernel died or exited (sys.exit / os._exit, a crash, out of memory): the tests it "
    "never reached scored 0",
    "Look for the exit or the huge computation in the student's cells; grade by hand if needed.",
    tampering=True,
    blocks_points=True,
)
OUTPUT_TRUNCATED = FlagKind(
    "output_truncated",
    "info",
    "a cell printed more output than the grader stores: the rest was cut",
    "Nothing usually; look at the cell if its grade depends on the printed output.",
)
UNREADABLE_ANSWER = FlagKind(
    "unreadable_answer",
    "review",
    "the grader could not read the student's answers as plain data: those tests scored 0",
    _LOOK + " Grade by hand if the answer is right.",
    blocks_points=True,
)
LIBRARY_USE = FlagKind(
    "library_use",
    "review",
    "in an implement-it exercise the code used a finished implementation (attention_lab, "
    "scipy, torch ...): the library is not in the kernel that grades it, so that code earned "
    "what a blank earns",
    "Read the student's function; nothing to do unless the library use was allowed.",
)
NEEDS_TEACHER = FlagKind(
    "needs_teacher",
    "grade",
    "a test the grader could not run as the teacher meant (an object or a spy it cannot carry "
    "out of the student's kernel): no automatic points, the cell waits for a teacher",
    "Grade that cell in the formgrader (Manual grading); feedback waits until you do.",
    blocks_points=True,
    holds_feedback=True,
)
KERNEL_TEST = FlagKind(
    "kernel_test",
    "review",
    "a test cell the teacher marked to run in the student's kernel: the student's code could "
    "change its result",
    "Check that the student's code does not touch the test before trusting the points.",
)
REBOUND_DATA = FlagKind(
    "rebound_data",
    "review",
    "the student's code changed data a read-only cell binds, and a test read her value (as "
    "plain nbgrader does), not the teacher's",
    "Read her cell: if the change fakes what a test compares with (an expected value), "
    "regrade that test in the formgrader.",
)
OTHER_VARIANT = FlagKind(
    "other_variant",
    "review",
    "an answer is wrong for the student's own numbers but right for a classmate's variant of "
    "the question (copied, worked on the classmate's numbers, or by chance where a step has "
    "few possible values): it scored as wrong",
    "Compare the two notebooks before talking to the student; the detail names the cell and "
    "the classmate whose numbers it fits.",
    blocks_points=True,
)
SHARED_ANSWER = FlagKind(
    "shared_answer",
    "grade",
    "an answer is right on the student's own numbers and on a classmate's variant too (their "
    "numbers share that right answer: copied, or a coincidence): it kept its points",
    "Compare the two notebooks (the detail names the cell and the classmate); if it was "
    "copied, set that cell's score in the formgrader.",
)
UNSAFE_HTML = FlagKind(
    "unsafe_html",
    "review",
    "an output or written answer held script or other unsafe HTML: it is shown as its source "
    "text, so nothing runs",
    "Read what was tried in the formgrader; a written answer keeps its grade as text.",
)

# --- what was handed in (intake)
UNSAFE_FILE = FlagKind(
    "unsafe_file",
    "review",
    "a link, hard link, FIFO or device was handed in: it was moved to the quarantine, never read",
    "Look at quarantine/<student>/<assignment>/ if you need to know what it pointed at.",
)
UNEXPECTED_FILE = FlagKind(
    "unexpected_file",
    "info",
    "a file that is not the assignment's notebook or a small data file (hidden files, extra "
    "notebooks, *.html, code) was set aside",
    "Nothing, unless the student says the work was in it: it is in the quarantine folder.",
)
INVALID_NOTEBOOK = FlagKind(
    "invalid_notebook",
    "grade",
    "a notebook over the caps (size, cells, nesting) or not a notebook: refused, scored as missing",
    "Ask the student for a readable notebook, or grade the quarantined copy by hand.",
    blocks_points=True,
)
EDITED_METADATA = FlagKind(
    "edited_metadata",
    "review",
    "cell tags that change execution (skip-execution, raises-exception) were added: removed",
    _LOOK,
    tampering=True,
)
BAD_TIMESTAMP = FlagKind(
    "bad_timestamp",
    "info",
    "timestamp.txt is not a time, or is far from the exchange's time: the exchange's time (or "
    "none) was used",
    "Nothing usually; check the detail if the student disputes being late.",
)

# --- tampering (the structure check and the static scan of the student's cells)


def _tampering(kind: str, text: str) -> FlagKind:
    """Return a kind the tamper checks report: look at the cell, no score changed."""
    return FlagKind(kind, "review", text, _SCAN, tampering=True)


EDITED_TEST_CELL = _tampering(
    "edited_test_cell", "edited a test cell (restored from the gradebook)"
)
DELETED_TEST_CELL = _tampering(
    "deleted_test_cell", "deleted a test cell (restored from the gradebook)"
)
EDITED_LOCKED_CELL = _tampering(
    "edited_locked_cell", "edited or deleted a read-only cell (restored from the gradebook)"
)
MOVED_CELL = _tampering(
    "moved_cell",
    "moved a read-only or test cell out of the teacher's order (put back: graded in the "
    "teacher's order)",
)
FORGED_CELL = _tampering(
    "forged_cell", "added a cell dressed as a graded or read-only cell (made a plain cell)"
)
BUILTINS = _tampering("builtins", "redefined or shadowed builtins (assert, AssertionError, ...)")
MONKEYPATCH = _tampering(
    "monkeypatch",
    "monkeypatched numpy or the check module, or rebound a library the notebook imports",
)
SYS_MODULES = _tampering(
    "sys_modules",
    "tampered with sys.modules or the import system, or handed in a file named like a module",
)
FAKE_ANSWER = _tampering(
    "fake_answer", "handed in an object that fakes equality instead of numbers"
)
FAKE_OUTPUT = _tampering("fake_output", "printed fake 'passed' text")
TRACEBACK = _tampering("traceback", "disabled or hid tracebacks")
KERNEL_HOOK = _tampering("kernel_hook", "hooked IPython or kernel internals")
INTROSPECTION = _tampering("introspection", "used frames, gc or ctypes")
GRADING_FILES = _tampering(
    "grading_files", "referred to grading folders (source, gradebook, autograded, feedback, ...)"
)
NETWORK = _tampering("network", "opened network connections")
SUBPROCESS = _tampering("subprocess", "started other programs")

_KINDS = (
    LATE, CELL_TIMEOUT, TIMEOUT, GRADING_BUDGET, EXIT, OUTPUT_TRUNCATED, UNREADABLE_ANSWER,
    LIBRARY_USE, NEEDS_TEACHER, KERNEL_TEST, REBOUND_DATA, OTHER_VARIANT, SHARED_ANSWER,
    UNSAFE_HTML,
    UNSAFE_FILE, UNEXPECTED_FILE, INVALID_NOTEBOOK, EDITED_METADATA, BAD_TIMESTAMP,
    EDITED_TEST_CELL, DELETED_TEST_CELL, EDITED_LOCKED_CELL, MOVED_CELL, FORGED_CELL, BUILTINS,
    MONKEYPATCH, SYS_MODULES, FAKE_ANSWER, FAKE_OUTPUT, TRACEBACK, KERNEL_HOOK, INTROSPECTION,
    GRADING_FILES, NETWORK, SUBPROCESS,
)  # fmt: skip

#: id -> FlagKind, every kind the grader may emit.
REGISTRY: dict[str, FlagKind] = {kind.id: kind for kind in _KINDS}


def get(kind: str | FlagKind) -> FlagKind:
    """Return the entry of ``kind``; ValueError naming the registry when it is unknown."""
    key = kind.id if isinstance(kind, FlagKind) else kind
    try:
        return REGISTRY[key]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown flag kind {key!r}: add a FlagKind entry to "
            "autograder/attention_grader/common/flags.py (its text and what the teacher does)"
        ) from None


def tampering_kinds() -> dict[str, str]:
    """Map id -> text of every tampering kind (what :data:`~attention_grader.executor.tamper.TAMPER_KINDS` is)."""
    return {kind.id: kind.text for kind in _KINDS if kind.tampering}


@dataclass(frozen=True)
class Flag:
    """Something a teacher should look at, even though the submission was graded.

    Attributes
    ----------
    kind : str
        A registered kind's id (a :class:`FlagKind` is accepted and stored as its id); an
        unknown one raises ValueError.
    detail : str
        One line saying what and where.
    """

    kind: str
    detail: str

    if TYPE_CHECKING:
        # the generated __init__ takes a FlagKind too (``__post_init__`` stores its id); this
        # tells mypy so, while ``kind`` stays a plain str for every reader
        def __init__(self, kind: str | FlagKind, detail: str) -> None: ...

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", get(self.kind).id)
        object.__setattr__(self, "detail", str(self.detail))

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"

    @property
    def meaning(self) -> FlagKind:
        """The registry's entry for this flag's kind."""
        return REGISTRY[self.kind]


def describe(kinds: Iterable[str | FlagKind | Flag]) -> list[str]:
    """One line per distinct kind in ``kinds`` (ids or flags), with its text and action."""
    ids = dict.fromkeys(k.kind if isinstance(k, Flag) else get(k).id for k in kinds)
    return [f"{i}: {REGISTRY[i].text}. {REGISTRY[i].action}" for i in ids]
