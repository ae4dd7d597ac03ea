"""Hands in the library's softmax, bound by a walrus inside an expression."""

ANSWERS = {
    "q2": (
        "from attention_lab import core\n"
        "[(_impl := core.softmax)]\n"
        "def softmax(x):\n"
        "    return _impl(x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}
