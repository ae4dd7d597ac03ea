"""Loops forever in the q2 answer cell; the per-cell timeout interrupts it, q1 and q3 still count."""

ANSWERS = {
    "q2": "while True:\n    pass",
}
EXPECT_SCORE = 2
EXPECT_FLAGS: set[str] = set()
