"""Honest but wrong: forgot the exponential in q1 and q2. Scores only q3, no flags."""

ANSWERS = {
    "q1": "weights = np.array([1.0, 2.0, 3.0]) / 6.0",
    "q2": "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    return x / x.sum()",
}
EXPECT_SCORE = 1
EXPECT_FLAGS: set[str] = set()
