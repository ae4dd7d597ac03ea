"""The attack suite: every submission in ``tests/attacks/`` graded through both routes a teacher uses.

``nbgrader``: plain ``nbgrader autograde`` with the course pipeline (``attention_grader.pipeline``);
``parallel``: the teacher's ``make grade`` (``attention_grader.steps.grade.grade``, two workers),
on every attack but those acting only inside their kernel, which both routes grade alike
(``attacks.batch.KERNEL_ONLY``). Each
attack gets exactly the points its honest answers earn, whatever it does to its kernel; it is
flagged; nothing leaks (no hidden test in any output, no file outside the sandbox, no connection
to the grader); honest students in the same batch keep full marks.
"""

from __future__ import annotations

import nbformat
import pytest
from attacks.batch import (
    ASSIGNMENT,
    KERNEL_ONLY,
    MAX_SCORE,
    TESTS,
    attacks_for,
    graded_batch,
    graded_batch_parallel,
    load_attacks,
)

# A hang guard for the batch's first grading (see tests/browser/test_attack_pages.py).
pytestmark = pytest.mark.timeout(1800)
ATTACKS = load_attacks()
HONEST_NAMES = {"honest_full", "honest_wrong"}
ROUTES = {"nbgrader": graded_batch, "parallel": graded_batch_parallel}
#: Lines of the hidden tests: none may appear in any output of any graded notebook.
HIDDEN_LINES = [
    line.strip()
    for test in TESTS.values()
    if "BEGIN HIDDEN TESTS" in test
    for line in test.split("### BEGIN HIDDEN TESTS")[1]
    .split("### END HIDDEN TESTS")[0]
    .splitlines()
    if line.strip()
]


@pytest.fixture(scope="module", params=sorted(ROUTES))
def batch(request):
    return ROUTES[request.param]()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("batch", "attack"),
    [
        pytest.param(route, attack, id=f"{route}-{attack.name}")
        for route in sorted(ROUTES)
        for attack in attacks_for(route)
    ],
    indirect=["batch"],
)
def test_attack_gets_only_what_it_earned_and_is_flagged(batch, attack):
    kinds = {f.kind for f in batch.flags[attack.name]}
    assert batch.scores[attack.name] == attack.expect_score, (attack.doc, batch.flags[attack.name])
    assert attack.expect_flags <= kinds, f"{attack.doc}: flags {kinds}"
    if attack.name in HONEST_NAMES:
        assert kinds == set(), batch.flags[attack.name]


@pytest.mark.slow
def test_honest_students_in_every_course_keep_full_marks(batch):
    assert len(batch.honest_copies) >= 2
    for key in batch.honest_copies:
        assert batch.scores[key] == MAX_SCORE
        assert batch.flags[key] == []


def test_the_parallel_batch_leaves_out_only_attacks_inside_their_kernel():
    """Every attack is graded by plain nbgrader; the parallel grader's batch leaves out only
    :data:`attacks.batch.KERNEL_ONLY` (named attacks that exist), and keeps every attack on
    the process, files, network, ids, structure or pages, the library handed in as her own
    code, and the honest students.
    """
    names = {a.name for a in ATTACKS}
    assert {a.name for a in attacks_for("nbgrader")} == names
    assert KERNEL_ONLY < names
    parallel = {a.name for a in attacks_for("parallel")}
    assert parallel == names - KERNEL_ONLY
    assert {a.name for a in ATTACKS if a.files or a.student or a.delete or a.move} <= parallel
    assert HONEST_NAMES | {"kill_kernel", "sys_exit", "memory_hog", "infinite_loop"} <= parallel
    assert {n for n in names if n.startswith(("page_", "id_", "colliding_"))} <= parallel
    # each route mounts the library's stub over what its own kernel imports
    assert {n for n in names if n.startswith("library_")} <= parallel


@pytest.mark.slow
def test_every_attack_that_could_gain_points_is_flagged(batch):
    harmless = HONEST_NAMES | {"memory_hog", "infinite_loop", "print_history"}
    harmless |= {"skip_execution_tags"}  # no code to scan, and it changes nothing
    # ids are escaped wherever they are shown (tests/browser/test_attack_pages.py); refusing
    # them is the exchange's job, at collect: these folders were put in submitted/ by hand
    harmless |= {"id_html", "id_formula"}
    unflagged = [
        a.name for a in batch.attacks if a.name not in harmless and not batch.flags[a.name]
    ]
    assert unflagged == []


@pytest.mark.slow
def test_nothing_leaks_out_of_the_sandbox_or_into_outputs(batch):
    """No hidden test in any output; no file written outside the sandbox (the forged test cell
    did not run in the grader); no connection to the grader; source/ untouched.
    """
    assert HIDDEN_LINES, "the fixture has hidden tests"
    for key, path in batch.paths.items():
        nb = nbformat.read(path, as_version=4)
        text = "\n".join(str(out) for cell in nb.cells for out in cell.get("outputs", []))
        for line in HIDDEN_LINES:
            assert line not in text, f"{key}: hidden test in an output"
    assert batch.leaked == []
    assert batch.listener_connections == 0
    assert batch.source_digests_ok


@pytest.mark.slow
def test_no_flag_is_listed_twice(batch):
    for key, flags in batch.flags.items():
        assert len(flags) == len(set(flags)), key


@pytest.mark.slow
def test_forged_test_cells_run_no_code_in_the_grader_and_earn_nothing(batch):
    nb = nbformat.read(batch.paths["forged_grade_cell"], as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    assert "bonus_points" not in ids or batch.scores["forged_grade_cell"] <= MAX_SCORE
    assert batch.scores["forged_grade_cell"] == 2  # q2 and q3 honest; no bonus


@pytest.mark.slow
def test_failed_tests_show_the_check_message_and_no_test_code(batch):
    """The test's output is one line: the check's message, as the student will see it."""
    nb = nbformat.read(batch.paths["honest_wrong"], as_version=4)
    failed = [
        out
        for cell in nb.cells
        if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_")
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    assert failed
    for out in failed:
        assert out["traceback"] == [f"{out['ename']}: {out['evalue']}"]
        assert "gradecheck" not in out["evalue"] and ASSIGNMENT not in out["evalue"]


@pytest.mark.slow
def test_config_handed_in_beside_the_notebook_never_runs(batch):
    """IPython/Jupyter config and start-up files beside her notebook (CVE-2022-21699's attack):
    the ``.json`` ones pass the intake as data and sit in the kernel's working folder, yet the
    kernel never loads them (its ``IPYTHONDIR`` is the sandbox's own /tmp); her cell prints what
    a loaded config would have defined, and the marker never appears.
    """
    from attacks.config_beside_notebook import MARKER

    name = "config_beside_notebook"
    text = batch.outputs(name)
    assert "no config loaded" in text, text
    assert MARKER not in text
    assert batch.scores[name] == 2
