"""Hands in a numpy.py next to the notebook: the real numpy, except that allclose is always True."""

FILES = {
    "numpy.py": (
        "import importlib, os, sys\n"
        "_here = os.path.dirname(os.path.abspath(__file__))\n"
        "_me = sys.modules.pop('numpy')\n"
        "_path = sys.path[:]\n"
        "sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != _here]\n"
        "_real = importlib.import_module('numpy')\n"
        "sys.path[:] = _path\n"
        "globals().update({k: v for k, v in vars(_real).items() if not k.startswith('__')})\n"
        "def allclose(*args, **kwargs):\n"
        "    return True\n"
        "sys.modules['numpy'] = _me\n"
    ),
}
ANSWERS = {
    "q1": "weights = np.zeros(3)",
    "q2": "def softmax(x):\n    return np.zeros(len(x))",
}
# The fake numpy lives in its own kernel only: the checks run in the grader with the real one,
# so the honest q3 earns its point and the wrong answers earn nothing.
EXPECT_SCORE = 1
EXPECT_FLAGS = {"unexpected_file"}  # the intake sets numpy.py aside before grading
