"""A dict subclass whose keys all share one hash: the same door as the set, through dict keys.

The kernel's dict is empty; its ``items()`` hands out 200 000 pairs whose int keys all hash to
0. The reply is refused by its length, before any key is hashed.
"""

ANSWERS = {
    "q1": (
        "class Table(dict):\n"
        "    def items(self):\n"
        "        return [(k * (2**61 - 1), 0.5) for k in range(1, 200_001)]\n"
        "\n"
        "weights = Table()"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"unreadable_answer"}
