"""Predict, then reveal (attention_lab.checks.predictions.reveal)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attention_lab.checks.predictions import reveal


def test_a_guess_is_shown_beside_the_measurement_with_its_error(capsys):
    result = reveal(0.5, 0.228, "recall at 60 words")
    printed = capsys.readouterr().out
    assert printed.strip() == (
        "recall at 60 words: measured 0.23. You predicted 0.50: off by 0.27 (too high)."
    )
    assert result.error == pytest.approx(0.272)
    assert "too low" in reveal(0.1, 0.228, "x").message


def test_a_close_guess_is_spot_on():
    assert reveal(np.float64(0.231), 0.228, "x").message.endswith("spot on.")


@pytest.mark.parametrize("guess", [None, "a lot", [0.5], math.nan, True])
def test_no_readable_guess_still_reveals_and_never_raises(guess, capsys):
    result = reveal(guess, 0.228, "recall")
    printed = capsys.readouterr().out
    assert "measured 0.23" in printed
    assert result.guess is None and result.error is None
    if guess is None:
        assert "no prediction" in printed
    else:
        assert "not a number" in printed


def test_decimals():
    assert "measured 0.2280" in reveal(None, 0.228, "x", decimals=4).message


def test_a_percentage_for_a_share_gets_did_you_mean(capsys):
    """Issue 29: `my_guess = 80` for a recall of 0.23 read "off by 79.77" and nothing else."""
    result = reveal(80, 0.23, "recall")
    assert result.message.endswith("Did you mean 0.80? (80 % written as a share from 0 to 1)")
    assert "Did you mean" not in reveal(0.8, 0.23, "recall").message
    assert "Did you mean" not in reveal(80, 3.5, "a coordinate").message  # not a share
