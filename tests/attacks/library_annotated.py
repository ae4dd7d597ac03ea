"""Hands in the library's softmax, bound by an annotated assignment (the static check missed it).

In an implement-it notebook the graded kernel has a stub in place of attention_lab: the import
raises, ``softmax`` is never defined, q2 earns what a blank earns, flagged.
"""

ANSWERS = {
    "q2": (
        "import attention_lab.core\n"
        "_impl: object = attention_lab.core.softmax\n"
        "def softmax(x):\n"
        "    return _impl(x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}
