"""Monkeypatches the check modules (the assignment's and attention_lab.checks), wrong answers."""

ANSWERS = {
    "q1": (
        "import attention_lab.checks\n"
        "gradecheck.check_close = lambda *a, **k: None\n"
        "gradecheck.WrongAnswer = Warning\n"
        "for name in dir(attention_lab.checks):\n"
        "    if name.startswith('check_'):\n"
        "        setattr(attention_lab.checks, name, lambda *a, **k: None)\n"
        "weights = np.zeros(3)"
    ),
    "q2": "def softmax(x):\n    return np.zeros(len(x))",
}
EXPECT_SCORE = 1
EXPECT_FLAGS = {"monkeypatch"}
