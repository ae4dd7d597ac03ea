"""The course and its settings: where it lives, the one door its config loads through, every limit, the environment's defaults, the patches of nbgrader."""
