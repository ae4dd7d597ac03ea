"""Reads the answers in source/ and another student's submission (relative and absolute paths)."""

ANSWERS = {
    "q1": (
        "import glob\n"
        "found = glob.glob('../../../source/**/*', recursive=True)\n"
        "found += glob.glob('{course}/source/**/*', recursive=True)\n"
        "found += glob.glob('{course}/submitted/*/*/*.ipynb')\n"
        "found += glob.glob('../../*/attacklab/*.ipynb')\n"
        "print('FOUND', len(found))\n"
        "assert not found, found\n"
        "weights = np.exp([1.0, 2.0, 3.0]) / np.exp([1.0, 2.0, 3.0]).sum()"
    ),
}
EXPECT_SCORE = 3
EXPECT_FLAGS = {"grading_files"}
