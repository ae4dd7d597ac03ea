"""The exchange: who handed in and when, who may read what, nbgrader's collect, list and release_feedback with the intake applied, the submission history."""
