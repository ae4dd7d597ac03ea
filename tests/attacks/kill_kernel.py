"""Kills its own kernel with SIGKILL after q1 (right); the tests after it cannot earn points."""

ANSWERS = {
    "q2": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
}
EXPECT_SCORE = 1
EXPECT_FLAGS = {"exit"}
