"""Install steps for a course (autograder/attention_hub/course_install.py), without accounts:
tests/hub/conftest.py installs real courses for real accounts on the test hubs.
"""

from __future__ import annotations

import os

from attention_hub.course_install import untraversable_dirs


def test_untraversable_dirs_names_the_blocking_folder(tmp_path):
    private = tmp_path / "private"
    (private / "env" / "bin").mkdir(parents=True)
    target = private / "env" / "bin" / "python"
    target.write_text("")
    os.chmod(tmp_path, 0o755)
    os.chmod(private, 0o700)
    assert str(private) in untraversable_dirs(str(target))
    os.chmod(private, 0o711)
    assert str(private) not in untraversable_dirs(str(target))
