"""Outputs a graded notebook holds, for the tests of what a student reads (the feedback page,
the outcomes read from a notebook), written as IPython and the grader write them.
"""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

#: What IPython writes for `np.sqroot(4)` on line 2 of a cell (colours included).
SQROOT_TRACEBACK = [
    "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
    "\x1b[0;31mAttributeError\x1b[0m                            Traceback (most recent call last)",
    "Cell \x1b[0;32mIn[3], line 2\x1b[0m\n\x1b[1;32m      1\x1b[0m x \x1b[38;5;241m=\x1b[39m "
    "\x1b[38;5;241m4\x1b[39m\n\x1b[0;32m----> 2\x1b[0m y \x1b[38;5;241m=\x1b[39m "
    "\x1b[43mnp\x1b[49m\x1b[38;5;241;43m.\x1b[39;49m\x1b[43msqroot\x1b[49m(x)\n",
    "File \x1b[0;32m/numpy/__init__.py:414\x1b[0m\n\x1b[0;32m--> 414\x1b[0m     raise "
    "AttributeError(msg)\n",
    "\x1b[0;31mAttributeError\x1b[0m: module 'numpy' has no attribute 'sqroot'",
]


#: The issue's example: one long misconception sentence (2336 px of text in a 1046 px box).
LONG = (
    "[sum_normalised] attention_weights: You divided by the sum of the raw scores instead of "
    "exponentiating first, so the allowed weights no longer sum to 1: several of them can even be "
    "negative, which is not a share of attention at all; exponentiate every score (e^x is always "
    "positive), then divide by the sum of the exponentials."
)


def error(ename, evalue="", traceback=None):
    return new_output("error", ename=ename, evalue=evalue, traceback=traceback or [])


#: What grading records in the test cell for LONG (attention_grader.common.diagnosis).
DIAGNOSED = {"attention_grader": {"misconception": {"id": "sum_normalised",
                                                    "text": LONG.split("] ", 1)[1]}}}  # fmt: skip


def feedback_notebook():
    """A graded notebook with one of each: a traceback, a long misconception, a long output and
    an essay not graded yet.
    """
    test = {"nbgrader": {"grade": True, "grade_id": "q1_test", "points": 2, "score": 0}}
    test.update(DIAGNOSED)
    essay = {"nbgrader": {"grade": True, "solution": True, "grade_id": "essay", "points": 3,
                          "score": 0, "ungraded": True}}  # fmt: skip
    answer = {"nbgrader": {"solution": True, "grade_id": "practice_attention"}}
    return new_notebook(
        cells=[
            new_markdown_cell("Scale by $\\frac{1}{\\sqrt{d_k}}$ before the softmax."),
            new_code_cell(
                "y = np.sqroot(x)",
                metadata=answer,
                outputs=[
                    error(
                        "AttributeError",
                        "module 'numpy' has no attribute 'sqroot'",
                        SQROOT_TRACEBACK,
                    )
                ],
            ),  # fmt: skip
            new_code_cell("check(weights)", metadata=test, outputs=[error("Misconception", LONG)]),
            new_code_cell("print('x' * 400)", outputs=[new_output("stream", text="x" * 400)]),
            new_markdown_cell("My answer.", metadata=essay),
        ]
    )
