"""The control the static check always caught: ``_impl = lib.softmax``, now with no library."""

ANSWERS = {
    "q2": (
        "import attention_lab.core as lib\n"
        "_impl = lib.softmax\n"
        "def softmax(x):\n"
        "    return _impl(x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}
