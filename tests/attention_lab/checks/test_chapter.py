"""Chapter checks (attention_lab.checks.chapter): a computed number beside the chapter's."""

import numpy as np
import pytest

from attention_lab import attention
from attention_lab._format import format_value
from attention_lab.checks import chapter as chapter_checks
from attention_lab.examples import ISRO


def test_check_shows_computed_beside_chapter():
    _, w = attention(ISRO.query(), ISRO.K, ISRO.V)
    c = chapter_checks.check("weights", w, [0.248, 0.248, 0.503])
    assert c.agrees
    assert (
        str(c) == "weights: computed [0.248, 0.248, 0.503] | chapter [0.248, 0.248, 0.503] ✓ agrees"
    )


def test_check_means_rounds_to_unless_a_tolerance_is_given():
    total = np.exp([3, 1, 2, 1]).sum()  # 32.91115..., chapter A prints 32.911
    assert chapter_checks.check("total", total, 32.911).agrees
    assert not chapter_checks.check("total", total, 32.912).agrees
    # 0.503 * 4 = 2.012 in chapter B uses a rounded weight; exactly it is 2.0140.
    exact = 0.50349 * 4
    strict = chapter_checks.check("0.503 v3", exact, 2.012)
    assert not strict.agrees and "✗ DIFFERS" in str(strict)
    assert chapter_checks.check("0.503 v3", exact, 2.012, tolerance=0.002).agrees
    assert chapter_checks.check("weight", 0.0826, 0.083).agrees  # 0.0826 rounds to 0.083
    assert not chapter_checks.check("weight", 0.0824, 0.083).agrees


def test_a_half_way_value_rounded_the_other_way_is_explained():
    half_way = chapter_checks.check(
        "0.083 x 5", 0.083 * 5, 0.41, 2
    )  # 0.415: the chapter prints 0.41
    assert half_way.agrees and "half-way" in str(half_way)
    assert "half-way" not in str(chapter_checks.check("weight", 0.0826, 0.083))


def test_check_extremes_integer_and_zero_decimals():
    assert str(chapter_checks.check("score", 3.0, 3, 0)) == "score: computed 3 | chapter 3 ✓ agrees"
    assert not chapter_checks.check("score", 2.4, 3, 0).agrees


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_check_on_random_vectors(seed):
    x = np.random.default_rng(seed).normal(size=4)
    assert chapter_checks.check("v", x, np.round(x, 3)).agrees
    assert not chapter_checks.check("v", x, np.round(x, 3) + 0.01).agrees


def test_check_rejects_mismatched_shapes_and_missing_label():
    with pytest.raises(ValueError, match="shape"):
        chapter_checks.check("w", [1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="label"):
        chapter_checks.check("", 1, 1)


def test_checks_table_text_html_and_summary():
    table = chapter_checks.checks(
        ("a", 0.5, 0.5), ("b", 2.0, 2.1, 1), chapter_checks.check("c", 1, 1, 0)
    )
    assert len(table) == 3 and not table.all_agree
    text = repr(table)
    assert text.splitlines()[-1] == "1 of 3 numbers differ from the chapter"
    html = table._repr_html_()
    assert "<caption>" in html and "✗ <strong>differs</strong>" in html and html.count("<tr>") == 4
    ok = chapter_checks.checks(("a", 0.5, 0.5))
    assert ok.all_agree and repr(ok).endswith("all 1 numbers agree with the chapter")
    with pytest.raises(TypeError, match="tuple"):
        chapter_checks.checks(("only", 2))


def test_format_value_prints_a_number_or_a_vector_with_the_chapters_decimals():
    assert format_value(0.24751, 3) == "0.248"
    assert format_value([1, 0.5], 1) == "[1.0, 0.5]"
