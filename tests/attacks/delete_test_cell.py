"""Deletes the q1 test cell and hands in a wrong q1. The test is re-added and fails; flagged."""

ANSWERS = {"q1": "weights = [1, 1, 1]"}
DELETE = ["test_q1"]
EXPECT_SCORE = 2
EXPECT_FLAGS = {"deleted_test_cell"}
