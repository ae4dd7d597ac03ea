"""A test that could run a student's value as code in the grader is found, by every spelling."""

from __future__ import annotations

import pytest
from attention_grader.checking.code_sinks import code_sinks

STUDENT = {"expr", "name", "blob", "answer"}

#: Each one runs (or can run) the student's text as code if the grader runs the test.
SINKS = {
    "eval": "assert eval(expr) == 42",
    "exec": "ns = {}\nexec(expr, ns)\nassert ns['x'] == 1",
    "compile": "assert eval(compile(expr, 'x', 'eval')) == 42",
    "__import__": "m = __import__(name)\nassert m.pi > 3",
    "builtins.eval": "import builtins\nassert builtins.eval(expr) == 42",
    "__builtins__ subscript": "assert __builtins__['eval'](expr) == 42",
    "alias of eval": "e = eval\nassert e(expr) == 42",
    "from builtins import": "from builtins import exec as run\nrun(expr)",
    "getattr builtins constant": "import builtins\nassert getattr(builtins, 'eval')(expr) == 42",
    "pickle.loads": "import pickle\nassert pickle.loads(blob) == [1, 2]",
    "pickle alias": "import pickle as pk\nassert pk.loads(blob) == [1, 2]",
    "from pickle import loads": "from pickle import loads\nassert loads(blob) == [1, 2]",
    "marshal.loads": "import marshal\nassert marshal.loads(blob) == 3",
    "importlib": "import importlib\nassert importlib.import_module(name).pi > 3",
    "getattr with a student string": "import math\nassert getattr(math, name)(0) == 1",
    "getattr through a local": "f = name.strip()\nimport math\nassert getattr(math, f)(0) == 1",
    "globals lookup": "assert globals()[name] is not None",
    "f-string into exec": "exec(f'result = {answer}')\nassert result == 3",
    "format into eval": "assert eval('{} + 1'.format(answer)) == 4",
    "numpy allow_pickle": "import numpy as np\nassert np.load(blob, allow_pickle=True).sum() == 3",
    "subprocess": "import subprocess\nsubprocess.run(answer, shell=True)",
    "os.system": "import os\nos.system(answer)",
    "timeit": "import timeit\ntimeit.timeit(answer, number=1)",
    "ipython run_cell": "get_ipython().run_cell(answer)",
    "operator.attrgetter": "import operator\nassert operator.attrgetter(name)(3) == 3",
}

#: Ordinary tests that run nothing of the student's: never refused for this cause.
PLAIN = {
    "compare": "assert answer == 42",
    "isclose": "from math import isclose\nassert isclose(answer, 0.5)",
    "np.load a teacher file": "import numpy as np\ndata = np.load('data.npy')\nassert answer == data.sum()",
    "json.loads": "import json\nassert json.loads('[1]') == [1]",
    "getattr constant": "assert getattr(answer, 'shape') == (2,)",
    "local named code": "code = answer.strip()\nassert code.upper() == 'ABC'",
    "loop with getattr of teacher names": (
        "import math\nfor fn in ['sin', 'cos']:\n    assert callable(getattr(math, fn))"
    ),
    "literal_eval": "import ast\nassert ast.literal_eval('[1, 2]') == [1, 2]",
    "message mentioning eval": "assert answer == 'eval', 'eval'",
}


@pytest.mark.parametrize("source", SINKS.values(), ids=SINKS.keys())
def test_every_spelling_of_running_a_value_as_code_is_found(source):
    causes = code_sinks(source, STUDENT)
    assert causes, source
    assert all("run_in_kernel" in c and "grader" in c for c in causes)


@pytest.mark.parametrize("source", PLAIN.values(), ids=PLAIN.keys())
def test_ordinary_tests_are_not_refused_for_it(source):
    assert code_sinks(source, STUDENT) == []


def test_an_alias_imported_in_a_setup_cell_is_seen_through():
    assert code_sinks("assert pk.loads(blob) == 1", STUDENT, {"pk": "pickle"})
    assert code_sinks("assert pk.loads(blob) == 1", STUDENT) == []  # pk: nothing known
