"""attention_lab.transformer.tiny_model and .generate: the model learns the rhyme and writes."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from attention_lab.transformer.block import Parts
from attention_lab.transformer.generation import (
    generate,
    next_token,
    prefix_change,
    softmax_with_temperature,
)
from attention_lab.transformer.tiny_model import RHYME, Vocabulary, init_model, train


@functools.cache
def _trained():
    return train(init_model(seed=0), steps=300, batch=8, seed=0)


def test_the_vocabulary_round_trips_and_names_unknown_characters():
    vocab = Vocabulary.of(RHYME)
    assert vocab.decode(vocab.encode(RHYME)) == RHYME
    assert list(vocab.chars) == sorted(set(RHYME))
    with pytest.raises(ValueError, match="never saw the character"):
        vocab.encode("Twinkle")


@pytest.mark.slow
def test_training_lowers_the_loss_and_the_model_then_writes_the_rhyme():
    run = _trained()
    assert run.losses[0] > 2.5  # about log(26) before training: a guess among 26 characters
    assert run.losses[-20:].mean() < run.losses[:20].mean() / 4
    after = generate(run.model, "how i", 40, greedy=True)
    before = generate(init_model(seed=0), "how i", 40, greedy=True)
    assert after.text.startswith("how i wonder what you are!")
    assert "wonder" not in before.text
    # train works on a copy: the model passed in is unchanged
    assert np.array_equal(init_model(seed=0).embedding, init_model(seed=0).embedding)


@pytest.mark.slow
def test_a_seeded_run_is_the_same_every_time():
    a = train(init_model(seed=1), steps=5, seed=1)
    b = train(init_model(seed=1), steps=5, seed=1)
    assert np.array_equal(a.losses, b.losses)


def test_train_calls_back_every_step_and_keeps_the_start_model():
    model = init_model(seed=2, d_model=8, h=2, d_ff=8, context=8)
    before = model.embedding.copy()
    seen = []
    run = train(model, steps=3, batch=2, on_step=lambda t, loss: seen.append((t, loss)))
    assert [t for t, _ in seen] == [1, 2, 3] and [x for _, x in seen] == list(run.losses)
    assert np.array_equal(model.embedding, before)
    assert not np.array_equal(run.model.embedding, before)


def test_temperature_is_one_over_beta():
    logits = np.array([2.0, 1.0, 0.0])
    beta = 3.0
    e = np.exp(beta * logits)
    assert np.allclose(softmax_with_temperature(logits, 1 / beta), e / e.sum())
    cold, hot = softmax_with_temperature(logits, 0.05), softmax_with_temperature(logits, 100)
    assert cold[0] > 0.99 and np.allclose(hot, 1 / 3, atol=0.01)
    with pytest.raises(ValueError, match="positive"):
        softmax_with_temperature(logits, 0)


def test_next_token_greedy_is_the_argmax_and_sampling_follows_the_probabilities():
    logits = np.log([0.1, 0.6, 0.3])
    assert next_token(logits, greedy=True) == 1
    rng = np.random.default_rng(0)
    picks = np.bincount([next_token(logits, 1.0, rng) for _ in range(3000)], minlength=3)
    assert np.allclose(picks / 3000, [0.1, 0.6, 0.3], atol=0.03)
    with pytest.raises(ValueError, match="one row of logits"):
        next_token(np.zeros((2, 3)))


def test_generation_appends_one_character_a_step_and_records_it():
    model = init_model(seed=0)
    g = generate(model, "tw", 5, temperature=0.7, seed=3)
    assert len(g.text) == 7 and g.text.startswith("tw") and len(g.steps) == 5
    for i, step in enumerate(g.steps):
        assert step.context == g.text[: 2 + i] and step.chosen == g.text[2 + i]
        assert np.isclose(step.probabilities.sum(), 1)
    assert generate(model, "tw", 5, temperature=0.7, seed=3).text == g.text


def test_with_the_mask_earlier_predictions_never_change_when_a_token_is_appended():
    model = init_model(seed=0)
    assert prefix_change(model, "twinkle, little") < 1e-12
    assert prefix_change(model, "twinkle, little", Parts(causal=False)) > 0.01


def test_the_model_reads_at_most_its_context():
    model = init_model(seed=0, context=8)
    with pytest.raises(ValueError, match="1 to 8 characters"):
        model.logits(model.vocab.encode("twinkle, twinkle"))
    g = generate(model, "twinkle, twinkle", 2)  # the loop passes only the last 8
    assert len(g.steps[0].context) == 8
