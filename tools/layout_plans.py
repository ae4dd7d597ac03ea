"""The layout plans (issues 30 and 43) as data: where each module and test of a package lives now.

``tools/move_plan.py`` moves and rewrites by them (``make lint`` runs it with ``--check``). A new
grader module goes into :data:`MOVES` under the subpackage of its concern, a moved test into its
plan's tests; nothing here but the :class:`Plan` record is code.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Plan:
    """Where one package's modules and tests go.

    Parameters
    ----------
    name : str
        What ``move_plan.py`` calls it on the command line.
    package : str
        The package's import name (``attention_grader``).
    folder : str
        Its folder in the repository (``autograder/attention_grader``).
    modules : dict of str to str
        Old dotted module name -> new one (``attention_lab.widgets`` ->
        ``attention_lab.explorer.query_explorer``).
    packages : dict of str to str
        Each new package -> the text its new ``__init__.py`` starts with (and pyproject.toml's
        ``packages`` lists it).
    tests : dict of str to str
        Old test path -> new test path (repository-relative).
    data : dict of str to str
        Package data folders, old -> new, relative to ``folder``.
    test_inits : tuple of str
        Test folders that get an empty ``__init__.py``.
    absolute_imports : bool
        Make the package's relative imports absolute (a module that moved down a level would
        otherwise import from the wrong place).
    old_folder : str
        Where the old modules were top-level scripts, imported by a bare name from a folder put
        on ``sys.path`` (old names without a dot: ``classroom`` in ``autograder/jupyterhub``).
    importers : tuple of str
        Path prefixes of the files whose ``import <bare name>`` meant those scripts (a bare
        name such as ``roster`` means them only there).
    retired : tuple of str
        Packages the plan empties: each loses its ``__init__.py`` and its place in
        pyproject.toml's ``packages`` once nothing else is in it.
    helpers : bool
        ``tests`` are helper modules imported by their bare names (``from graded_classes
        import``, their folder on ``sys.path``): every such import names the new dotted module.
    """

    name: str
    package: str
    folder: str
    modules: dict[str, str]
    packages: dict[str, str]
    tests: dict[str, str]
    data: dict[str, str] = field(default_factory=dict)
    test_inits: tuple[str, ...] = ()
    absolute_imports: bool = False
    old_folder: str = ""
    importers: tuple[str, ...] = ()
    retired: tuple[str, ...] = ()
    helpers: bool = False


# ------------------------------------------------------------------------- the grader (house plan)

#: What each subpackage holds, in the order a subpackage may import the ones before it (the
#: exact rule: tests/attention_grader/test_layers.py's ALLOWED).
SUBPACKAGES = {
    "common": "What every part reads: the batch summary and its flags, safe text, a notebook's outcomes, question labels, variants' key and records.",
    "intake": "A submission made safe before anything reads it (files, notebooks, autograde's hook), due dates, the late penalty, final scores.",
    "sandbox": "Where a student's kernel runs: bubblewrap, the sandbox user, the implement-it stub, the protections report.",
    "execution": "Grading one notebook: the sandboxed kernel, the answer channel, trusted checking, flags, the budget, the workers.",
    "pages": "Every HTML page: sanitising, the CSP, offline maths, the feedback and formgrader pages, the lessons' and docs' static site.",
    "term": "What runs in the term's servers and nbgrader's commands: the formgrader's final scores, the student's clock, validate's labels and release check, ``make check``.",
}

#: old module (top of attention_grader) -> its subpackage
MOVES = {
    # common
    "course": "common", "outcomes": "common", "question_labels": "common",
    "safe_text": "common", "summary": "common", "flags": "common", "settings": "common",
    "diagnosis": "common",
    # intake
    "due": "intake", "exchange_identity": "intake", "intake": "intake",
    "intake_files": "intake", "intake_notebook": "intake", "late": "intake",
    "private_submit": "intake", "safe_exchange": "intake", "submission_history": "intake",
    "inbound_list": "intake", "exchange_mounts": "intake", "final_scores": "intake",
    "due_notice": "intake",
    # sandbox
    "implement_it": "sandbox", "protections": "sandbox", "sandbox": "sandbox",
    "sandbox_host": "sandbox", "sandbox_launch": "sandbox", "control_dir": "sandbox",
    # execution
    "_kernel_side": "execution", "answer_sets": "execution", "answer_types": "execution",
    "answers": "execution", "budget": "execution", "execute": "execution",
    "execution_stops": "execution", "figure_snapshot": "execution",
    "flag_limited_output": "execution", "gradebook_sync": "execution",
    "kernel_client": "execution", "kernel_tests": "execution", "library_flags": "execution",
    "library_use": "execution", "needs_teacher": "execution", "object_handles": "execution",
    "shards": "execution", "solution_check": "execution", "speedups": "execution",
    "tamper": "execution", "test_styles": "execution", "trusted": "execution",
    "code_sinks": "execution",
    "trusted_scope": "execution", "worker": "execution", "kernel_bindings": "execution",
    # answers.py split by concern (issue 30, seventh landing), and the parts of trusted.py
    "answer_channel": "execution", "answer_decoding": "execution", "answer_encoding": "execution",
    "answer_errors": "execution", "student_function": "execution", "unsupported_answer": "execution",
    "trusted_cells": "execution", "cell_code": "execution", "handle_table": "execution",
    # execute.py's per-notebook state as parts composed into it (issue 30, eighth landing)
    "output_caps": "execution", "notebook_checker": "execution",
    # trusted checking the student cannot steer (issue 37, ninth landing)
    "cell_order": "execution", "locked_names": "execution", "kernel_definitions": "execution",
    # one answer codec, imported by the grader and sent into the kernel (issue 43, eleventh landing)
    "answer_codec": "execution", "_kernel_handles": "execution",
    # safe_exchange.py split by the step of nbgrader it serves
    "intake_guard": "intake", "release_feedback": "intake",
    # report.py split: its numbers' parts
    "class_diagnoses": "term", "question_stats": "term", "student_rows": "term",
    # flags.py: the registry stays whole, its store has its own module
    "flag_store": "common",
    # what one grading run reads once (issue 37, tenth landing)
    "run_cache": "common",
    # per-student variants (issue 41, tenth landing)
    "variant_key": "common", "variant_grading": "execution", "variant_family": "execution",
    # the teacher sees each student's numbers (issue 41, eleventh landing)
    "variant_record": "common", "variant_rows": "term",
    # pages
    "csp": "pages", "docs_site": "pages", "feedback_page": "pages", "formgrader_view": "pages",
    "html_clean": "pages", "html_safety": "pages", "lesson_pages": "pages",
    "offline_html": "pages",
    # term
    "collect": "term", "feedback": "term", "formgrader_scores": "term", "gain": "term",
    "gain_page": "term", "grade": "term", "grades": "term", "lms": "term",
    "progress": "term", "release": "term", "report": "term", "report_page": "term",
    "selfstudy": "term", "check_tries": "term", "validate_labels": "term",
    "validate_check": "term", "student_clock": "term", "student_dist": "term",
}  # fmt: skip

#: old test file -> new test file (paths relative to the repository)
TEST_MOVES = {
    "tests/test_grader_course.py": "tests/attention_grader/common/test_course.py",
    "tests/test_flags.py": "tests/attention_grader/common/test_flags.py",
    "tests/test_grader_settings.py": "tests/attention_grader/common/test_settings.py",
    "tests/test_submission_history.py": "tests/attention_grader/intake/test_submission_history.py",
    "tests/test_grader_handles.py": "tests/attention_grader/execution/test_object_handles.py",
    "tests/test_validate_release_check.py": "tests/attention_grader/term/test_validate_check.py",
    "tests/test_grader_outcomes.py": "tests/attention_grader/common/test_outcomes.py",
    "tests/test_grader_summary.py": "tests/attention_grader/common/test_summary.py",
    "tests/test_exchange_identity.py": "tests/attention_grader/intake/test_exchange_identity.py",
    "tests/test_intake.py": "tests/attention_grader/intake/test_intake.py",
    "tests/test_intake_batch.py": "tests/attention_grader/intake/test_intake_batch.py",
    "tests/test_grader_late.py": "tests/attention_grader/intake/test_late.py",
    "tests/test_implement_it.py": "tests/attention_grader/sandbox/test_implement_it.py",
    "tests/test_implement_it_grading.py": "tests/attention_grader/sandbox/test_implement_it_grading.py",
    "tests/test_sandbox.py": "tests/attention_grader/sandbox/test_sandbox.py",
    "tests/test_grader_answers.py": "tests/attention_grader/execution/test_answers.py",
    "tests/test_grader_budget.py": "tests/attention_grader/execution/test_budget.py",
    "tests/test_grader_execute.py": "tests/attention_grader/execution/test_execute.py",
    "tests/test_execution_stops.py": "tests/attention_grader/execution/test_execution_stops.py",
    "tests/test_flag_limited_output.py": "tests/attention_grader/execution/test_flag_limited_output.py",
    "tests/test_grader_shards.py": "tests/attention_grader/execution/test_shards.py",
    "tests/test_grader_speedups.py": "tests/attention_grader/execution/test_speedups.py",
    "tests/test_tamper.py": "tests/attention_grader/execution/test_tamper.py",
    "tests/test_grader_carry.py": "tests/attention_grader/execution/test_test_styles.py",
    "tests/test_grader_trusted.py": "tests/attention_grader/execution/test_trusted.py",
    "tests/test_grader_docs_site.py": "tests/attention_grader/pages/test_docs_site.py",
    "tests/test_grader_feedback_page.py": "tests/attention_grader/pages/test_feedback_page.py",
    "tests/test_grader_formgrader_view.py": "tests/attention_grader/pages/test_formgrader_view.py",
    "tests/test_html_safety.py": "tests/attention_grader/pages/test_html_safety.py",
    "tests/test_grader_lesson_pages.py": "tests/attention_grader/pages/test_lesson_pages.py",
    "tests/test_grader_feedback.py": "tests/attention_grader/term/test_feedback.py",
    "tests/test_grader_gain.py": "tests/attention_grader/term/test_gain.py",
    "tests/test_grader_grade.py": "tests/attention_grader/term/test_grade.py",
    "tests/test_grader_grades.py": "tests/attention_grader/term/test_grades.py",
    "tests/test_grader_progress.py": "tests/attention_grader/term/test_progress.py",
    "tests/test_grader_release.py": "tests/attention_grader/term/test_release.py",
    "tests/test_grader_report.py": "tests/attention_grader/term/test_report.py",
    "tests/test_grader_selfstudy.py": "tests/attention_grader/term/test_selfstudy.py",
    # the grader end to end, across its subpackages
    "tests/test_accuracy.py": "tests/attention_grader/test_accuracy.py",
    "tests/test_grader_class_of_12.py": "tests/attention_grader/test_class_of_12.py",
    "tests/test_grader_cli.py": "tests/attention_grader/test_cli.py",
    "tests/test_ids_escaped.py": "tests/attention_grader/test_ids_escaped.py",
    "tests/test_ordinary_questions.py": "tests/attention_grader/test_ordinary_questions.py",
    "tests/test_grader_postgres.py": "tests/attention_grader/test_postgres.py",
    "tests/test_grader_workflow.py": "tests/attention_grader/test_workflow.py",
    # the attack named after what it tests, not after the in-kernel guard that is gone
    "tests/attacks/skip_guard_cells.py": "tests/attacks/skip_grader_requests.py",
}

# ------------------------------------------------------------------------------ the library

# old dotted name -> new dotted name (attention_lab modules)
LAB_MODULES = {
    # the live widgets and their parts: attention_lab.explorer
    "attention_lab.widgets": "attention_lab.explorer.query_explorer",
    "attention_lab.explorer_model": "attention_lab.explorer.model",
    "attention_lab.explorer_figure": "attention_lab.explorer.figure",
    "attention_lab.explorer_controls": "attention_lab.explorer.controls",
    "attention_lab.explorer_readout": "attention_lab.explorer.readout",
    "attention_lab.prediction_panel": "attention_lab.explorer.prediction_panel",
    "attention_lab.vector_panels": "attention_lab.explorer.vector_panels",
    "attention_lab.widget_parts": "attention_lab.explorer.widget_parts",
    "attention_lab.slider_figures": "attention_lab.explorer.slider_figures",
    "attention_lab.slider_widgets": "attention_lab.explorer.slider_widgets",
    "attention_lab.projection_widget": "attention_lab.explorer.projection_widget",
    # everything that checks a student's work: attention_lab.checks
    "attention_lab.chapter_checks": "attention_lab.checks.chapter",
    "attention_lab.exercise_checks": "attention_lab.checks.exercises",
    "attention_lab.selfcheck": "attention_lab.checks.selfcheck",
    "attention_lab.cell_runs": "attention_lab.checks.cell_runs",
    "attention_lab.predictions": "attention_lab.checks.predictions",
}

LAB_PACKAGES = {
    "attention_lab.explorer": (
        '"""The lessons\' live widgets: the query explorer, composed of its parts, and the\n'
        "one-slider widgets built from the same parts (every one renders through\n"
        ':mod:`attention_lab.live_figure`)."""\n'
    ),
}

# old test file -> new test file (tests mirror the package: tests/attention_lab/<sub>/test_<m>.py)
LAB_TESTS = {
    "tests/test_core.py": "tests/attention_lab/test_core.py",
    "tests/test_examples.py": "tests/attention_lab/test_examples.py",
    "tests/test_derivatives.py": "tests/attention_lab/test_derivatives.py",
    "tests/test_heads.py": "tests/attention_lab/test_heads.py",
    "tests/test_projections.py": "tests/attention_lab/test_projections.py",
    "tests/test_misconceptions.py": "tests/attention_lab/test_misconceptions.py",
    "tests/test_lesson_copies.py": "tests/attention_lab/test_lesson_copies.py",
    "tests/test_nodelay.py": "tests/attention_lab/test_nodelay.py",
    "tests/test_chapter_code.py": "tests/attention_lab/test_chapter_code.py",
    "tests/test_demos.py": "tests/attention_lab/test_demos.py",
    "tests/test_layer_figures.py": "tests/attention_lab/test_layer_figures.py",
    "tests/test_plots.py": "tests/attention_lab/plots/test_plots.py",
    "tests/test_experiments.py": "tests/attention_lab/experiments/test_experiments.py",
    "tests/test_learning.py": "tests/attention_lab/experiments/test_learning.py",
    "tests/test_positions_experiment.py": "tests/attention_lab/experiments/test_positions.py",
    "tests/test_checks.py": "tests/attention_lab/checks/test_checks.py",
    "tests/test_layer_checks.py": "tests/attention_lab/checks/test_layers.py",
    "tests/test_chapter_checks.py": "tests/attention_lab/checks/test_chapter.py",
    "tests/test_exercise_checks.py": "tests/attention_lab/checks/test_exercises.py",
    "tests/test_selfcheck.py": "tests/attention_lab/checks/test_selfcheck.py",
    "tests/test_predictions.py": "tests/attention_lab/checks/test_predictions.py",
    "tests/test_widgets.py": "tests/attention_lab/explorer/test_query_explorer.py",
    "tests/test_explorer_readability.py": "tests/attention_lab/explorer/test_readability.py",
    "tests/test_projection_widget.py": "tests/attention_lab/explorer/test_projection_widget.py",
}

LAB = Plan(
    name="lab",
    package="attention_lab",
    folder="attention_lab",
    modules=LAB_MODULES,
    packages=LAB_PACKAGES,
    tests=LAB_TESTS,
    # tests/attention_lab itself stays a plain folder: an __init__.py there would make pytest
    # import it as attention_lab, hiding the library
    test_inits=tuple(
        sorted({n.rsplit("/", 1)[0] for n in LAB_TESTS.values()} - {"tests/attention_lab"})
    ),
)

# ------------------------------------------------------------------------------ the hub

#: the hub's modules, once scripts beside its config files (issue 43, eleventh landing); the
#: configs, ``install.py`` (a command admins run by path) and the data files stay there
HUB_MODULES = (
    "classroom", "culler", "exchange_folders", "hub_probe", "origins", "port_fence", "roster",
    "server_launch", "server_namespace", "server_output", "server_port", "spawner_limits",
    "spawner_settings", "user_cgroup", "user_disk",
)  # fmt: skip

HUB = Plan(
    name="hub",
    package="attention_hub",
    folder="autograder/attention_hub",
    modules={m: f"attention_hub.{m}" for m in HUB_MODULES},
    packages={
        "attention_hub": (
            '"""The classroom JupyterHub: what the hub configs in autograder/jupyterhub/ call\n'
            '(:func:`attention_hub.configure.configure_hub`), run by the hub as root."""\n'
        )
    },
    tests={},
    old_folder="autograder/jupyterhub",
    importers=(
        "autograder/jupyterhub/",
        "autograder/attention_hub/",
        "tests/hub/",
        "tests/test_hub_",
        "tests/test_student_server_extensions.py",
    ),  # fmt: skip
)

# ------------------------------------------- the grader's execution/ by runtime boundary (issue 43)

#: Each new subpackage of what was ``attention_grader.execution``, bottom up (a subpackage may
#: import those before it: tests/attention_grader/test_layers.py's ALLOWED).
SPLIT_PACKAGES = {
    "wire": "What crosses to and from a student's kernel as data: answers' types and errors, a cell's code read as Python, the capped kernel client.",
    "channel": "The answer channel: requests into the student's kernel (the text sent there), replies decoded, the stand-ins of the student's objects.",
    "checking": "Trusted checking: the teacher's tests in the grader's process, the names they trust, what they cannot carry, cells needing a teacher.",
    "executor": "One notebook through autograde: the scans before, the executor, its stops, output caps, budget and library flags.",
    "batch": "Many notebooks: a class's grading workers, shards and gradebook copies; the release check of the solution and its variants.",
}  # fmt: skip

#: module of attention_grader.execution -> its new subpackage (the same as
#: attention_grader/renamed.py's MOVED, which keeps the old names importing for one release)
SPLIT = {
    "answer_codec": "wire", "answer_errors": "wire", "answer_sets": "wire", "cell_code": "wire",
    "figure_snapshot": "wire", "kernel_client": "wire", "kernel_requests": "wire",
    "unsupported_answer": "wire",
    "_kernel_handles": "channel", "_kernel_side": "channel", "answer_channel": "channel",
    "answer_decoding": "channel",
    "answer_encoding": "channel", "handle_table": "channel", "kernel_bindings": "channel",
    "object_handles": "channel", "student_function": "channel",
    "code_sinks": "checking", "kernel_definitions": "checking", "kernel_tests": "checking",
    "locked_names": "checking", "needs_teacher": "checking", "test_styles": "checking",
    "trusted": "checking", "trusted_cells": "checking", "trusted_scope": "checking",
    "variant_grading": "checking",
    "budget": "executor", "cell_order": "executor", "execute": "executor",
    "execution_stops": "executor", "flag_limited_output": "executor", "library_flags": "executor",
    "library_use": "executor", "notebook_checker": "executor", "output_caps": "executor",
    "tamper": "executor",
    "gradebook_sync": "batch", "shards": "batch", "solution_check": "batch", "speedups": "batch",
    "variant_family": "batch", "worker": "batch",
}  # fmt: skip

#: the tests that are not named after one module, by the subpackage they test
_SPLIT_TESTS = {
    "answers": "channel",  # answers.py split by concern in the seventh landing
    "code_sinks_grading": "checking",
    "grader_memory": "batch",
}
_SPLIT_OLD_TESTS = "tests/attention_grader/execution"

GRADER_SPLIT = Plan(
    name="grader-split",
    package="attention_grader.execution",
    folder="autograder/attention_grader",
    modules={
        f"attention_grader.execution.{m}": f"attention_grader.{s}.{m}" for m, s in SPLIT.items()
    },
    packages={f"attention_grader.{s}": f'"""{text}"""\n' for s, text in SPLIT_PACKAGES.items()},
    tests={
        f"{_SPLIT_OLD_TESTS}/test_{m}.py": f"tests/attention_grader/{s}/test_{m}.py"
        for m, s in (SPLIT | _SPLIT_TESTS).items()
    },
    retired=("attention_grader.execution",),
)


# ------------------------- common/, intake/ and term/: a folder per concept, 5-10 modules (issue 43)

#: The new subpackages, with the text each ``__init__.py`` starts with.
FOLDER_PACKAGES = {
    "config": "The course and its settings: where it lives, the one door its config loads through, every limit, the environment's defaults, the patches of nbgrader.",
    "exchange": "The exchange: who handed in and when, who may read what, nbgrader's collect, list and release_feedback with the intake applied, the submission history.",
    "steps": "The teacher's steps, as make/teacher.mk lists them: release, collect, grade and its progress, feedback, grades and the LMS export, the student copy.",
    "reports": "What the teacher reads about a class: the report (its numbers, tables and page), the misconceptions found, the learning gain.",
}  # fmt: skip

#: ``subpackage.module`` -> its new subpackage; what stays: common/ (flags, outcomes, safe text,
#: the summary, variants' records), intake/ (the intake, due dates, the late penalty, final
#: scores) and term/ (inside the term's servers: the formgrader's scores, the student's clock,
#: validate's labels and release check, ``make check``).
FOLDERS = {
    "common.config_door": "config", "common.course": "config", "common.environment": "config",
    "common.nbgrader_patches": "config", "common.settings": "config",
    "intake.exchange_identity": "exchange", "intake.exchange_mounts": "exchange",
    "intake.inbound_list": "exchange", "intake.private_submit": "exchange",
    "intake.release_feedback": "exchange", "intake.safe_exchange": "exchange",
    "intake.submission_history": "exchange",
    "term.collect": "steps", "term.feedback": "steps", "term.grade": "steps",
    "term.grades": "steps", "term.lms": "steps", "term.progress": "steps",
    "term.release": "steps", "term.student_dist": "steps",
    "term.class_diagnoses": "reports", "term.gain": "reports", "term.gain_page": "reports",
    "term.question_stats": "reports", "term.report": "reports", "term.report_data": "reports",
    "term.report_page": "reports", "term.student_rows": "reports", "term.variant_rows": "reports",
}  # fmt: skip

#: the tests of the moved modules that exist, and the tests of their concern
_FOLDER_TESTS = (
    "common.config_door", "common.course", "common.nbgrader_patches", "common.settings",
    "intake.exchange_identity", "intake.exchange_mounts", "intake.inbound_list",
    "intake.release_feedback", "intake.submission_history", "intake.separate_accounts",
    "term.feedback", "term.grade", "term.grades", "term.progress", "term.release",
    "term.student_dist",
    "term.class_diagnoses", "term.gain", "term.question_stats", "term.report", "term.report_page",
)  # fmt: skip
_FOLDER_TEST_PLACE = FOLDERS | {"intake.separate_accounts": "exchange"}


def _test_of(module: str, subpackage: str) -> str:
    return f"tests/attention_grader/{subpackage}/test_{module}.py"


GRADER_FOLDERS = Plan(
    name="grader-folders",
    package="attention_grader",
    folder="autograder/attention_grader",
    modules={
        f"attention_grader.{m}": f"attention_grader.{s}.{m.split('.')[1]}"
        for m, s in FOLDERS.items()
    },
    packages={f"attention_grader.{s}": f'"""{text}"""\n' for s, text in FOLDER_PACKAGES.items()},
    tests={
        _test_of(m.split(".")[1], m.split(".")[0]): _test_of(m.split(".")[1], _FOLDER_TEST_PLACE[m])
        for m in _FOLDER_TESTS
    },
)


def _later(module: str) -> str:
    """Where a module is after ``grader-folders`` (``attention_grader.common.course`` -> config)."""
    return GRADER_FOLDERS.modules.get(module, module)


def _later_test(path: str) -> str:
    return GRADER_FOLDERS.tests.get(path, path)


def _now(module: str, subpackage: str) -> str:
    """Where a module of the house plan lives today (moved on by the later plans).

    execution/'s went on by ``grader-split``; common/'s, intake/'s and term/'s by
    ``grader-folders``.
    """
    if subpackage == "execution" and module in SPLIT:
        subpackage = SPLIT[module]
    return _later(f"attention_grader.{subpackage}.{module}")


GRADER = Plan(
    name="grader",
    package="attention_grader",
    folder="autograder/attention_grader",
    modules={f"attention_grader.{m}": _now(m, s) for m, s in MOVES.items()},
    packages={
        f"attention_grader.{s}": f'"""{text}"""\n'
        for s, text in SUBPACKAGES.items()
        if s != "execution"  # emptied by grader-split
    },
    tests={old: _later_test(GRADER_SPLIT.tests.get(new, new)) for old, new in TEST_MOVES.items()},
    # folders of data that move with their module (package data, not subpackages)
    data={"library_stub": "sandbox/library_stub"},
    absolute_imports=True,
)


# ------------------------------------------------------------------ the tests' shared helpers

#: Helpers at tests/'s top, imported by bare name from any test folder -> the package
#: tests/support (``from tests.support.graded_classes import ...``; the repository's root is
#: on pytest's ``pythonpath``, so no test edits ``sys.path`` to reach them).
SUPPORT = (
    "accuracy_answers", "assignment_answers", "exchange_attempts", "figure_text",
    "gain_simulation", "graded_classes", "grading_course", "hash_collisions", "k8s_files",
    "lesson_run", "model_answers", "nbgrader_cells", "pg_cluster", "pod_packages", "roster",
    "run_cache", "sandboxed_kernel", "source_class", "stand_in_kernel", "student_outputs",
    "variant_copies", "worker_groups",
)  # fmt: skip

TESTS = Plan(
    name="tests",
    package="tests",
    folder="tests",
    modules={},
    packages={},
    tests={f"tests/{m}.py": f"tests/support/{m}.py" for m in SUPPORT},
    test_inits=("tests/support",),
    helpers=True,
)


# ------------------------------------------------------------------ tests mirror the packages

#: Tests of the hub's modules that start no hub, from tests/'s top to tests/attention_hub/,
#: which mirrors autograder/attention_hub/ (tests/hub/ runs real hubs, all of it slow), each
#: named after the module it tests.
HUB_UNIT_TESTS = {
    "tests/test_hub_cpu_weight.py": "tests/attention_hub/test_user_cgroup.py",
    "tests/test_hub_port_fence.py": "tests/attention_hub/test_port_fence.py",
    "tests/test_hub_server_port.py": "tests/attention_hub/test_server_port.py",
}

TESTS_MIRROR = Plan(
    name="tests-mirror",
    package="tests",
    folder="tests",
    modules={},
    packages={},
    tests=HUB_UNIT_TESTS,
)


#: in the order they run: grader-folders first, so that the house plan finds each name at its
#: place of today (``from attention_grader.intake import exchange_identity`` means exchange/ now)
PLANS = {
    plan.name: plan
    for plan in (GRADER_FOLDERS, GRADER, LAB, GRADER_SPLIT, HUB, TESTS, TESTS_MIRROR)
}
