"""Edits the q1 test cell to a no-op and hands in a wrong q1. nbgrader restores the test; flagged."""

ANSWERS = {"q1": "weights = np.zeros(3)"}
EDIT = {"test_q1": "pass  # nothing to see here"}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"edited_test_cell"}
