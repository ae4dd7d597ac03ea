"""Attacks the grader itself: a run_cell that skips the grader's requests and hides every error."""

ANSWERS = {
    "q1": (
        "ip = get_ipython()\n"
        "_orig = ip.run_cell\n"
        "def run_cell(raw_cell, *args, **kwargs):\n"
        "    if any(word in raw_cell for word in ('attention-grader', 'attention_grader', '_ag_')):\n"
        "        raw_cell = 'None'\n"
        "    result = _orig(raw_cell, *args, **kwargs)\n"
        "    result.error_in_exec = None\n"
        "    return result\n"
        "ip.run_cell = run_cell\n"
        "weights = np.zeros(3)"
    ),
    "q2": "def softmax(x):\n    return x",
}
# Its answers can no longer be read: every test scores 0.
EXPECT_SCORE = 0
EXPECT_FLAGS = {"kernel_hook", "unreadable_answer"}
