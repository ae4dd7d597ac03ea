"""A submission's kernel started ahead, while nbgrader still prepares her notebook.

In a ``make grade`` worker, grading one submission is a chain: nbgrader's bookkeeping (the
student's rows, her files copied, the sanitise pass), then the budget's child
(:mod:`attention_grader.executor.budget`) starts her sandboxed kernel and waits for it to boot,
then her cells run. The kernel's boot is mostly waiting, and it waited behind the bookkeeping.
Here the budget's child is forked as soon as nbgrader has decided to grade the submission
(:func:`start_ahead`, from the worker's converter): it starts her kernel at once and waits; when
grading reaches her notebook, :class:`~attention_grader.executor.execute.GradingExecute` hands it
the sanitised notebook (:func:`take`) and it grades as a child forked then would.

A kernel started ahead serves one notebook of one student and nothing else:

* it is started for that student (her variant seed, the notebook's library setting, from the
  teacher's side and the id the system gives), with an **empty** working folder: her files are
  copied in when her notebook is graded (:func:`adopt`), from the folder nbgrader prepared, exactly
  as a kernel started then gets them; no cell runs before that;
* :func:`take` hands it over only for the same student, assignment, notebook and folder, and
  :func:`adopt` uses it only if the kernel the notebook needs is the one started (kernel name,
  library hidden or not, variant seed); otherwise it is stopped and a fresh kernel is started;
* it is used once: taken, it is gone; one not taken is stopped (:func:`discard`, after each
  submission); one that could not start, or died, is never handed the notebook (a fresh child
  grades it, and says why a kernel cannot start).
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from jupyter_core.utils import run_sync
from traitlets.utils.importstring import import_item

from attention_grader.executor.budget import ForkedAhead, Reporter
from attention_grader.executor.notebook_checker import (
    keep_teacher_side,
    kernel_seed,
    library_hidden,
    teacher_side,
)
from attention_grader.sandbox.sandbox import SandboxedKernelManager
from attention_grader.wire.kernel_client import CappedKernelClient

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["AheadExecutor", "KernelPlan", "adopt", "discard", "start_ahead", "take"]


class AheadExecutor(Protocol):
    """What a kernel started ahead needs of the course's executor.

    :class:`~attention_grader.executor.execute.GradingExecute` is one (its traits say what each
    does); named here so that this module, which the executor imports, imports nothing of it.
    """

    _ahead: Any
    _notebook: Any
    kernel_name: Any
    km: Any
    resources: Any
    kernel_manager_class: Any
    submission_budget: Any
    log: Any
    config: Any
    start_kernel_ahead: Any

    def async_start_new_kernel(self, **kwargs: Any) -> Any: ...

    def _in_child(
        self, nb: NotebookNode, resources: Any, budget: Any, reporter: Reporter
    ) -> Any: ...

    def _report_protections(self) -> None: ...


@dataclass(frozen=True)
class KernelPlan:
    """Whose notebook a kernel started ahead is for, and how it was started.

    Attributes
    ----------
    student, assignment, notebook : str
        The submission and notebook it serves (the student's id is the system's).
    folder : str
        Where nbgrader grades the notebook (``autograded/<student>/<assignment>``): the kernel's
        working folder inside the sandbox, filled from it when she is graded.
    kernel_name : str
        The kernel spec started.
    hide_library : bool
        An implement-it notebook: the library is hidden from the kernel.
    variant_seed : str
        Her variant seed, as her kernel gets it.
    """

    student: str
    assignment: str
    notebook: str
    folder: str
    kernel_name: str
    hide_library: bool
    variant_seed: str

    def serves(self, info: dict[str, Any], folder: str | None) -> bool:
        """Whether this is the kernel of the notebook ``info`` names, graded in ``folder``."""
        wanted = (info.get("student"), info.get("assignment"), info.get("notebook"))
        same = (self.student, self.assignment, self.notebook) == wanted
        return same and bool(folder) and _same_path(self.folder, str(folder))


#: This process's kernel started ahead, if any (at most one).
_AHEAD: list[tuple[KernelPlan, ForkedAhead[Any]]] = []


def start_ahead(converter: Any, assignment: str, student: str) -> None:
    """Start the kernel of the first notebook ``converter`` will grade for ``student``.

    Called by a ``make grade`` worker's converter once nbgrader decided to grade the
    submission, before it copies her files. Does nothing when the course's executor starts
    no sandboxed kernel, when grading would refuse to start one, or when anything the kernel
    needs cannot be read (the notebook's own grading then starts its kernel, or says why not).
    """
    discard()
    executor = _executor(converter)
    notebooks = sorted(getattr(converter, "notebooks", []) or [])
    if executor is None or not notebooks:
        return
    notebook = os.path.splitext(os.path.basename(notebooks[0]))[0]
    folder = os.path.normpath(converter._format_dest(assignment, student))
    try:
        executor._report_protections()  # a refusal comes before any kernel starts
        plan = _plan(executor, converter, assignment, student, notebook, folder)
    except Exception as exc:  # noqa: BLE001 -- the notebook's own grading reports it
        executor.log.debug("no kernel started ahead for %s: %s", student, exc)
        return
    if plan is None:
        return
    prepare = functools.partial(_start_kernel, executor, plan)
    finish = functools.partial(_grade, executor)
    _AHEAD.append((plan, ForkedAhead(prepare, finish, _stop_kernel, executor.log)))


def take(resources: dict[str, Any] | None) -> ForkedAhead[Any] | None:
    """Return the child started ahead for the notebook ``resources`` name (once), else None.

    Any other kernel started ahead is stopped: it never grades another notebook.
    """
    if not _AHEAD:
        return None
    plan, ahead = _AHEAD.pop()
    resources = resources or {}
    if plan.serves(resources.get("nbgrader", {}), resources.get("metadata", {}).get("path")):
        return ahead
    ahead.stop()
    return None


def discard() -> None:
    """Stop the kernel started ahead that no notebook took (the submission is done)."""
    while _AHEAD:
        _AHEAD.pop()[1].stop()


def adopt(executor: AheadExecutor, nb: NotebookNode, resources: dict[str, Any] | None) -> Any:
    """In the grading child: the kernel started ahead, with her files copied in, or None.

    None (the kernel stopped) unless it was started as this notebook needs: its kernel spec,
    library hidden or not, variant seed, folder. The caller starts a fresh kernel then.
    """
    found = executor._ahead
    executor._ahead = None
    if found is None:
        return None
    plan, km = found
    checker = executor._notebook
    info = (resources or {}).get("nbgrader", {})
    folder = (resources or {}).get("metadata", {}).get("path")
    name = executor.kernel_name or nb.metadata.get("kernelspec", {}).get("name") or ""
    wanted = (
        checker is not None
        and plan.serves(info, folder)
        and (name, checker.hide_library, checker.variant_seed)
        == (plan.kernel_name, plan.hide_library, plan.variant_seed)
    )
    if wanted:
        try:
            km.fill_work()  # her files, as nbgrader prepared them; no cell has run yet
        except BaseException:
            _stop_kernel(found)
            raise
        executor.kernel_name = plan.kernel_name
        return km
    executor.log.info("the kernel started ahead does not fit %s: starting another", plan.notebook)
    _stop_kernel(found)
    return None


# ------------------------------------------------------------------------------- in the worker


def _executor(converter: Any) -> AheadExecutor | None:
    """Return the course's executor built as the pipeline builds it, if it starts sandboxed kernels."""
    for step in converter.autograde_preprocessors:
        cls = import_item(step) if isinstance(step, str) else step
        if isinstance(cls, type) and _starts_kernels_ahead(cls):
            executor: AheadExecutor = cls(parent=converter.exporter)
            manager = executor.kernel_manager_class
            sandboxed = isinstance(manager, type) and issubclass(manager, SandboxedKernelManager)
            return executor if executor.start_kernel_ahead and sandboxed else None
    return None


def _starts_kernels_ahead(cls: type) -> bool:
    """Whether a preprocessor class is the grader's executor (it has the setting)."""
    names = getattr(cls, "class_trait_names", None)
    return callable(names) and "start_kernel_ahead" in names()


def _plan(
    executor: AheadExecutor,
    converter: Any,
    assignment: str,
    student: str,
    notebook: str,
    folder: str,
) -> KernelPlan | None:
    info = {"db_url": converter.coursedir.db_url, "assignment": assignment, "notebook": notebook}
    source, cells = teacher_side(info, executor.config, executor.log)
    budget = executor.submission_budget  # the classmates' table: see keep_teacher_side
    keep_teacher_side({"nbgrader": info}, executor.config, executor.log, budget)
    spec = (source.metadata.get("kernelspec", {}) if source is not None else {}) or {}
    name = executor.kernel_name or spec.get("name") or ""
    if not name:
        return None
    hide = library_hidden(cells, info, executor.config)
    seed = kernel_seed(cells, student, executor.config)
    return KernelPlan(student, assignment, notebook, folder, name, hide, seed)


def _same_path(a: str, b: str) -> bool:
    return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))


# --------------------------------------------------------------------------- in the child


def _start_kernel(
    executor: AheadExecutor, plan: KernelPlan, reporter: Reporter
) -> tuple[KernelPlan, Any]:
    """Start the plan's kernel, its working folder empty; return the plan and its manager."""
    km = executor.kernel_manager_class(kernel_name=plan.kernel_name, config=executor.config)
    km.client_factory = CappedKernelClient
    km.hide_library, km.variant_seed, km.work_later = plan.hide_library, plan.variant_seed, True
    executor.km = km
    executor.resources = {"metadata": {"path": plan.folder}}
    try:
        run_sync(executor.async_start_new_kernel)()  # nbclient's own start: its arguments
    finally:
        executor.km = None
    reporter.kernel(getattr(km.provisioner, "pid", None))
    return plan, km


def _grade(
    executor: AheadExecutor, started: tuple[KernelPlan, Any], payload: Any, reporter: Reporter
) -> Any:
    """Grade the notebook once it comes (the child's work), with the kernel started ahead."""
    nb, resources = payload
    executor._ahead = started
    return executor._in_child(nb, resources, None, reporter)


def _stop_kernel(started: tuple[KernelPlan, Any]) -> None:
    km = started[1]
    with contextlib.suppress(Exception):
        run_sync(km.shutdown_kernel)(now=True)
    with contextlib.suppress(Exception):
        run_sync(km.cleanup_resources)()
