"""attention_lab.layer_figures: lesson 6's static figures show the numbers they are made from."""

from __future__ import annotations

import numpy as np
import pytest

from attention_lab.examples import TIFFIN
from attention_lab.experiments import train_previous_token
from attention_lab.heads import TIFFIN_HEADS, TIFFIN_W_O, multi_head_attention
from attention_lab.layer_figures import (
    plot_heads,
    plot_loss_comparison,
    plot_training,
    spot_the_mistake_lines,
)
from attention_lab.layer_mistakes import SPOT_THE_MISTAKE
from attention_lab.projections import tiffin_embeddings


def test_plot_heads_draws_each_heads_weights():
    result = multi_head_attention(tiffin_embeddings(), TIFFIN_HEADS, TIFFIN_W_O)
    fig = plot_heads(result, TIFFIN.tokens, ["one", "two"])
    meshes = [ax.collections[0] for ax in fig.axes if ax.get_title() in ("one", "two")]
    assert len(meshes) == 2
    for mesh, head in zip(meshes, result.heads, strict=True):
        assert np.allclose(mesh.get_array().reshape(4, 4), head.weights)
    with pytest.raises(ValueError, match="one name per head"):
        plot_heads(result, TIFFIN.tokens, ["one"])


def test_plot_training_draws_the_snapshots_and_the_loss():
    run = train_previous_token(seed=0, steps=20, record_at=(0, 10, 20))
    fig = plot_training(run)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[:3] == ["step 0", "step 10", "step 20"]
    last = fig.axes[2].collections[0].get_array()
    assert np.allclose(np.ma.filled(last, 0).reshape(run.final_weights.shape), run.final_weights)
    loss_ax = next(ax for ax in fig.axes if ax.get_title().startswith("loss"))
    assert np.allclose(loss_ax.lines[0].get_ydata(), run.losses)


def test_the_loss_comparison_puts_both_runs_side_by_side_on_one_scale():
    with_pe = train_previous_token(seed=1, steps=20, record_at=(0, 20))
    without = train_previous_token(seed=1, steps=20, record_at=(0, 20), positions=False)
    fig = plot_loss_comparison(with_pe, without)
    left, right = fig.axes
    assert left.get_ylim() == right.get_ylim() and left.get_yscale() == "log"
    assert list(left.lines[0].get_ydata()) == list(with_pe.losses)
    assert list(right.lines[0].get_ydata()) == list(without.losses)
    assert f"{without.losses[-1]:.4f}" in right.get_title()
    with pytest.raises(ValueError, match="with positions first"):
        plot_loss_comparison(without, with_pe)
    lines = spot_the_mistake_lines().splitlines()
    assert [line.split(":")[0] for line in lines] == [m.letter for m in SPOT_THE_MISTAKE]
