"""Adds cells dressed as autograder tests (forged nbgrader metadata) to run code in the grader."""

_BODY = (
    "import pathlib\n"
    "pathlib.Path('/tmp/forged-{token}').write_text('ran in the grader')\n"
    "open('{course}/forged-{token}', 'w').write('ran in the grader')"
)
EXTRA_CELLS = [
    {
        "after": "test_q3",
        "source": _BODY,
        "nbgrader": {
            "grade": True,
            "solution": False,
            "locked": True,
            "points": 10,
            "grade_id": "bonus_points",
            "schema_version": 3,
        },
    },
    {
        "after": "q1",
        "source": _BODY,
        "nbgrader": {
            "grade": True,
            "solution": False,
            "locked": True,
            "points": 1,
            "grade_id": "test_q1",
            "schema_version": 3,
        },
    },
]
ANSWERS = {"q1": "weights = np.zeros(3)"}
EXPECT_SCORE = 2
EXPECT_FLAGS = {"forged_cell"}
