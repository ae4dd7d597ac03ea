"""No code at all: tags every test cell `skip-execution` (and `raises-exception`) in the tag editor."""

ANSWERS = {
    "q1": "weights = np.zeros(3)",
    "q2": "def softmax(x):\n    return np.zeros(len(x))",
}
TAGS = {
    "test_q1": ["skip-execution"],
    "test_q2": ["skip-execution", "raises-exception"],
    "test_q3": ["skip-execution"],
}
EXPECT_SCORE = 1
