"""Answers are objects that claim to equal anything (__eq__, __array__-less)."""

ANSWERS = {
    "q1": (
        "class Anything:\n"
        "    def __eq__(self, other):\n"
        "        return True\n"
        "    __hash__ = object.__hash__\n"
        "    def __bool__(self):\n"
        "        return True\n"
        "weights = Anything()"
    ),
    "q2": "def softmax(x):\n    return Anything()",
    "q3": "answer_q3 = Anything()",
}
EXPECT_SCORE = 0
EXPECT_FLAGS = {"fake_answer"}
