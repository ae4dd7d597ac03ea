"""Hands in IPython/Jupyter config and start-up files beside the notebook (CVE-2022-21699).

Were the kernel to load any, it would run her ``answers.csv`` as Python (``exec_files``)
and define her answer and a marker before her cells run.

The ``.json`` ones are ordinary data files to the intake and reach the kernel's working folder;
whether they load is up to where the kernel looks for config (``IPYTHONDIR`` in the sandbox's
own /tmp, never the working folder). The ``.py``/``.ipy`` and hidden ones are also set aside by the
intake.
"""

import json

MARKER = "CONFIG-HANDED-IN-WAS-LOADED"
_LINES = [
    f"_config_marker = {MARKER!r}",
    "import numpy as _np",
    "_config_weights = _np.exp([1.0, 2.0, 3.0]) / _np.exp([1.0, 2.0, 3.0]).sum()",
]
# exec_lines alone would be overridden by the grader's own --IPKernelApp.exec_lines; exec_files
# runs a file of any name as Python (here a .csv, which the intake keeps as data).
_RUN = {"exec_lines": _LINES, "exec_files": ["answers.csv"]}
_JSON = json.dumps({"InteractiveShellApp": _RUN, "IPKernelApp": _RUN})
_PY = "".join(f"c.InteractiveShellApp.{k} = {v!r}\n" for k, v in _RUN.items())
_STARTUP = "\n".join(_LINES) + "\n"

FILES = {
    "answers.csv": _STARTUP,
    "ipython_kernel_config.json": _JSON,
    "ipython_config.json": _JSON,
    "jupyter_config.json": _JSON,
    "profile_default/ipython_kernel_config.json": _JSON,
    "profile_default/ipython_config.json": _JSON,
    "ipython_kernel_config.py": _PY,
    "ipython_config.py": _PY,
    "profile_default/ipython_kernel_config.py": _PY,
    "profile_default/startup/00-answers.py": _STARTUP,
    "profile_default/startup/00-answers.ipy": _STARTUP,
    ".ipython/profile_default/ipython_kernel_config.json": _JSON,
    ".ipython/profile_default/startup/00-answers.py": _STARTUP,
    ".jupyter/jupyter_config.json": _JSON,
}
ANSWERS = {
    # Her own cells only read what a loaded config would have defined.
    "q1": (
        "print(globals().get('_config_marker', 'no config loaded'))\n"
        "weights = globals().get('_config_weights', np.zeros(3))"
    ),
}
EXPECT_SCORE = 2  # q2 and q3 honest; q1 earns its point only if a config ran
EXPECT_FLAGS = {"unexpected_file"}  # the intake sets the .py, .ipy and hidden files aside
