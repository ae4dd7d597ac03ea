"""Per-student variants: the seed derivation, where the seed comes from, the draw."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab import variants
from attention_lab.variants import PRACTICE, SEED_ENV, Redraw, StudentSeed

KEY = bytes(range(32))


def small_numbers(rng):
    return rng.integers(-3, 4, size=(3, 2)), rng.integers(-3, 4, size=2)


def test_two_students_differ_and_each_is_stable():
    alice, bob = StudentSeed.from_key(KEY, "alice"), StudentSeed.from_key(KEY, "bob")
    a1 = variants.draw("focus", "launched", small_numbers, alice)
    a2 = variants.draw("focus", "launched", small_numbers, StudentSeed.from_key(KEY, "alice"))
    b = variants.draw("focus", "launched", small_numbers, bob)
    assert all(np.array_equal(x, y) for x, y in zip(a1, a2, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a1, b, strict=True))


def test_questions_assignments_and_keys_give_other_seeds():
    alice = StudentSeed.from_key(KEY, "alice")
    seeds = {
        variants.question_seed(alice, "focus", "q1"),
        variants.question_seed(alice, "focus", "q2"),
        variants.question_seed(alice, "heads", "q1"),
        variants.question_seed(StudentSeed.from_key(bytes(32), "alice"), "focus", "q1"),
    }
    assert len(seeds) == 4


def test_the_seed_is_an_hmac_of_the_key_and_reveals_no_key():
    import hashlib
    import hmac

    seed = StudentSeed.from_key(KEY, "alice")
    assert seed.secret == hmac.new(KEY, b"attention-lab/student|alice", hashlib.sha256).digest()
    assert KEY.hex() not in seed.to_text() and seed.secret.hex() not in repr(seed)


def test_where_the_seed_comes_from(monkeypatch):
    alice = StudentSeed.from_key(KEY, "alice")
    monkeypatch.delenv(SEED_ENV, raising=False)
    assert variants.current_seed() is PRACTICE
    monkeypatch.setenv(SEED_ENV, alice.to_text())
    assert variants.current_seed() == alice
    bob = StudentSeed.from_key(KEY, "bob")
    with variants.graded_as(bob):  # the grader's context wins over the environment
        assert variants.current_seed() == bob
    assert variants.current_seed() == alice


@pytest.mark.parametrize("text", ["alice", "alice:zz", ":" + "0" * 64, "a:" + "0" * 63])
def test_a_bad_seed_says_what_to_do(monkeypatch, text):
    monkeypatch.setenv(SEED_ENV, text)
    with pytest.raises(ValueError, match="unset it to work on the practice numbers"):
        variants.current_seed()


def test_redraw_continues_the_stream_and_stays_fixed():
    calls = []

    def no_ties(rng):
        scores = rng.integers(0, 3, size=3)
        calls.append(scores)
        if len(set(scores.tolist())) < 3:
            raise Redraw
        return scores

    first = variants.draw("a", "q", no_ties, PRACTICE)
    assert len(set(first.tolist())) == 3
    assert np.array_equal(first, variants.draw("a", "q", no_ties, PRACTICE))


def test_a_generator_that_never_accepts_is_named():
    def never(rng):
        raise Redraw

    with pytest.raises(RuntimeError, match="a/q rejected"):
        variants.draw("a", "q", never, PRACTICE)


@pytest.mark.parametrize("part", ["", "a|b", "../x", "a b"])
def test_question_names_are_plain(part):
    with pytest.raises(ValueError, match="letters, digits"):
        variants.question_seed(PRACTICE, part, "q")


@pytest.mark.parametrize("student", ["a b", "x:y", "<img src=x>"])
def test_any_id_the_exchange_trusts_round_trips(student):
    seed = StudentSeed.from_key(KEY, student)
    assert StudentSeed.from_text(seed.to_text()) == seed


def test_a_student_of_two_courses_draws_each_courses_own_numbers(monkeypatch, tmp_path):
    """One seed per course (each its own key), picked by the course folder she works in."""
    from attention_lab.variants import current_seed, seeds_text

    algebra = StudentSeed.from_key(b"algebra's own course key", "ana")
    attention = StudentSeed.from_key(b"attention's course key..", "ana")
    monkeypatch.setenv(SEED_ENV, seeds_text({"algebra": algebra, "attention": attention}))
    for course, seed in (("algebra", algebra), ("attention", attention)):
        folder = tmp_path / course / "focus_in_the_noise"
        folder.mkdir(parents=True)
        monkeypatch.chdir(folder)
        assert current_seed() == seed
    monkeypatch.chdir(tmp_path)  # neither course's folder: said, never one course's numbers
    with pytest.raises(ValueError, match="from its course's folder"):
        current_seed()
    assert current_seed(any_course=True) == algebra  # a lesson's self-check: her first course's
    assert seeds_text({"algebra": algebra}) == algebra.to_text()  # one course: as before
