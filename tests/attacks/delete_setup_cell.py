"""Deletes the read-only imports cell (nbgrader does not bring it back) and binds a `gradecheck` that passes everything, wrong answers."""

DELETE = ["imports"]
ANSWERS = {
    "q1": (
        "import numpy as np\n"
        "class _Yes:\n"
        "    def __getattr__(self, name):\n"
        "        return lambda *a, **k: None\n"
        "gradecheck = _Yes()\n"
        "weights = np.zeros(3)"
    ),
}
# The imports cell comes back in its place: the test's gradecheck is the teacher's.
EXPECT_SCORE = 2
EXPECT_FLAGS = {"edited_locked_cell"}
