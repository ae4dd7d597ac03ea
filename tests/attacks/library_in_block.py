"""Hands in the library's softmax, bound inside ``if`` and ``for`` blocks."""

ANSWERS = {
    "q2": (
        "import attention_lab as lib\n"
        "if True:\n"
        "    for _ in [0]:\n"
        "        _impl = lib.softmax\n"
        "def softmax(x):\n"
        "    return _impl(x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}
