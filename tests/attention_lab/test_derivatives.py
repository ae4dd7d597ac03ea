"""Hard selection gives no derivative w.r.t. query and keys, but the picked value gets one."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.derivatives import output_sensitivity
from attention_lab.examples import ISRO, TIFFIN


@pytest.mark.parametrize("example", [ISRO, TIFFIN])
def test_hard_is_flat_in_query_and_keys_but_passes_the_picked_value(example):
    q = example.query()
    hard = output_sensitivity(q, example.K, example.V, "hard", scale=example.scale)
    assert hard.query == 0.0 and hard.keys == 0.0
    picked = int(np.argmax(example.K @ q))
    expected = np.zeros(len(example.K))
    expected[picked] = 1.0
    assert np.allclose(hard.values, expected)


def test_soft_reaches_every_input():
    soft = output_sensitivity(ISRO.query(), ISRO.K, ISRO.V, "soft")
    assert soft.query > 0.1 and soft.keys > 0.1
    # d output / d v_j is weight_j (times the identity): 0.248, 0.248, 0.503 in the chapter
    assert np.round(soft.values, 3).tolist() == [0.248, 0.248, 0.503]


def test_mode_is_checked():
    with pytest.raises(ValueError, match="mode"):
        output_sensitivity([1, 1], ISRO.K, ISRO.V, "argmax")
