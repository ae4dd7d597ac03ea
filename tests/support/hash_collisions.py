"""Values a student hands in to make rebuilding a set or a dict cost quadratic time."""

#: Every one of these ints hashes to 0 (CPython hashes ints modulo the Mersenne prime 2**61 - 1).
COLLIDING = [k * (2**61 - 1) for k in range(1, 2_000_001)]
