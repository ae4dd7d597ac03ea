"""Grading one notebook: the sandboxed kernel, the answer channel, trusted checking, flags, the budget, the workers."""
