"""Redefines AssertionError, assert's helpers and other builtins, with wrong answers."""

ANSWERS = {
    "q1": (
        "import builtins\n"
        "class AssertionError(Exception):\n"
        "    pass\n"
        "builtins.AssertionError = AssertionError\n"
        "builtins.callable = lambda f: True\n"
        "builtins.isinstance = lambda *a: True\n"
        "weights = None"
    ),
    "q2": "softmax = None",
    "q3": "answer_q3 = 'keys'",
}
EXPECT_SCORE = 0
EXPECT_FLAGS = {"builtins"}
