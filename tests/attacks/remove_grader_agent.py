"""Removes the grader's agent the kernel keeps (and breaks the name it is kept under), honest answers.

The grader sends its agent once per kernel and keeps it in ``sys.modules``; a cell after each
test takes it away, and one puts something that is no agent in its place: the grader must send
it again and read every answer, not score the later questions 0.
"""

_REMOVE = (
    "import sys\n"
    "for _name in [n for n in sys.modules if n.startswith('attention_grader_agent')]:\n"
    "    del sys.modules[_name]"
)
EXTRA_CELLS = [
    {"after": "test_q1", "source": _REMOVE},
    {"after": "test_q2", "source": _REMOVE + "\n    sys.modules[_name] = None"},
]
EXPECT_SCORE = 3
EXPECT_FLAGS: set[str] = set()
