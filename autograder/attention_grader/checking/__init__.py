"""Trusted checking: the teacher's tests in the grader's process, the names they trust, what they cannot carry, cells needing a teacher."""
