"""Trusted checking: hidden tests run in the grader's process, never in the student's kernel.

Whatever runs in a student's kernel can be rewritten by the student's code (the check module,
the tolerances, the kernel's replies), so the autograde executor
(:class:`attention_grader.executor.execute.GradingExecute`) sends only the student's own cells and the
read-only cells to the kernel. For each autograder test cell it calls :meth:`TrustedChecker.run_test`
here, which

1. takes the test's code from the gradebook (never from the submitted notebook, whose cells the
   student controls, metadata included);
2. finds the names the test reads that the trusted namespace does not define (the answers) and
   asks the kernel for them as plain data (:class:`attention_grader.channel.answer_channel.AnswerChannel`); a
   student's function becomes a call proxy;
3. runs the test in the trusted namespace (built from the gradebook's read-only cells: ``np``,
   ``checks`` and the question's data come from the teacher, not the student), and turns what
   happened into the cell's outputs exactly as nbgrader reads them: an ``error`` output fails
   the test (its message is the check's feedback), an ``execute_result`` number is partial
   credit, nothing is full marks.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from nbformat import NotebookNode

from attention_grader.channel.answer_channel import AnswerChannel
from attention_grader.checking.cell_outputs import (
    error_output,
    finished_outputs,
    quiet_run,
    traceback_lines,
)
from attention_grader.checking.code_sinks import code_sinks, notebook_aliases
from attention_grader.checking.kernel_definitions import kernel_definitions
from attention_grader.checking.locked_names import is_data, is_plain_data, same_data
from attention_grader.checking.needs_teacher import student_output
from attention_grader.checking.trusted_cells import TrustedCells
from attention_grader.checking.trusted_scope import (
    LibraryUnavailable,
    library,
    patched_builtins,
    private_builtins,
    teacher_exception,
)
from attention_grader.common.diagnosis import CellDiagnosis, diagnosis_of
from attention_grader.wire.answer_errors import (
    CannotGrade,
    KernelGone,
    StudentCodeError,
    UnreadableAnswer,
)
from attention_grader.wire.cell_code import answer_names, parse_cell, python_code
from attention_lab import variants
from attention_lab.variants import PRACTICE, StudentSeed

if TYPE_CHECKING:
    from attention_grader.checking.classmate_table import ClassmateTable

__all__ = ["TrustedChecker"]

# --------------------------------------------------------------------------- the checker


class _AnswersUnavailable(Exception):
    """The answers a test needs could not be read from the kernel."""


class TrustedChecker:
    """Runs one notebook's tests in the grader's process, against answers read as plain data.

    Parameters
    ----------
    cells : TrustedCells
        The teacher's code, from the gradebook.
    channel : AnswerChannel
        Asks the student's kernel for answers.
    import_dirs : list of str
        Folders the teacher's cells may import helpers from (the assignment's source folder),
        never the student's submission folder.

    Attributes
    ----------
    unreadable : list of str
        ``"grade_id: why"`` for tests whose answers could not be read.
    needs_teacher : dict of str to str
        grade_id -> why the test could not be graded as the teacher meant (a teacher grades it).
    diagnoses : dict of str to CellDiagnosis
        grade_id -> the misconception a failed test's check raised (its id as data, for the
        graded cell's metadata: :mod:`attention_grader.common.diagnosis`).
    """

    def __init__(
        self, cells: TrustedCells, channel: AnswerChannel, import_dirs: Iterable[object] = ()
    ) -> None:
        self.cells = cells
        self.channel = channel
        self.import_dirs = [str(d) for d in import_dirs]
        self._sink_aliases: dict[str, str] | None = None
        self.namespace: dict[str, object] = {"__name__": "__main__", "__builtins__": builtins}
        self.unreadable: list[str] = []
        self.needs_teacher: dict[str, str] = {}
        self.diagnoses: dict[str, CellDiagnosis] = {}
        #: Data names of read-only cells her cells change (read from her kernel; set by
        #: :func:`~attention_grader.executor.notebook_checker.notebook_checker`).
        self.student_data: frozenset[str] = frozenset()
        #: Of those, the ones a test read with a value other than the teacher's (in order).
        self.rebound_data: dict[str, None] = {}
        #: Whose numbers the teacher's cells draw (:mod:`attention_lab.variants`): the student
        #: the exchange says handed in; her classmates' seeds, to name an answer fitting theirs.
        self.variant_seed: StudentSeed = PRACTICE
        self.classmate_seeds: tuple[StudentSeed, ...] = ()
        #: The names the variant cells bind (set with the seed), always the grader's values.
        self.drawn: frozenset[str] = frozenset()
        #: grade_id -> the classmates whose variants a failed test's answers fit (``other_variant``).
        self.other_variant: dict[str, tuple[StudentSeed, ...]] = {}
        #: grade_id -> the classmates whose variants a passed test's answers fit too
        #: (``shared_answer``: right on hers, and a classmate's right answer as well).
        self.shared_answer: dict[str, tuple[StudentSeed, ...]] = {}
        #: Each classmate's variant worked once per grading worker (None: tried one by one).
        self.classmate_table: ClassmateTable | None = None
        self._last_answers: dict[str, object] = {}
        self._classmate_scopes: dict[StudentSeed, dict[str, object] | None] = {}
        self._sink: list[io.StringIO] = []
        self._wrote_stderr = False  # the last code run wrote to stderr
        channel.exception_class = lambda name: teacher_exception(self.namespace, name)
        channel.handles.teacher_class = lambda name: isinstance(self.namespace.get(name), type)
        channel.stdout_sink = self._replay

    @property
    def last_answers(self) -> dict[str, object]:
        """The answers the last test read from the student's kernel (empty if none were read)."""
        return dict(self._last_answers)

    def is_test(self, grade_id: str | None) -> bool:
        return grade_id in self.cells.tests

    def is_locked(self, grade_id: str | None) -> bool:
        return grade_id in self.cells.locked

    def _replay(self, text: str) -> None:
        """Pass a student's printing to the test only where the test redirected stdout itself.

        Printed to the cell's own output it would show in the student's feedback.
        """
        if self._sink and sys.stdout is not self._sink[-1]:
            sys.stdout.write(text)

    def _needed(self, source: str) -> list[str]:
        """Return the names the test reads that the student's kernel is asked for.

        A name a read-only cell binds is the teacher's and is never asked for (a moved or
        failed read-only cell must not let the student's binding stand in), except data her
        own cells change (:attr:`student_data`: plain nbgrader tests her value).
        """
        names = set(answer_names(source))
        tree = parse_cell(source)
        if tree is not None:  # a student's name the test also rebinds is still read first
            names |= {
                n.id
                for n in ast.walk(tree)
                if isinstance(n, ast.Name) and n.id in self.cells.answers
            }
        needed = []
        for name in sorted(names):
            if name in self.student_data:
                needed.append(name)
            elif name in self.namespace or hasattr(builtins, name):
                continue
            elif name in self.cells.locked_names and name not in self.cells.answers:
                raise CannotGrade(
                    f"`{name}`, which a read-only cell binds, is not defined in the grader "
                    "(that cell failed there): the grader never asks the student's kernel for it"
                )
            else:
                needed.append(name)
        return needed

    def _answers(self, needed: list[str], read: set[str] | None = None) -> dict[str, object]:
        """Return the test's answers: libraries from the grader, the rest from the student's kernel.

        ``read``: the names the test reads before defining them itself (a placeholder arriving
        for one of those is used by the test; one it imports itself is replaced).
        """
        libraries = {n: self.cells.libraries[n] for n in needed if n in self.cells.libraries}
        found: dict[str, object] = {}
        for name, path in libraries.items():
            try:
                found[name] = library(path)
            except LibraryUnavailable as exc:
                raise CannotGrade(f"{exc} (the notebook imports it as `{name}`)") from None
        try:
            found.update(self.channel.get([n for n in needed if n not in libraries], read))
        except (UnreadableAnswer, StudentCodeError) as exc:
            raise _AnswersUnavailable(str(exc)) from None
        for name in sorted(self.student_data & found.keys()):
            if not is_plain_data(found[name]) and not is_data(self.namespace.get(name)):
                del found[name]  # neither is data (a DataFrame): the teacher's, never a handle
                continue
            self._check_student_data(name, found[name])
        return found

    def _check_student_data(self, name: str, value: object) -> None:
        """Her value of a read-only cell's data must be data; note when it is not the teacher's."""
        if not is_plain_data(value):
            raise CannotGrade(
                f"the student's code rebinds `{name}`, which a read-only cell binds, to "
                f"something that is not plain data (a {type(value).__name__}): the grader "
                "reads only data for it"
            )
        if name in self.namespace and not same_data(value, self.namespace[name]):
            self.rebound_data.setdefault(name, None)

    def _run(self, source: str, label: str, follow: bool = True) -> tuple[str, object]:
        """Run ``source`` in the trusted namespace with the student's answers it reads.

        ``follow``: a student's name the code deletes or rebinds is deleted or rebound in the
        kernel too (tests; read-only cells run in the kernel themselves).
        Returns ``(stdout, last expression value)``; raises what the code raised.
        """
        from attention_grader.channel.kernel_bindings import BIND, UNBIND, bind_in_kernel

        tree = ast.parse(python_code(source))
        if follow:
            tree = bind_in_kernel(tree, set(self.cells.answers))
        answers = self._answers(self._needed(source), set(answer_names(source)))
        self._last_answers = answers
        scope = dict(self.namespace)
        scope.update(answers)
        scope[BIND], scope[UNBIND] = self.channel.bind, self.channel.unbind
        own_builtins = private_builtins()
        scope["__builtins__"] = own_builtins.__dict__
        last = (
            cast(ast.Expr, tree.body.pop())
            if tree.body and isinstance(tree.body[-1], ast.Expr)
            else None
        )
        out, err = io.StringIO(), io.StringIO()
        self._sink.append(out)
        try:
            with quiet_run(out, err, self.import_dirs), variants.graded_as(self.variant_seed):
                exec(compile(tree, label, "exec"), scope)  # noqa: S102 -- the teacher's code
                value = None
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), label, "eval"), scope)  # noqa: S307
        finally:
            self._sink.pop()
            self._wrote_stderr = bool(err.getvalue())
            patched = patched_builtins(own_builtins)
            if patched:
                self.channel.uncarried.append(
                    f"the test patches {', '.join(patched)}, which the student's code in the "
                    "kernel does not see"
                )
            for key, val in scope.items():  # what the teacher's code defined stays
                if key in ("__builtins__", BIND, UNBIND):
                    continue
                if key not in answers or answers[key] is not val:
                    self.namespace[key] = val
        return out.getvalue(), value

    def _aliases(self) -> dict[str, str]:
        if self._sink_aliases is None:
            self._sink_aliases = notebook_aliases(self.cells)
        return self._sink_aliases

    def run_locked(self, grade_id: str) -> str | None:
        """Run a read-only cell's code here too; return why it failed, or None."""
        source = self.cells.locked[grade_id]
        sinks = code_sinks(source, self.cells.answers, self._aliases())
        if sinks:
            return "; ".join(sinks)
        try:
            self._run(source, f"<read-only cell {grade_id}>", follow=False)
        except KernelGone:
            raise
        except BaseException as exc:  # noqa: BLE001 -- reported to the teacher, never fatal
            if isinstance(exc, KeyboardInterrupt | MemoryError):  # MemoryError: grader_memory_mb
                raise
            return f"{type(exc).__name__}: {exc}"[:300]
        return None

    def run_test(self, grade_id: str) -> list[NotebookNode]:
        """Run one test; return the outputs nbgrader grades it by.

        A test that touched what could not be carried, or whose style trusted checking cannot
        follow (:func:`~attention_grader.checking.test_styles.uncarried_styles`), is recorded in
        :attr:`needs_teacher`; if it failed, its output says a teacher will grade it.

        Raises :class:`~attention_grader.wire.answer_errors.KernelGone` when the kernel died while its
        answers were read (the executor then stops the notebook).
        """
        from attention_grader.checking.test_styles import uncarried_styles

        source = self.cells.tests[grade_id]
        del self.channel.uncarried[:]  # one list: figure snapshots note what they lack in it
        del self.channel.untrusted[:]
        del self.channel.stderr[:]
        self.channel.handle_ops = 0
        styles = uncarried_styles(source, set(self.cells.answers))
        self.diagnoses.pop(grade_id, None)
        sinks = code_sinks(source, self.cells.answers, self._aliases())
        if sinks:  # never run here: a student's string would run as the grader
            self.needs_teacher[grade_id] = "; ".join(dict.fromkeys(styles + sinks))
            return [student_output()]
        self._last_answers = {}
        outputs = self._outputs(grade_id, source)
        self._define_in_kernel(source)
        untrusted = list(self.channel.untrusted)  # a placeholder used: pass or fail says nothing
        causes = list(dict.fromkeys(styles + untrusted + self.channel.uncarried))
        failed = any(o.output_type == "error" for o in outputs)
        if styles or untrusted or (causes and failed):
            # No automatic points either way: the result says nothing about the student.
            self.needs_teacher[grade_id] = "; ".join(causes)
            self.diagnoses.pop(grade_id, None)
            return [student_output()]
        # A wrong answer her own numbers explain (a misconception) is hers; one they do not is
        # tried on her classmates' (with small whole numbers a known mistake on hers can
        # happen to equal a classmate's right answer: the accuracy class of 26 showed it).
        if failed and self.classmate_seeds and grade_id not in self.diagnoses:
            self._match_classmates(grade_id, source, self.other_variant)
        # A right answer that is a classmate's right answer too (their numbers share it, e.g.
        # scores shifted by one constant share their weights) keeps its points, noted.
        elif not failed and self.classmate_seeds and self.drawn & set(answer_names(source)):
            self._match_classmates(grade_id, source, self.shared_answer)
        return outputs

    def _match_classmates(
        self, grade_id: str, source: str, into: dict[str, tuple[StudentSeed, ...]]
    ) -> None:
        """Note in ``into`` the classmates whose variant the test's answers fit."""
        from attention_grader.checking.variant_grading import classmate_match

        table = self.classmate_table
        if table is not None and not self._classmate_scopes:
            self._classmate_scopes.update(table.scopes)
        with quiet_run(io.StringIO(), io.StringIO(), self.import_dirs):
            match = classmate_match(
                self.cells.locked,
                source,
                self._last_answers,
                self.classmate_seeds,
                self._classmate_scopes,
                None if table is None else table.right,
            )
        if match:
            into[grade_id] = match

    def _define_in_kernel(self, source: str) -> None:
        """Define the test's imports and plain definitions in the kernel, as nbgrader would."""
        code = kernel_definitions(source, self.cells.answers)
        if code:  # an error is the test's own, as in nbgrader; a dead kernel is seen by the caller
            with contextlib.suppress(KernelGone, UnreadableAnswer, StudentCodeError):
                self.channel.request({"op": "define", "source": code})

    def _outputs(self, grade_id: str, source: str) -> list[NotebookNode]:
        cut = self.channel.limits.max_output_chars
        try:
            stdout, value = self._run(source, f"<test {grade_id}>")
        except KernelGone:
            raise
        except _AnswersUnavailable as exc:
            self.unreadable.append(f"{grade_id}: {exc}")
            text = f"the grader could not read your answers for this test ({exc})"
            return [error_output("UnreadableAnswer", text, cut)]
        except KeyboardInterrupt:
            raise
        except CannotGrade as exc:
            if exc.cause not in self.channel.uncarried:
                self.channel.uncarried.append(exc.cause)
            return [error_output("CannotGrade", exc.cause, cut)]
        except StudentCodeError as exc:  # the student's function raised, uncaught by the test
            return [error_output(exc.ename, exc.message, cut)]
        except MemoryError:  # grader_memory_mb: the child stops there, never a failed test
            raise
        except BaseException as exc:  # noqa: BLE001 -- a failed test, whatever it raised
            diagnosis = diagnosis_of(exc)
            if diagnosis is not None:
                self.diagnoses[grade_id] = diagnosis
            return [error_output(type(exc).__name__, str(exc), cut, traceback_lines(exc, cut))]
        # As in nbgrader, a test cell with stderr output earns nothing. Said, not shown: her
        # code could print the test's hidden inputs there, the test its expected values.
        stderr = [*(["your code wrote to stderr during this test\n"] if self.channel.stderr else []),
                  *(["the test wrote to stderr\n"] if self._wrote_stderr else [])]  # fmt: skip
        return finished_outputs("".join(stderr), stdout, value, cut)
