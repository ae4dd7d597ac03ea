"""attention_lab.transformer.parameters and .ablations."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.transformer.ablations import compare_training, keeps_itself, stacked_size
from attention_lab.transformer.block import Parts, init_block
from attention_lab.transformer.parameters import BASE_MODEL, count_parameters
from attention_lab.transformer.tiny_model import init_model


@pytest.mark.parametrize(("d_model", "h", "d_ff"), [(8, 2, 16), (12, 3, 20), (32, 4, 64)])
def test_the_count_is_the_number_of_numbers_the_block_holds(d_model, h, d_ff):
    count = count_parameters(d_model, h, d_ff)
    assert count.total == init_block(d_model, h, d_ff).n_parameters()
    assert count.d_k * h == d_model


def test_the_base_models_block_and_pytorchs_documented_layer():
    # torch.nn.TransformerEncoderLayer(512, 8, 2048) holds 3,152,384 parameters: this count
    # plus the 4 x 512 biases its nn.MultiheadAttention adds (in_proj_bias, out_proj.bias).
    assert BASE_MODEL.total + 4 * 512 == 3_152_384
    assert BASE_MODEL.attention_biases == 4 * 512
    assert BASE_MODEL.attention == 4 * 512 * 512
    # the heads share d_model out: the attention count does not depend on h
    assert count_parameters(512, 1, 2048).attention == BASE_MODEL.attention
    with pytest.raises(ValueError, match="multiple of h"):
        count_parameters(512, 7, 2048)


def test_without_the_residual_a_word_no_longer_keeps_itself():
    model = init_model(seed=0)
    kept = keeps_itself(model, "twinkle, twinkle")
    lost = keeps_itself(model, "twinkle, twinkle", Parts(residual=False))
    assert kept.closest_is_itself > 0.6 > 0.2 > lost.closest_is_itself
    assert kept.cosine.mean() > 0.5 > abs(lost.cosine.mean())


def test_without_the_norm_stacked_blocks_grow_the_vectors():
    normed = stacked_size(6)
    grown = stacked_size(6, Parts(norm=False))
    assert np.allclose(normed[1:], 1.0, atol=1e-3)
    assert grown[-1] > 5 * grown[0] and np.all(np.diff(grown) > 0)


@pytest.mark.slow
def test_compare_training_reports_each_variant():
    result = compare_training(
        {"whole block": Parts(), "no feed-forward": Parts(feed_forward=False)}, steps=20
    )
    assert result.labels == ("whole block", "no feed-forward")
    whole, no_ffn = result.n_parameters
    assert whole - no_ffn == init_model().block.W_1.size * 2 + 64 + 32 + 2 * 32
    assert all(np.isfinite(result.losses)) and len(result.rows()) == 2
