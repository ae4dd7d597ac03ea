"""Rebinds a library function the notebook imports (`assert_allclose`) to a no-op, wrong q2."""

ANSWERS = {
    "q2": (
        "assert_allclose = lambda *a, **k: None\n"
        "def softmax(x):\n"
        "    return np.full(len(x), 1.0 / len(x))"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"monkeypatch"}
