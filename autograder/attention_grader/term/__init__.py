"""What runs in the term's servers and nbgrader's commands: the formgrader's final scores, the student's clock, validate's labels and release check, ``make check``."""
