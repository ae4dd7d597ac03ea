"""Reaches the library through ``__builtins__.__import__`` inside the function, at call time."""

ANSWERS = {
    "q2": (
        "def softmax(x):\n"
        "    lib = __builtins__.__import__('attention' + '_lab.core', fromlist=['softmax'])\n"
        "    return lib.softmax(x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}
