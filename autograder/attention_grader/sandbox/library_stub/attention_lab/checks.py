"""attention_lab.checks in a graded implement-it kernel: every check does nothing here.

The grader runs the real checks in its own process; a student's own call of a check (a
self-check left in an answer cell) must not stop their cell.
"""


def _runs_in_the_grader(*args, **kwargs):
    return None


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _runs_in_the_grader
