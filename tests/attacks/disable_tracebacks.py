"""Hides every error: no tracebacks, silent excepthook, custom exception handler; wrong answers."""

ANSWERS = {
    "q1": (
        "import sys\n"
        "ip = get_ipython()\n"
        "ip.showtraceback = lambda *a, **k: None\n"
        "ip.set_custom_exc((BaseException,), lambda *a, **k: None)\n"
        "sys.excepthook = lambda *a: None\n"
        "sys.tracebacklimit = 0\n"
        "weights = np.zeros(3)"
    ),
    "q2": "def softmax(x):\n    return x",
    "q3": "answer_q3 = 'keys'",
}
EXPECT_SCORE = 0
EXPECT_FLAGS = {"traceback"}
