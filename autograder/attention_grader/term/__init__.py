"""The teacher's steps of a term: release, collect, grade, feedback, grades, report, gain, self-study."""
