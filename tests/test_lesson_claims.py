"""Every number a lesson's text states is built from, or checked against, the code's output
(issue 38, item 5).

Two layers. :data:`CLAIMS` is the registry: each entry is a sentence (or a figure's alt text) of
a lesson, rebuilt here from the library's numbers, which must appear in that cell as written; a
claim that no longer holds (a measured order that changed, a loss that no longer falls) rebuilds
into a different sentence and fails. Then every number with three or more decimals in any
lesson's markdown must be printed by the executed lesson itself, drawn into one of its figures,
or be one of the registry's: a number typed into a sentence by hand, checked by nothing, fails.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

import nbformat
import numpy as np
import pytest

from attention_lab import attention, demos, experiments, transformer
from attention_lab.examples import ISRO, TIFFIN
from attention_lab.heads import TIFFIN_HEADS, TIFFIN_W_O, multi_head_attention
from attention_lab.projections import LESSON_W_K, LESSON_W_Q, LESSON_W_V
from tests.support.lesson_run import LESSONS, NOTEBOOKS, drawn_text, executed


@dataclass(frozen=True)
class Claim:
    """A sentence of a lesson's cell, rebuilt from the code's numbers."""

    lesson: str
    cell: str  # the cell's id
    sentence: Callable[[], str]


def _flat(text: str) -> str:
    return " ".join(text.split())


def _holds(condition: bool, sentence: str) -> str:
    """``sentence`` if the fact it states holds, else a marker no lesson contains."""
    return sentence if condition else f"[no longer true: {sentence}]"


@functools.cache
def _runs():
    return experiments.train_previous_token(seed=0), experiments.train_previous_token(
        seed=0, positions=False
    )


@functools.cache
def _heads():
    return multi_head_attention(np.array(TIFFIN.K), TIFFIN_HEADS, TIFFIN_W_O)


def _isro_alt() -> str:
    return demos.computation_diagram(
        ISRO.query(), ISRO.K, ISRO.V, ISRO.tokens, "Chandrayaan"
    ).alt_text


def _tiffin_alt() -> str:
    d = demos.computation_diagram(TIFFIN.query(), TIFFIN.K, TIFFIN.V, TIFFIN.tokens, "it", False)
    return d.alt_text


def _isro_terms() -> str:
    _, w = attention(ISRO.query(), ISRO.K, ISRO.V)
    exact, rounded = w[:, None] * ISRO.V, np.round(w, 3)[:, None] * ISRO.V
    return (
        f"end in {exact[0, 1]:.3f} and {exact[2, 1]:.3f} where the chapter, multiplying by the "
        f"rounded weights, writes {rounded[0, 1]:.3f} and {rounded[2, 1]:.3f}"
    )


def _multi_head_alt() -> str:
    it = TIFFIN.tokens.index("it")
    return demos.multi_head_diagram(
        _heads(), TIFFIN.tokens, it, [h.name for h in TIFFIN_HEADS]
    ).alt_text


def _heads_caption() -> str:
    it = TIFFIN.tokens.index("it")
    h1, h2 = (h.weights for h in _heads().heads)
    big = TIFFIN.tokens.index("big")
    others = np.delete(h2[it], big)
    every_row_big = bool((h2.argmax(axis=1) == big).all())
    return _holds(
        np.allclose(others, others[0]) and every_row_big,
        f'the "it" row puts {h1[it, 0]:.3f} on "tiffin" and the rest on bag {h1[it, 1]:.3f}, it '
        f'{h1[it, 2]:.3f}, big {h1[it, 3]:.3f}. Right, head 2: the "it" row puts '
        f'{h2[it, big]:.3f} on "big" and {others[0]:.3f} on each other word; every row of head 2 '
        'looks most at "big".',
    )


def _order_sentence() -> str:
    order = experiments.order_change(
        TIFFIN.tokens, np.array(TIFFIN.K), LESSON_W_Q, LESSON_W_K, LESSON_W_V
    )
    c = dict(zip(TIFFIN.tokens, order.word_changes, strict=True))
    return _holds(
        max(c["bag"], c["it"]) < min(c["tiffin"], c["big"]) and order.most_moved != "it"
        and min(c, key=c.get) == "it",
        "Here the two words that moved one place changed less than the two that moved three, and "
        '"it" least of all',
    )  # fmt: skip


def _training_caption() -> str:
    run, _ = _runs()
    n = run.final_weights.shape[0]
    on_previous = run.final_weights[np.arange(1, n), np.arange(n - 1)]
    even = np.allclose(
        run.snapshots[0], run.snapshots[0][:, :1] * (run.snapshots[0] > 0), atol=0.01
    )
    return _holds(
        even and on_previous.min() >= 0.998,
        "every row from position 1 on puts 0.998 or more on the position before. The loss (log "
        "scale: each grid line is 10 times the one below) falls from "
        f"{run.losses[0]:.3f} at the first step to {run.losses[-1]:.4f} at step 200.",
    )


def _comparison_caption() -> str:
    run, without = _runs()
    return (
        f"Left, with positions: the loss falls from {run.losses[0]:.3f} to {run.losses[-1]:.4f}. "
        f"Right, without positions: it goes from {without.losses[0]:.3f} to "
        f"{without.losses[-1]:.3f} and stays high."
    )


def _even_share() -> str:
    _, without = _runs()
    share = without.weight_on_previous() * np.arange(2, 2 + len(without.weight_on_previous()))
    return _holds(
        bool((share > 1).all() and (share < 1.5).all()) and without.losses[-1] > 0.5,
        "only a little more than an even share of the places it may see (1/2 at position 1, 1/6 "
        "at position 5)",
    )


def _truncated(x: float, decimals: int = 4) -> str:
    """``x`` cut (not rounded) to ``decimals``, as a sentence writes "0.2483…"."""
    return f"{np.floor(x * 10**decimals) / 10**decimals:.{decimals}f}…"


def _isro_unrounded() -> str:
    _, w = attention(ISRO.query(), ISRO.K, ISRO.V)
    return "(" + ", ".join(_truncated(x) for x in w) + ")"


def _chapter_a_rounding() -> str:
    return f"0.083 × 5 = {0.083 * 5:.3f}"


def _check_yourself_q1() -> str:
    q = np.array([1.0, -1.0])
    raw = ISRO.K @ q
    scaled = raw / np.sqrt(2)
    e = np.exp(scaled)
    out, w = attention(q, ISRO.K, ISRO.V)

    def nums(a, d=3):
        return ", ".join(f"{x:.{d}f}".rstrip("0").rstrip(".") if x == round(x) else f"{x:.{d}f}"
                         for x in a)  # fmt: skip

    return _holds(
        int(np.argmax(w)) == 0 and int(np.argmin(w)) == 1,
        f"Raw scores: `[{nums(raw)}]`; scaled by 1/√2: `[{nums(scaled)}]`. Exponentials: "
        f"`{nums(e)}`, total `{e.sum():.3f}`. Weights: `[{nums(w)}]`: **ISRO** gets the largest "
        f'weight (the only positive score), "launched" the least (its key points away from the '
        f"query: a negative score). Output: `{w[0]:.3f}·[1, 2] + {w[1]:.3f}·[3, 0] + "
        f"{w[2]:.3f}·[0, 4] ≈ [{out[0]:.3f}, {out[1]:.3f}]`",
    )


@functools.cache
def _tiny():
    return transformer.init_model(seed=0)


def _keeps_itself() -> str:
    kept = transformer.keeps_itself(_tiny(), "twinkle, twinkle, little star").closest_is_itself
    return _holds(kept > 0.5, "With the residual, most positions stay closest to themselves")


def _ffn_share() -> str:
    share = transformer.BASE_MODEL.feed_forward / transformer.BASE_MODEL.total
    return _holds(
        abs(share - 2 / 3) < 0.01, "In the original block it holds two thirds of the parameters"
    )


@functools.cache
def _no_ffn_learns_less() -> bool:
    variants = {"whole": transformer.Parts(), "no ffn": transformer.Parts(feed_forward=False)}
    whole, no_ffn = transformer.compare_training(variants, steps=150).losses
    return bool(no_ffn > whole)


def _learned_less() -> str:
    return _holds(_no_ffn_learns_less(), "learned less in the same steps")


def _pytorch_biases() -> str:
    return f"holds that last number, {transformer.BASE_MODEL.attention_biases:,} more"


def _prefix_kept() -> str:
    change = transformer.prefix_change(_tiny(), "twinkle, twinkle, little star")
    return _holds(
        change < 1e-9,
        "With the mask, appending a character does not change what the earlier positions computed",
    )


def _few_hundred() -> str:
    return _holds(100 <= len(transformer.RHYME) < 1000, "from a few hundred characters")


CLAIMS = [
    Claim("03_worked_examples", "03-06", _isro_unrounded),
    Claim("03_worked_examples", "03-12", _isro_unrounded),
    Claim("03_worked_examples", "03-14", _chapter_a_rounding),
    Claim("03_worked_examples", "03-29", _check_yourself_q1),
    Claim("03_worked_examples", "03-12b", lambda: "*Figure (alt text): " + _isro_alt() + "*"),
    Claim("03_worked_examples", "03-12b", _isro_terms),
    Claim("03_worked_examples", "03-16b", lambda: "*Figure (alt text): " + _tiffin_alt() + "*"),
    Claim("06_projections_heads_positions", "06-18", _heads_caption),
    Claim("06_projections_heads_positions", "06-18b", lambda: "*Figure (alt text): " + _multi_head_alt() + "*"),
    Claim("06_projections_heads_positions", "06-28", _order_sentence),
    Claim("06_projections_heads_positions", "06-35", _training_caption),
    Claim("06_projections_heads_positions", "06-35c", _comparison_caption),
    Claim("06_projections_heads_positions", "06-35c", _even_share),
    # lesson 7, read against Vaswani et al. 2017 and Ba et al. 2016 (issue 42)
    Claim("07_transformer_block", "c6e0ba4a", _keeps_itself),
    Claim("07_transformer_block", "b2414452", _ffn_share),
    Claim("07_transformer_block", "3f58ebe2", _learned_less),
    Claim("07_transformer_block", "4934e693", _learned_less),
    Claim("07_transformer_block", "1d9d11f1", _pytorch_biases),
    Claim("07_transformer_block", "4bd88388", _prefix_kept),
    Claim("07_transformer_block", "aa60aa19", _few_hundred),
]  # fmt: skip


def _cell(lesson: str, cell_id: str) -> str:
    nb = nbformat.read(NOTEBOOKS / f"{lesson}.ipynb", as_version=4)
    found = [c.source for c in nb.cells if c.get("id") == cell_id]
    assert found, f"{lesson} has no cell {cell_id!r} any more: update CLAIMS"
    return found[0]


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.lesson[:2]}:{c.cell}")
def test_every_registered_claim_is_built_from_the_code(claim):
    assert _flat(claim.sentence()) in _flat(_cell(claim.lesson, claim.cell))


def test_a_claim_that_stops_holding_fails():
    assert _holds(False, "x") != "x"
    # a number typed into the caption by hand is not the computed one
    wrong = _comparison_caption().replace("1.024", "1.02")
    assert _flat(_comparison_caption()) not in _flat(wrong)


NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d{3,}(?![\d])")


def _claimed_numbers() -> set[str]:
    return {n for claim in CLAIMS for n in NUMBER.findall(claim.sentence())}


def unverified_numbers(markdown: str, printed: str) -> list[str]:
    """Numbers of three or more decimals in ``markdown`` that ``printed`` (what the code printed
    and drew) does not show and no registered claim builds.
    """
    known = set(NUMBER.findall(printed)) | _claimed_numbers()
    return sorted({n for n in NUMBER.findall(markdown) if n not in known})


@pytest.mark.slow
def test_the_number_search_finds_a_hand_typed_number():
    assert unverified_numbers("the loss falls to 0.0123", "loss 0.0120") == ["0.0123"]
    assert not unverified_numbers("weights 0.610 and 0.083", "[0.610, 0.083]")


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_every_number_in_a_lessons_text_comes_from_its_code(name):
    nb = executed()[name]
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    outputs = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            outputs.append(out.get("text", "") + str(out.get("data", {}).get("text/plain", "")))
            outputs.append(str(out.get("data", {}).get("text/html", "")))
    printed = "\n".join(outputs) + drawn_text(name)
    missing = unverified_numbers(markdown, printed)
    assert not missing, (
        f"{name}: numbers in the text that no code prints or draws and no claim builds: "
        f"{missing} (print them, or add a Claim that computes the sentence)"
    )
