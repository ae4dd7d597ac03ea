"""Each course's variant key on the hub (autograder/attention_hub/variant_keys.py), without a hub:
a student's seed from her course's key, a spoilt key said in the log, never a seed from it.

tests/attention_grader/common/test_variant_key.py checks the keys the hub makes against the
grader's reading of them; test_classroom.py that the hub makes them as it starts.
"""

from __future__ import annotations

import pytest
from attention_hub.course import Course
from attention_hub.variant_keys import ensure_variant_keys, variant_seed


def test_a_spoilt_key_gives_no_seed_and_says_how_to_mend_it(tmp_path, caplog):
    key = tmp_path / "variant.key"
    key.write_text("not hex at all\n")
    course = Course("attention-lab", variant_key_file=str(key))
    with caplog.at_level("ERROR"):
        assert variant_seed([course], {"nbgrader-attention-lab"}, "alice") == ""
    assert "attention-lab: variant key unreadable" in caplog.text
    assert "restore the key from a backup" in caplog.text
    assert ensure_variant_keys([course]) == []  # a spoilt key is not replaced by a new one
    assert key.read_text() == "not hex at all\n"


def test_only_a_student_of_a_keyed_course_gets_a_seed(tmp_path):
    (tmp_path / "variant.key").write_text(bytes(range(32)).hex() + "\n")
    keyed = Course("attention-lab", variant_key_file=str(tmp_path / "variant.key"))
    plain = Course("algebra")
    assert variant_seed([plain, keyed], {"nbgrader-algebra"}, "alice") == ""
    assert variant_seed([plain, keyed], {"formgrade-attention-lab"}, "alice") == ""
    assert variant_seed([plain, keyed], {"nbgrader-attention-lab"}, "alice").startswith("alice:")


@pytest.mark.parametrize("login", ["alice", "bob"])
def test_each_login_gets_its_own_seed_from_one_key(tmp_path, login):
    (tmp_path / "variant.key").write_text(bytes(range(32)).hex() + "\n")
    course = Course("attention-lab", variant_key_file=str(tmp_path / "variant.key"))
    mine = variant_seed([course], {"nbgrader-attention-lab"}, login)
    other = variant_seed([course], {"nbgrader-attention-lab"}, "carol")
    assert mine != other and mine.startswith(f"{login}:")
