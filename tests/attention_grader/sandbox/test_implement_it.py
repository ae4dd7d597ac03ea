"""Implement-it notebooks are graded in a kernel without the library (attention_grader.sandbox.implement_it).

The kernel that grades a notebook whose tests check a student's own softmax/attention sees a
stub in place of ``attention_lab``: every spelling that reaches the real numerics fails there,
while the read-only cells' ``from attention_lab import checks`` still works. The other
notebooks' kernels (and the lessons') keep the library.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from attention_grader.channel.student_function import reference_source
from attention_grader.executor.library_flags import library_flags, stub_seen
from attention_grader.sandbox import sandbox_host, sandbox_launch
from attention_grader.sandbox.implement_it import (
    IMPLEMENT_IT_TAG,
    STUB_FOLDER,
    STUB_MARKER,
    hidden_library_mounts,
    is_implement_it,
)
from attention_grader.sandbox.sandbox import SandboxedKernelManager
from nbformat.v4 import new_code_cell, new_notebook

import attention_lab
from tests.support.sandboxed_kernel import run_sandboxed

ROOT = Path(__file__).resolve().parents[3]
LIBRARY = os.path.realpath(attention_lab.__path__[0])


def _tests(assignment: str) -> list[str]:
    nb = nbformat.read(ROOT / "source" / assignment / f"{assignment}.ipynb", 4)
    return [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]


def test_the_course_implement_it_notebook_is_found_from_its_tests_alone():
    assert is_implement_it(_tests("practice_implement"))
    for other in ("intro_attention", "focus_in_the_noise", "inventory_pre", "inventory_post"):
        assert not is_implement_it(_tests(other)), other


def test_a_teacher_marks_their_own_question_with_a_tag_in_source(tmp_path):
    nb = new_notebook(cells=[new_code_cell("def f(x):\n    return x")])
    path = tmp_path / "own.ipynb"
    nbformat.write(nb, path)
    assert not is_implement_it(["assert f(1) == 1"], path)
    nb.cells[0].metadata["tags"] = [IMPLEMENT_IT_TAG]
    nbformat.write(nb, path)
    assert is_implement_it(["assert f(1) == 1"], path)


@pytest.mark.slow
def test_the_stub_is_mounted_over_the_library_only_when_asked(tmp_path):
    km = SandboxedKernelManager()
    km._ctl_dir = str(tmp_path)
    (tmp_path / "ipc").mkdir()

    def mounts():
        argv = sandbox_launch.bwrap_argv(km, str(tmp_path / "w"), "/c/autograded/a/x", "/m", True)
        return [(argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a == "--ro-bind"]

    assert (str(STUB_FOLDER), LIBRARY) not in mounts()
    km.hide_library = True
    binds = mounts()
    assert binds.index((str(STUB_FOLDER), LIBRARY)) > binds.index((LIBRARY, LIBRARY))
    assert (LIBRARY, str(STUB_FOLDER)) in hidden_library_mounts()


#: Every spelling of reaching the real numerics; each prints "REACHED" only if it got them.
SPELLINGS = {
    "import": "from attention_lab.core import softmax",
    "attribute": "import attention_lab\nsoftmax = attention_lab.softmax",
    "annotated": "import attention_lab.core\n_s: object = attention_lab.core.softmax\nsoftmax = _s",
    "builtins": "softmax = __builtins__.__import__('attention_lab._steps').softmax",
    "importlib": "import importlib\nsoftmax = importlib.import_module('attention_lab._steps').softmax",
    "exec_file": f"_ns = {{}}\nexec(open({LIBRARY + '/_steps.py'!r}).read(), _ns)\nsoftmax = _ns['softmax']",
    "sys_path": (
        "import sys\n"
        "[sys.modules.pop(m) for m in list(sys.modules) if m.startswith('attention_lab')]\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if 'Hidden' not in type(f).__name__]\n"
        f"sys.path.insert(0, {os.path.dirname(LIBRARY)!r})\n"
        "from attention_lab._steps import softmax"
    ),
    "glob": (
        "import glob\n"
        f"found = glob.glob({os.path.dirname(LIBRARY) + '/**/_steps.py'!r}, recursive=True)\n"
        "_ns = {}\nexec(open(found[0]).read(), _ns)\nsoftmax = _ns['softmax']"
    ),
}
REACHED = "\nprint('REACHED', softmax([0.0, 0.0]))"


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    if not sandbox_host.bwrap_available()[0]:
        pytest.fail("bubblewrap is not available: run `make sandbox-deps`")
    cells = ["from attention_lab import checks\nprint(checks.check_softmax_function(len, 'x'))"]
    cells += [code + REACHED for code in SPELLINGS.values()]
    return run_sandboxed(cells, tmp_path_factory.mktemp("hidden"), hide_library=True)


@pytest.mark.slow
def test_the_read_only_cells_import_of_checks_still_works(hidden):
    assert hidden[0] == "None"


@pytest.mark.slow
@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_no_spelling_reaches_the_numerics_in_an_implement_it_kernel(hidden, spelling):
    out = hidden[1 + list(SPELLINGS).index(spelling)]
    assert "REACHED" not in out, spelling
    assert out in ("LibraryHidden", "FileNotFoundError", "IndexError", "KeyError"), out


@pytest.mark.slow
def test_other_kernels_keep_the_library(tmp_path):
    out = run_sandboxed([SPELLINGS["import"] + REACHED, SPELLINGS["exec_file"] + REACHED], tmp_path)
    assert out == ["REACHED [0.5 0.5]"] * 2


def test_the_reference_a_check_substitutes_travels_as_its_code():
    """The kernel has no attention_lab to import the reference from: the grader sends it, and
    it compiles there as the kernel compiles it (none of this module's ``__future__`` flags;
    its annotations name types only its own module imports).
    """
    scope = {"np": __import__("numpy")}
    code = compile(
        reference_source("attention_lab._steps.softmax"), "<ref>", "exec", dont_inherit=True
    )
    exec(code, scope)
    assert list(scope["softmax"]([0.0, 0.0])) == [0.5, 0.5]
    with pytest.raises(ValueError, match="only attention_lab"):
        reference_source("os.system")


def test_static_findings_and_the_stubs_words_become_flags():
    src = [
        "import attention_lab.core\n_i: object = attention_lab.core.softmax\ndef f(x):\n    return _i(x)"
    ]
    assert library_flags(src, ["f", "g"]) == ["f refers to attention_lab.core"]
    by_path = ["exec(open('/srv/attention_lab/_steps.py').read(), ns)\ndef f(x):\n    return x"]
    assert library_flags(by_path, ["f"]) == ["the student's cells name attention_lab"]
    assert library_flags(["import numpy as np\ndef f(x):\n    return np.exp(x)"], ["f"]) == []
    nb = new_notebook(cells=[new_code_cell("x"), new_code_cell("y")])
    error = {
        "output_type": "error",
        "ename": "LibraryHidden",
        "evalue": STUB_MARKER,
        "traceback": [],
    }
    nb.cells[1].outputs = [nbformat.from_dict(error)]
    assert stub_seen(nb) == ["cell 2"]
    assert json.loads(json.dumps(stub_seen(nb))) == ["cell 2"]


def test_the_stub_and_the_checks_agree_on_its_words():
    """The stub cannot import the grader: its message is a copy, kept equal here."""
    from attention_lab.checks._library import HIDDEN_LIBRARY

    assert f'MARKER = "{HIDDEN_LIBRARY}"' in (STUB_FOLDER / "__init__.py").read_text()
    assert STUB_MARKER == HIDDEN_LIBRARY


@pytest.mark.slow
def test_the_stub_covers_what_the_kernel_imports_not_only_what_the_grader_does(tmp_path):
    """``make grade`` run in a course checkout imports the checkout's ``attention_lab/``, while
    the kernel (its own working folder, the venv's ``sys.path``: a regular install) imports
    another copy: both get the stub, so a library handed in earns what a blank earns.
    """
    import json
    import shutil
    import subprocess
    import sys

    import attention_lab

    installed = os.path.realpath(attention_lab.__path__[0])  # what the venv's kernel imports
    checkout = tmp_path / "checkout"
    shutil.copytree(installed, checkout / "attention_lab")  # the course folder's own copy
    code = (
        "import json, os, sys, attention_lab\n"
        "from attention_grader.sandbox.implement_it import hidden_library_mounts\n"
        "print(json.dumps([os.path.realpath(attention_lab.__path__[0]),"
        " hidden_library_mounts(sys.executable)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, capture_output=True, text=True, check=True
    )
    grader_imports, mounts = json.loads(done.stdout.strip().splitlines()[-1])
    assert grader_imports == os.path.realpath(checkout / "attention_lab")  # not the kernel's
    stubbed = {folder for folder, stub in mounts if stub}
    assert {grader_imports, installed} <= stubbed, mounts
