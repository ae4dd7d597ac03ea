"""attention_grader.steps.progress: names whom a grading run waits for; plain lines when piped."""

from __future__ import annotations

import io

from attention_grader.steps import progress
from attention_grader.steps.progress import Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_piped_output_gets_one_plain_line_per_submission(monkeypatch):
    out = io.StringIO()  # not a terminal
    shown = Progress(2, stream=out)
    shown.start("alice")
    shown.start("dana")
    shown.finish("alice", "graded", 3.2)
    monkeypatch.setattr(progress, "STILL_EVERY", 0.0)
    shown.tick()
    shown.finish("dana", "graded", 31.0)
    shown.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "[1/2] alice: graded (3.2 s)"
    assert lines[1].startswith("  still grading dana (")
    assert lines[2] == "[2/2] dana: graded (31.0 s)"
    assert "\r" not in out.getvalue()


def test_the_bar_on_a_terminal_names_the_students_being_graded():
    out = Terminal()
    shown = Progress(3, stream=out)
    shown.start("bob")
    shown.start("dana")
    shown.finish("bob", "graded", 1.0)
    shown.tick()
    shown.close()
    last = out.getvalue().split("\r")[-1]
    assert "1/3" in last and "grading dana (" in last and "bob (" not in last


def test_no_progress_writes_nothing():
    out = io.StringIO()
    shown = Progress(1, enabled=False, stream=out)
    shown.start("a\x1b[2J")
    shown.finish("a\x1b[2J", "graded", 1.0)
    shown.close()
    assert out.getvalue() == ""


def test_student_names_are_printable():
    out = io.StringIO()
    shown = Progress(1, stream=out)
    shown.start("eve\x1b[2J")
    shown.finish("eve\x1b[2J", "graded", 1.0)
    assert "\x1b" not in out.getvalue()
