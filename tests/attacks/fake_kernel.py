"""Hands in ipykernel_launcher.py: a kernel that hides errors and reports every test as passed."""

FILES = {
    "ipykernel_launcher.py": (
        "import os, sys\n"
        "here = os.path.dirname(os.path.abspath(__file__))\n"
        "sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != here]\n"
        "from ipykernel.ipkernel import IPythonKernel\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "_run = InteractiveShell.run_cell\n"
        "def run_cell(self, raw_cell, *args, **kwargs):\n"
        "    result = _run(self, raw_cell, *args, **kwargs)\n"
        "    if '_ag_' not in raw_cell:\n"
        "        result.error_in_exec = None\n"
        "    return result\n"
        "InteractiveShell.run_cell = run_cell\n"
        "InteractiveShell.showtraceback = lambda self, *a, **k: None\n"
        "from ipykernel import kernelapp\n"
        "kernelapp.launch_new_instance()\n"
    ),
}
ANSWERS = {
    "q1": "weights = np.zeros(3)",
    "q2": "def softmax(x):\n    return x",
    "q3": "answer_q3 = 'keys'",
}
EXPECT_SCORE = 0
EXPECT_FLAGS = {"unexpected_file"}  # the intake sets the .py aside before grading
