"""Calls sys.exit and os._exit to stop grading before the tests (q1 right, the rest wrong)."""

ANSWERS = {
    "q2": "import sys\ndef softmax(x):\n    return x\nsys.exit(0)",
    "q3": "import os\nanswer_q3 = 'keys'\nos._exit(0)",
}
EXPECT_SCORE = 1
EXPECT_FLAGS = {"exit"}
