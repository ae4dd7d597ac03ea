"""A class roster as a teacher imports it (``nbgrader db student import``), hostile cell included."""

from __future__ import annotations

ROSTER = (
    "id,first_name,last_name,email,lms_user_id\n"
    "ana,Ana,Rao,ana@example.org,10234\n"
    "ben,Ben,=HYPERLINK(1),,10235\n"
    "cy,,,,\n"
)


def import_roster(course, tmp_path):
    """``nbgrader db student import roster.csv``, run as nbgrader's own app on this course."""
    from nbgrader.apps.dbapp import DbStudentImportApp

    roster = tmp_path / "roster.csv"
    roster.write_text(ROSTER)
    app = DbStudentImportApp(config=course.config)
    app.initialize([str(roster), f"--db={course.db_url}"])
    app.start()
