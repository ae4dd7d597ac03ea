"""The teacher's steps, as make/teacher.mk lists them: release, collect, grade and its progress, feedback, grades and the LMS export, the student copy."""
