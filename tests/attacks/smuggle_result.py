"""A pre_run_cell hook displays a number first in every cell: nbgrader's partial-credit path."""

ANSWERS = {
    "q1": (
        "ip = get_ipython()\n"
        "ip.events.register('pre_run_cell', lambda *a: ip.displayhook(1.0))\n"
        "weights = np.zeros(3)"
    ),
    "q2": "def softmax(x):\n    return x",
    "q3": "answer_q3 = 'queries'",
}
EXPECT_SCORE = 0
EXPECT_FLAGS = {"kernel_hook"}
