"""Allocates 6 GB; the memory limit turns it into a MemoryError and grading goes on."""

ANSWERS = {
    "q1": (
        "try:\n"
        "    hog = np.ones(6 * 2**30 // 8)\n"
        "    print('ALLOCATED', hog.nbytes)\n"
        "except MemoryError:\n"
        "    print('MemoryError')\n"
        "weights = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()"
    ),
}
EXPECT_SCORE = 3
EXPECT_FLAGS: set[str] = set()
