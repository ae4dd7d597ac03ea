"""The autograde executor: student cells in a sandboxed kernel, tests in the grader.

:class:`GradingExecute` replaces nbgrader's ``Execute`` in the course's autograde pipeline
(:func:`attention_grader.pipeline.configure`). For each cell of the sanitised notebook:

* a student's cell runs in the student's kernel (sandboxed by
  :class:`~attention_grader.sandbox.sandbox.SandboxedKernelManager`);
* a read-only cell (imports, the question's data) runs in the kernel *and* in the trusted
  namespace, both from the gradebook's source;
* an autograder test cell never reaches the kernel: :class:`~attention_grader.checking.trusted.TrustedChecker`
  runs it in this process against the answers read as plain data, and writes its outputs.

It keeps a time budget per notebook and submission (a child process the grader kills, started
ahead: :mod:`~attention_grader.executor.budget`); a kernel that dies or stops answering fails only
the tests it did not reach; outputs are capped as they stream (``executor.output_caps``).
"""

from __future__ import annotations

from time import monotonic
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat import NotebookNode
from nbformat.v4 import new_code_cell
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer

from attention_grader.checking.trusted import TrustedChecker
from attention_grader.checking.trusted_cells import TrustedCells
from attention_grader.common.diagnosis import record_diagnosis
from attention_grader.common.flag_store import record_flags
from attention_grader.common.flags import GRADER_METADATA
from attention_grader.executor.ahead import adopt, take
from attention_grader.executor.budget import Reporter, limit_memory, run_within
from attention_grader.executor.execution_stops import (
    KERNEL_DIED,
    KERNEL_UNRESPONSIVE,
    StopState,
    stop_at_budget,
)
from attention_grader.executor.flood_stop import FloodStop
from attention_grader.executor.grading_walls import grading_refusal
from attention_grader.executor.notebook_checker import (
    NotebookChecker,
    keep_teacher_side,
    notebook_checker,
)
from attention_grader.executor.output_caps import (
    CAP_MARKER,
    OutputCaps,
    OutputMeter,
    reconnect_output,
)
from attention_grader.executor.variant_cells import record_test_variant, show_variant
from attention_grader.sandbox.sandbox import SandboxedKernelManager, reap_kernel_folders
from attention_grader.wire.answer_errors import KernelGone
from attention_grader.wire.kernel_client import CappedKernelClient

__all__ = ["LOCKED_FAILED", "GradingExecute", "KernelStartError"]

#: Where the grader's code reports a read-only cell that failed in the grader (cell metadata;
#: the release check reads it).
LOCKED_FAILED = "locked_failed"


class KernelStartError(RuntimeError):
    """The sandboxed kernel could not start; the message says why (its own last words)."""


class GradingExecute(Execute):
    """nbgrader's Execute with trusted tests, a notebook time budget and streaming output caps."""

    notebook_timeout = Integer(300, help="Seconds one notebook may run in total (0 = none).").tag(
        config=True
    )
    sandbox_kernels = Bool(
        True,
        help="Start kernels with SandboxedKernelManager (nbgrader's Execute forces "
        "AsyncKernelManager, so kernel_manager_class set in config alone has no effect).",
    ).tag(config=True)
    max_cell_output_bytes = Integer(
        10 * 2**20, help="Output a cell may print before the grader stops storing it."
    ).tag(config=True)
    max_notebook_output_bytes = Integer(
        50 * 2**20, help="Output a whole notebook may print before the grader stops storing it."
    ).tag(config=True)
    drain_timeout = Integer(
        30, help="Seconds to wait for the rest of a flood once a cell's output is cut."
    ).tag(config=True)
    print_protections = Bool(
        True, help="Log the sandbox protections report when the first kernel starts."
    ).tag(config=True)
    grader_memory_mb = Integer(
        4096,
        help="Memory (MiB of data: heap and private mappings, RLIMIT_DATA) the grader's child "
        "process may take for one notebook, on top of what it shares with the grader when it "
        "starts: reading answers, the stand-ins of a student's objects, the checks (0 = no "
        "limit). Past it the child stops, the tests not yet graded score 0 and the submission "
        "is flagged grading_budget; the rest of the class is graded.",
    ).tag(config=True)
    submission_budget = Integer(
        400,
        help="Wall-clock seconds the grader may spend on one submission: the student's cells, "
        "reading their answers and running the checks (0 = no budget). The notebook's grading "
        "runs in a child process the grader kills when the budget is spent; the tests not yet "
        "graded score 0 and the submission is flagged grading_budget, and the rest of the class "
        "is graded. Keep it above notebook_timeout, which bounds the student's cells alone.",
    ).tag(config=True)
    start_kernel_ahead = Bool(
        True,
        help="make grade: start a submission's sandboxed kernel as soon as nbgrader picks the "
        "submission, while it copies and sanitises her notebook (the kernel gets her files only "
        "when her notebook is graded, and serves that notebook alone); False starts it then.",
    ).tag(config=True)

    _reported = False
    _refusal: str | None = None  # why grading must not start here (a pod without the sandbox)
    _wall_refusal: str | None = None  # why students' code must not run here (walls off)
    #: Whether the notebook is a student's (the release check grades the teacher's own source,
    #: which may run without the sandbox's walls).
    students_code = True
    #: The teacher's cells, when given directly (the release check grades a source notebook
    #: before any gradebook has it); otherwise read from the gradebook.
    trusted_cells: TrustedCells | None = None
    # nbclient's traits, annotated for mypy (nbgrader's Execute, their base here, is untyped);
    # a bare annotation sets nothing at run time
    kernel_manager_class: Any
    iopub_timeout: float
    #: this notebook's checker (None: no tests), output meter and stop state (set per notebook)
    _notebook: NotebookChecker | None = None
    _meter: OutputMeter
    _flood: FloodStop  # this cell's interrupt, once its output is cut
    _stops: StopState
    #: (assignment, student) -> (when grading its first notebook started, notebooks seen)
    _submission_started: dict[tuple[object, object], tuple[float, set[object]]] = {}
    _reporter: Reporter | None = None  # in the budget's child: where each finished cell is reported
    _ahead: Any = None  # in a child forked ahead: (its plan, the kernel it started)
    _adopted: Any = None  # that kernel, when it is the one this notebook needs

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # A graded kernel's state is thrown away: kill it rather than wait for a graceful shutdown.
        kwargs.setdefault("shutdown_kernel", "immediate")
        super().__init__(*args, **kwargs)
        manager = self.kernel_manager_class
        if self.sandbox_kernels and not (
            isinstance(manager, type) and issubclass(manager, SandboxedKernelManager)
        ):
            self.kernel_manager_class = SandboxedKernelManager

    # -- kernel set-up ------------------------------------------------------------------------

    def create_kernel_manager(self) -> Any:  # a jupyter_client KernelManager
        km, self._adopted = self._adopted, None
        if km is not None:  # started ahead for this notebook; nbclient sees it has a kernel
            self._started_km = km
            return km
        km = super().create_kernel_manager()
        km.client_factory = CappedKernelClient
        if isinstance(km, SandboxedKernelManager):
            km.hide_library = self._notebook is not None and self._notebook.hide_library
            # Her cells draw her own numbers in the kernel, as on her server (variant_grading).
            km.variant_seed = self._notebook.variant_seed if self._notebook is not None else ""
        self._started_km = km  # nbclient forgets it on cleanup; its log says why a start failed
        return km

    def _report_protections(self) -> None:
        """Refuse before any kernel starts where grading must not (logs the protections once)."""
        refusal = grading_refusal(self, GradingExecute)
        if refusal:
            raise KernelStartError(refusal)

    # -- the notebook -------------------------------------------------------------------------

    def preprocess(
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, km: Any = None
    ) -> tuple[NotebookNode, dict[str, Any] | None]:
        """Grade one notebook, in a child process the submission's budget bounds."""
        self._report_protections()
        left = self._budget_left(resources)
        if left is None or self._reporter is not None:
            return self._preprocess(nb, resources, km)
        if self.trusted_cells is None:  # read once per worker: the child that grades inherits it
            keep_teacher_side(resources, self.config, self.log, self.submission_budget)

        def work(reporter: Reporter) -> NotebookNode:
            return self._in_child(nb, resources, km, reporter)

        outcome = run_within(left, work, self.log, take(resources), (nb, resources))
        if outcome.result is not None:  # not over budget
            return outcome.result, resources
        reap_kernel_folders(self.config)  # the killed child's kernel folder
        name = (resources or {}).get("nbgrader", {}).get("notebook") or "notebook"
        memory = self.grader_memory_mb if outcome.out_of_memory else None
        stopped = stop_at_budget(nb, outcome.cells, self.submission_budget, name, memory)
        return stopped, resources

    def _budget_left(self, resources: dict[str, Any] | None) -> float | None:
        """Seconds left of this submission's budget (its notebooks share it), or None."""
        if not self.submission_budget:
            return None
        info = (resources or {}).get("nbgrader", {})
        key, notebook = (info.get("assignment"), info.get("student")), info.get("notebook")
        start, seen = GradingExecute._submission_started.get(key, (0.0, set()))
        if key == (None, None) or not seen or notebook in seen:  # a new grading of it
            start, seen = monotonic(), set()
        GradingExecute._submission_started = {key: (start, seen | {notebook})}
        return self.submission_budget - (monotonic() - start)

    def _in_child(
        self, nb: NotebookNode, resources: dict[str, Any] | None, km: Any, reporter: Reporter
    ) -> NotebookNode:
        self._reporter = reporter
        limit_memory(self.grader_memory_mb)
        nb, _ = self._preprocess(nb, resources, km)
        return nb

    def _preprocess(
        self, nb: NotebookNode, resources: dict[str, Any] | None = None, km: Any = None
    ) -> tuple[NotebookNode, dict[str, Any] | None]:
        self._stops = StopState.starting(self.notebook_timeout)
        self._meter = OutputMeter(
            OutputCaps(self.max_cell_output_bytes, self.max_notebook_output_bytes)
        )
        self._iopub_timeout = self.iopub_timeout
        self._fresh_cell()
        self._kernel_graded: list[str] = []
        self._notebook = None  # the kernel manager reads it: no stale one if the next raises
        self._notebook = notebook_checker(
            nb, resources, self.trusted_cells, self._run_request, self.config, self.log
        )
        try:
            self._adopted = adopt(self, nb, resources)  # a failure is a kernel's, said below
            graded: tuple[NotebookNode, dict[str, Any] | None] = super().preprocess(
                nb, resources, km
            )
            return graded
        except DeadKernelError:
            # Raised by nbclient's cleanup/info request when the kernel is gone before cell 0.
            self._stop(KERNEL_DIED, -1)
            for cell in nb.cells:
                self._stops.mark(cell)
            return nb, resources
        except (RuntimeError, TimeoutError) as exc:
            if getattr(self, "code_cells_executed", 0):
                raise
            km = getattr(self, "_started_km", None)
            why = getattr(km, "kernel_log_tail", lambda: "")() or str(exc)
            raise KernelStartError(f"the student's kernel could not start: {why}") from exc
        finally:
            self._record_findings(nb, resources)

    @property
    def _trusted(self) -> TrustedChecker | None:
        return self._notebook.checker if self._notebook else None

    def _record_findings(self, nb: NotebookNode, resources: dict[str, Any] | None) -> None:
        name = (resources or {}).get("nbgrader", {}).get("notebook") or "notebook"
        # The limit that really applied (``--cell-timeout`` may differ from the course config),
        # so the feedback page's "ran longer than N s" tells the student the truth.
        nb.metadata.setdefault(GRADER_METADATA, {})["cell_timeout"] = self.timeout
        flags = self._stops.flags(nb, name) + self._meter.flags(nb, name)
        if self._notebook is not None:
            flags += self._notebook.record(nb, name, self._kernel_graded)
        record_flags(flags, notebook=nb)

    def _get_timeout(self, cell: NotebookNode) -> int | None:
        return self._stops.cell_timeout(super()._get_timeout(cell))

    def preprocess_cell(
        self, cell: NotebookNode, resources: dict[str, Any], index: int
    ) -> tuple[NotebookNode, dict[str, Any]]:
        cell, resources = self._preprocess_cell(cell, resources, index)
        if self._reporter is not None:  # the budget's parent keeps what is finished
            if index == 0:
                self._reporter.kernel(getattr(getattr(self.km, "provisioner", None), "pid", None))
            self._reporter.cell(index, cell)
        return cell, resources

    def _preprocess_cell(
        self, cell: NotebookNode, resources: dict[str, Any], index: int
    ) -> tuple[NotebookNode, dict[str, Any]]:
        if self._stops.not_reached(cell, index, self.log):
            return cell, self.resources
        try:
            return self._run_cell(cell, resources, index)
        except (DeadKernelError, KernelGone):
            self._stop(KERNEL_DIED, index)
        except CellTimeoutError as exc:
            if "IOPub" in str(exc):
                # The reply came but not all of its output: a message over the size cap was
                # refused (ZeroMQ then drops the connection), or the kernel's own output
                # machinery was broken by the student's code. The kernel still answers, so
                # grading goes on with a fresh output connection; the cell keeps what arrived.
                self._meter.lost.append(index)
                reconnect_output(self.kc)
                return cell, self.resources
            self._stop(KERNEL_UNRESPONSIVE, index)
        self._stops.mark(cell)
        return cell, self.resources

    def _run_cell(
        self, cell: NotebookNode, resources: dict[str, Any], index: int
    ) -> tuple[NotebookNode, dict[str, Any]]:
        """Run one cell: a test in the grader (or, the teacher's mark, in the kernel).

        Any other cell the kernel runs; a read-only cell then runs in the grader too.
        """
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        checker = self._trusted
        if checker is not None and checker.is_test(grade_id):
            if self._notebook is not None and grade_id in self._notebook.kernel_tests:
                cell.source = checker.cells.tests[grade_id]  # the gradebook's, as nbgrader runs it
                self._fresh_cell()
                self._kernel_graded.append(grade_id)
                ran: tuple[NotebookNode, dict[str, Any]] = super().preprocess_cell(
                    cell, resources, index
                )
                return ran
            if cell.cell_type == "code":
                return self._trusted_test(cell, index, grade_id)
        self._fresh_cell()
        cell, resources = super().preprocess_cell(cell, resources, index)
        if any(o.get("ename") == "CellTimeoutError" for o in cell.get("outputs", [])):
            self._stops.cell_timeouts.append(index)
        if checker is not None and cell.cell_type == "code" and checker.is_locked(grade_id):
            self._index = index
            failed = checker.run_locked(grade_id)
            if not failed and not checker.variant_seed.practice:
                show_variant(cell, checker, grade_id)
            if failed:
                self.log.warning("read-only cell %s failed in the grader: %s", grade_id, failed)
                if not self.students_code:  # the release check says why its tests then fail
                    cell.metadata.setdefault(GRADER_METADATA, {})[LOCKED_FAILED] = failed
        return cell, resources

    def _trusted_test(
        self, cell: NotebookNode, index: int, grade_id: str
    ) -> tuple[NotebookNode, dict[str, Any]]:
        """Run a hidden test in this process against the answers read from the kernel."""
        self._index = index
        assert self._trusted is not None, "a test cell is only known to a checker"
        cell.outputs = self._trusted.run_test(grade_id)
        record_diagnosis(cell, self._trusted.diagnoses.get(grade_id))
        record_test_variant(cell, self._trusted, grade_id)
        cell.execution_count = None
        if self._trusted.channel.broken:  # the kernel died inside a student's function
            self._stop(KERNEL_DIED, index)
        return cell, self.resources

    def _run_request(self, source: str) -> list[NotebookNode]:
        """Run one hidden request (answer channel) in the kernel; return its outputs."""
        request = new_code_cell(source)
        keep = self.nb.cells[self._index]
        self._fresh_cell()
        self._meter.requesting = True
        try:
            self.execute_cell(request, self._index, store_history=False)
        except CellTimeoutError as exc:
            if "IOPub" not in str(exc):
                raise KernelGone("the kernel stopped responding") from None
            reconnect_output(self.kc)  # the answer was lost with the output: no answer
            return []
        except DeadKernelError:
            raise KernelGone("the kernel died") from None
        finally:
            self._meter.requesting = False
            self.nb.cells[self._index] = keep  # execute_cell stores the cell it ran
        outputs: list[NotebookNode] = request.outputs
        return outputs

    # -- output caps --------------------------------------------------------------------------

    def _fresh_cell(self) -> None:
        self._meter.fresh_cell()
        self._flood = FloodStop(self.drain_timeout, self.log)
        self.iopub_timeout = self._iopub_timeout

    def output(
        self, outs: list[NotebookNode], msg: dict[str, Any], display_id: str | None, cell_index: int
    ) -> NotebookNode | None:
        if self._meter.keeps(msg.get("content", {})):
            kept: NotebookNode | None = super().output(outs, msg, display_id, cell_index)
            return kept
        if self._meter.cut(cell_index):
            # The flood already sent is still arriving: give it time to drain (it is discarded).
            self.iopub_timeout = max(self.iopub_timeout, self.drain_timeout)
            outs.append(NotebookNode(output_type="stream", name="stdout", text=CAP_MARKER))
            self._flood.interrupt(self.kc)  # stop the flood at its source
        return None

    async def _async_poll_for_reply(
        self, msg_id: str, cell: NotebookNode, timeout: int | None, output: Any, alive: Any
    ) -> dict[str, Any]:
        poll = super()._async_poll_for_reply(msg_id, cell, timeout, output, alive)
        return await self._flood.reply(poll, output, alive, msg_id)

    def _stop(self, kind: str, index: int) -> None:
        self._stops.stop(kind, index, self.log)
