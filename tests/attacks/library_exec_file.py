"""Reads the library's own .py file from its real folder and executes it: no import at all."""

ANSWERS = {
    "q2": (
        "_ns = {{'__name__': 'copy'}}\n"
        "exec(open('{library}/_steps.py').read(), _ns)\n"
        "def softmax(x):\n"
        "    return _ns['softmax'](x)"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"library_use"}
