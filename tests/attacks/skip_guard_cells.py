"""Attacks the grader itself: a run_cell that skips any cell mentioning the guard. Fails closed."""

ANSWERS = {
    "q1": (
        "ip = get_ipython()\n"
        "_orig = ip.run_cell\n"
        "def run_cell(raw_cell, *args, **kwargs):\n"
        "    if '_ag_' in raw_cell:\n"
        "        raw_cell = 'None'\n"
        "    result = _orig(raw_cell, *args, **kwargs)\n"
        "    result.error_in_exec = None\n"
        "    return result\n"
        "ip.run_cell = run_cell\n"
        "weights = np.zeros(3)"
    ),
    "q2": "def softmax(x):\n    return x",
}
EXPECT_SCORE = 0
EXPECT_FLAGS = {"grader_hijack"}
