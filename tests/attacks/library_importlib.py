"""Reaches the library through importlib, by a name built at run time, inside the function."""

ANSWERS = {
    "q2": (
        "import importlib as _il\n"
        "def softmax(x):\n"
        "    return _il.import_module('.'.join(['attention_lab', 'core'])).softmax(x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}
