"""nbgrader's release_feedback with the intake applied (attention_grader.exchange.release_feedback)."""

import os

import pytest
from attention_grader.exchange.release_feedback import SafeExchangeReleaseFeedback


def _feedback_course(tmp_path, secret: str | None, page_is_link: bool = False):
    from tests.support.grading_course import FIXTURE, make_course

    course = make_course(tmp_path)
    folder = course.root / "feedback" / "ana" / FIXTURE
    folder.mkdir(parents=True)
    if page_is_link:
        os.symlink(
            course.root / "source" / FIXTURE / f"{FIXTURE}.ipynb", folder / f"{FIXTURE}.html"
        )
    else:
        (folder / f"{FIXTURE}.html").write_text("<p>your feedback</p>")
    (folder / "timestamp.txt").write_text("2026-11-30 09:00:00.000000 UTC")
    if secret is not None:
        (folder / "submission_secret.txt").write_text(secret)
    return course, FIXTURE


def _release(course, assignment):
    api = course.api()
    cd = course.coursedir(assignment_id=assignment, student_id="*")
    app = SafeExchangeReleaseFeedback(coursedir=cd, authenticator=api.authenticator, parent=api)
    app.start()
    return app


def test_release_never_writes_through_a_link_left_in_the_exchange(tmp_path):
    from nbgrader.utils import notebook_hash

    secret = "ab" * 64
    course, assignment = _feedback_course(tmp_path, secret)
    outbound = course.exchange / course.course_id / "feedback"
    outbound.mkdir(parents=True)
    victim = tmp_path / "teacher_bashrc"
    victim.write_text("safe")
    checksum = notebook_hash(secret=secret, notebook_id=assignment)
    os.symlink(victim, outbound / f"{checksum}-tmp.html")  # planted by someone who knows it
    app = _release(course, assignment)
    assert app.released == ["ana"] and victim.read_text() == "safe"
    page = outbound / f"{checksum}.html"
    assert page.read_text() == "<p>your feedback</p>" and not page.is_symlink()


@pytest.mark.parametrize(
    ("secret", "link"), [(None, False), ("not hex!", False), ("ab" * 64, True)]
)
def test_release_names_a_student_it_cannot_release_and_publishes_nothing(tmp_path, secret, link):
    course, assignment = _feedback_course(tmp_path, secret, page_is_link=link)
    app = _release(course, assignment)
    assert app.released == [] and list(app.withheld) == ["ana"]
    outbound = course.exchange / course.course_id / "feedback"
    assert list(outbound.glob("*.html")) == []
