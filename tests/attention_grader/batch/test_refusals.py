"""attention_grader.batch.refusals: each cause of a release refusal says itself and its way out."""

from __future__ import annotations

import pytest
from attention_grader.batch.refusals import KINDS, Refusal, refusal_message

#: What each kind's heading must say (its cause) and what its way out must name.
SAYS = {
    "solution": ("does not get every point when graded the way students will be", None),
    "variant_points": ("loses points on a sample student's own numbers", "variants.Redraw"),
    "alike": ("two misconceptions give the same wrong answer", "tells_apart"),
    "tie": ("two right scores or weights tie", "variants.Redraw"),
    "accepted": ("a student who makes that mistake would get the points", "variants.Redraw"),
    "collision": (
        "copying it would earn the points",
        "raise c.CheckSolution.variant_collision_rate",
    ),
}


def test_every_kind_is_described_here():
    assert set(SAYS) == set(KINDS)


@pytest.mark.parametrize("kind", sorted(SAYS))
def test_each_kind_has_its_own_heading_and_way_out(kind):
    cause, way_out = SAYS[kind]
    message = refusal_message("nb", [Refusal("cell_a", "what went wrong", kind)])
    lines = message.splitlines()
    assert lines[0].startswith("release refused: ") and cause in lines[0]
    assert "nb" in lines[0]
    assert lines[1] == "  cell_a: what went wrong"
    for other, (text, _) in SAYS.items():  # no other cause's heading
        if other != kind:
            assert text not in message
    if way_out is None:  # each cause of the solution's own says what to do
        assert len(lines) == 2
    else:
        assert lines[2].startswith("  what to do: ") and way_out in lines[2]


def test_a_collision_does_not_say_the_solution_loses_points():
    """The heading once said 'does not get every point' for every refusal."""
    message = refusal_message("nb", [Refusal("scores_test", "2 of 400 pairs", "collision")])
    assert "does not get every point" not in message
    assert "widen the numbers the generator draws" in message


def test_causes_of_several_kinds_are_grouped_under_their_headings():
    message = refusal_message(
        "nb",
        [
            Refusal("scores_test", "collides", "collision"),
            Refusal("test_a", "fails", "solution"),
            Refusal("variant sample-3", "ties", "tie"),
            Refusal("test_b", "fails too", "solution"),
        ],
    )
    lines = message.splitlines()
    headings = [i for i, line in enumerate(lines) if line.startswith("release refused: ")]
    assert len(headings) == 3
    first = lines[headings[0] : headings[1]]
    assert "does not get every point" in first[0]
    assert first[1:] == ["  test_a: fails", "  test_b: fails too"]


def test_an_unknown_kind_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown refusal kind 'typo': one of solution"):
        Refusal("x", "y", "typo")
