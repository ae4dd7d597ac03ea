"""A set subclass whose ints all share one hash: the grader's rebuilding would be quadratic.

Every ``k * (2**61 - 1)`` hashes to 0. The subclass is empty in the kernel (building it there
costs nothing) but hands out 200 000 colliding ints when the answer channel lists it; a grader
that rebuilds it with ``set()`` spends minutes per decode (the issue measured 75-136 s for a
2.6 MB reply). The reply is refused by its length, before anything is hashed.
"""

ANSWERS = {
    "q1": (
        "class Bag(set):\n"
        "    def __iter__(self):\n"
        "        return iter([k * (2**61 - 1) for k in range(1, 200_001)])\n"
        "\n"
        "weights = Bag()"
    ),
}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"unreadable_answer"}
