"""Drags the read-only imports cell below the tests and binds a `gradecheck` whose every call passes, wrong answers."""

MOVE = {"imports": "test_q3"}
ANSWERS = {
    "q1": (
        "import numpy as np\n"
        "class _Yes:\n"
        "    calls = []\n"
        "    def __getattr__(self, name):\n"
        "        return lambda *a, **k: _Yes.calls.append((a, k))\n"
        "gradecheck = _Yes()\n"
        "weights = np.zeros(3)"
    ),
    "q2": "def softmax(x):\n    return np.zeros(len(x))",
}
# The imports cell is put back before the tests: the test's gradecheck is the teacher's.
EXPECT_SCORE = 1
EXPECT_FLAGS = {"moved_cell"}
