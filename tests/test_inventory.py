"""The concept inventory's two forms: parallel item by item, and no item giving another away.

Issue 27. Item k of ``source/inventory_pre`` and ``source/inventory_post`` carry the same concept,
goal and lesson (the question cell's ``attention_lab`` metadata), the same test cell id (the gain
report pairs items by it) and the same misconceptions as distractors. What can be checked
mechanically about give-aways is checked here; test_assignments.py checks the option lengths,
the spread of right letters and that no option is shared verbatim.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from attention_lab import misconceptions

ROOT = Path(__file__).resolve().parents[1]
FORMS = ("inventory_pre", "inventory_post")
#: The numbers the lessons print as their worked examples' results (docs: course-map.md).
HEADLINE = ["0.707", "1.414", "0.248", "0.503", "0.993", "2.510", "2.51", "0.198", "0.401",
            "1.401", "0.610", "0.083", "0.225", "3.91", "2.83"]  # fmt: skip
#: Goals the inventory must cover (issue 27: the four missing ones, and lesson 06's two; issue 38:
#: length in a dot product, weight is not explanation, identical keys).
REQUIRED = {
    "length_counts": "02",
    "weight_not_explanation": "05",
    "identical_keys": "05",
    "parallel_cost": "03",
    "positional_fix": "06",
    "additive_vs_dot": "01",
    "temperature": "02",
    "learned_projections": "06",
    "multi_head": "06",
    # issue 38, section 6: the output's bounds, why the decoder is masked, a head that learns;
    # issue 42: the block and generation
    "output_bounds": "03",
    "why_causal_mask": "04",
    "head_learns": "06",
    "block_add_norm": "07",
    "generation_loop": "07",
}
_STOP = set(
    """a an the of to and or in on at by for with from as is are be it its this that these
    those not no each every all one two three any only than then so if when which what who how
    why do does can would will may must more most less same other just also both their them
    they there into word words token tokens query queries key keys value values score scores
    weight weights attention""".split()
)


def _items(form: str) -> list[dict]:
    """Per item: metadata, stem, options, right letter, misconceptions, test cell id."""
    cells = nbformat.read(ROOT / "source" / form / f"{form}.ipynb", as_version=4).cells
    items = []
    for i, cell in enumerate(cells):
        meta = cell.metadata.get("nbgrader", {})
        if not (cell.cell_type == "code" and meta.get("grade")):
            continue
        hidden = cell.source.split("### BEGIN HIDDEN TESTS")[1]
        call = next(n for n in ast.walk(ast.parse(hidden)) if isinstance(n, ast.Call))
        kw = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        question = next(c for c in reversed(cells[:i]) if c.cell_type == "markdown")
        options = dict(re.findall(r"^- \*\*([a-d])\)\*\* (.+)$", question.source, flags=re.M))
        items.append(
            {
                "meta": dict(question.metadata.get("attention_lab", {})),
                "stem": question.source.split("- **a)**")[0],
                "options": options,
                "right": kw["correct"],
                "mis": kw["misconceptions"],
                "gid": meta["grade_id"],
            }
        )
    return items


PRE, POST = (_items(form) for form in FORMS)


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", re.sub(r"\\[a-z]+|[$^_{}]", " ", text.lower()))
    return {w.removesuffix("s")[:6] for w in words if len(w) >= 3 and w not in _STOP}


def test_both_forms_pair_every_item_by_concept_goal_lesson_and_test_cell():
    assert len(PRE) == len(POST) >= 20
    for a, b in zip(PRE, POST, strict=True):
        assert a["meta"] and set(a["meta"]) == {"item", "goal", "lesson"}, a["stem"]
        assert a["meta"] == b["meta"], (a["meta"], b["meta"])
        assert a["gid"] == b["gid"]
        assert sorted(a["mis"].values()) == sorted(b["mis"].values()), a["meta"]["item"]
    concepts = [i["meta"]["item"] for i in PRE]
    assert len(set(concepts)) == len(concepts), concepts


def test_the_missing_goals_and_lesson_06_are_covered():
    lessons = {i["meta"]["item"]: i["meta"]["lesson"] for i in PRE}
    assert {k: lessons.get(k) for k in REQUIRED} == REQUIRED
    assert {i["meta"]["lesson"] for i in PRE} >= {"01", "02", "03", "04", "05", "06", "07"}


@pytest.mark.parametrize("form", FORMS)
def test_every_distractor_is_a_registry_misconception_and_every_option_is_used(form):
    for item in _items(form):
        assert set(item["mis"]) | {item["right"]} == set("abcd") == set(item["options"])
        for slug in item["mis"].values():
            entry = misconceptions.get(slug)
            assert entry.idea, f"{slug}: a choice shows the idea; the entry has none"


@pytest.mark.parametrize("form", FORMS)
def test_no_item_shows_a_headline_number_of_the_lessons(form):
    for item in _items(form):
        text = item["stem"] + " ".join(item["options"].values())
        shown = [n for n in HEADLINE if re.search(rf"(?<![\d.]){re.escape(n)}(?!\d)", text)]
        assert not shown, (item["meta"]["item"], shown)


@pytest.mark.parametrize("form", FORMS)
def test_a_numeric_option_carries_no_gloss(form):
    """Post Q11 said "(1.53, 0.92): the four keys, mixed by the weights": a recognition item."""
    for item in _items(form):
        for text in item["options"].values():
            if re.match(r"^\(?-?\d", text):
                assert not re.search(r"[A-Za-z]", text), (item["meta"]["item"], text)


@pytest.mark.parametrize("form", FORMS)
def test_only_the_blend_items_speak_of_a_blend_in_their_stem(form):
    """A stem that assumes "a blend" answers the items that ask what attention returns."""
    for item in _items(form):
        if item["meta"]["item"] == "blend_output":
            continue
        assert not re.search(r"\bblend|\bmix", item["stem"], re.I), item["stem"]


@pytest.mark.parametrize("form", FORMS)
def test_no_item_repeats_the_distinctive_words_of_another_items_answer(form):
    """Two words of item j's right option that its own wrong options do not use, in item i."""
    items = _items(form)
    for j, answer in enumerate(items):
        right = answer["options"][answer["right"]]
        own = answer["stem"] + " ".join(
            t for k, t in answer["options"].items() if k != answer["right"]
        )
        distinctive = _stems(right) - _stems(own)
        for i, other in enumerate(items):
            if i == j:
                continue
            text = other["stem"] + " ".join(other["options"].values())
            shared = distinctive & _stems(text)
            assert len(shared) < 2, (answer["meta"]["item"], other["meta"]["item"], shared)


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text)]


@pytest.mark.parametrize("form", FORMS)
def test_the_computed_items_are_right_and_each_distractor_is_its_mistake(form):
    """The blend items: every option recomputed from the stem's numbers."""
    for item in _items(form):
        concept, opts = item["meta"]["item"], item["options"]
        pick = {slug: opts[letter] for letter, slug in item["mis"].items()}
        pick["right"] = opts[item["right"]]
        got = {k: np.array(_numbers(v)) for k, v in pick.items()}
        if concept == "blend_output":
            w = np.array(_numbers(re.search(r"weights ([\d., and]+)\.", item["stem"])[1]))
            pairs = [np.array(_numbers(p)) for p in re.findall(r"\$\(([^)]*)\)\$", item["stem"])]
            keys, values = np.array(pairs[:3]), np.array(pairs[3:])
            want = {"right": w @ values, "keys_as_values": w @ keys,
                    "hard_attention": values[np.argmax(w)], "uniform_average": values.mean(0)}  # fmt: skip
        else:
            continue
        for name, value in want.items():
            assert np.allclose(got[name], value, atol=6e-3), (form, concept, name, got[name], value)


def test_the_fixed_statements_of_issue_27_stay_fixed():
    """Post Q10 (b): the query is the decoder's state, not "di".

    (Issue 27's Q13, learned weights, gave way to "weight is not explanation" in issue 38.)
    """
    by = {i["meta"]["item"]: i for i in POST}
    cross = by["cross_attention"]
    assert 'comes from "di"' not in cross["options"][cross["right"]]


@pytest.mark.parametrize("form", FORMS)
def test_the_length_item_pits_a_longer_key_against_a_parallel_one(form):
    """Issue 38: q is parallel to the first word's key, the second's scores more: length counts."""
    item = next(i for i in _items(form) if i["meta"]["item"] == "length_counts")
    q, first, second = (np.array(_numbers(v)) for v in re.findall(r"\(([-\d., ]+)\)", item["stem"]))
    cos = [float(q @ k / np.linalg.norm(q) / np.linalg.norm(k)) for k in (first, second)]
    assert np.isclose(cos[0], 1.0) and cos[1] < cos[0] and q @ second > q @ first
    names = re.findall(r'"(\w+)"', item["stem"])
    assert len(names) == 2, names
    by_slug = {slug: item["options"][letter] for letter, slug in item["mis"].items()}
    assert f'"{names[1]}"' in item["options"][item["right"]]
    assert f'"{names[0]}"' in by_slug["dot_is_direction_only"]


def _outputs(
    words: list[str], vectors: dict[str, np.ndarray], causal: bool
) -> dict[str, np.ndarray]:
    """Self-attention (queries = keys = values = the word vectors, no positions) per word."""
    x = np.array([vectors[w] for w in words])
    scores = x @ x.T / np.sqrt(x.shape[1])
    if causal:
        scores = np.where(np.tril(np.ones_like(scores, dtype=bool)), scores, -np.inf)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    out = (w / w.sum(axis=1, keepdims=True)) @ x
    return dict(zip(words, out, strict=True))


@pytest.mark.parametrize("form", FORMS)
def test_the_word_order_item_is_true_with_and_without_a_mask(form):
    """Issue 38: the asked word keeps its output with no mask and changes under a causal mask."""
    item = next(i for i in _items(form) if i["meta"]["item"] == "word_order")
    quoted = re.findall(r'"([^"]+)"', item["stem"].replace("\n", " "))
    first, second, asked = quoted[0].split(), quoted[1].split(), quoted[2]
    assert sorted(first) == sorted(second) and first != second and asked in first
    rng = np.random.default_rng(0)
    vectors = {w: rng.normal(size=4) for w in first}
    plain = [_outputs(s, vectors, causal=False)[asked] for s in (first, second)]
    masked = [_outputs(s, vectors, causal=True)[asked] for s in (first, second)]
    assert np.allclose(*plain) and not np.allclose(*masked)
    assert "mask_keeps_order_blind" in item["mis"].values()


@pytest.mark.parametrize("form", FORMS)
def test_the_bounds_item_is_true_for_any_scores(form):
    """Issue 38: the output lies strictly inside the values' triangle, large scores included."""
    item = next(i for i in _items(form) if i["meta"]["item"] == "output_bounds")
    values = np.array([_numbers(p) for p in re.findall(r"\$\(([^)]*)\)\$", item["stem"])])
    corners = np.column_stack([values, np.ones(3)])  # barycentric: solve corners.T @ b = (x, y, 1)
    assert values.shape == (3, 2) and abs(np.linalg.det(corners)) > 1e-9  # a real triangle
    rng = np.random.default_rng(0)
    for spread in (1.0, 10.0, 30.0):
        scores = rng.normal(scale=spread, size=(200, 3))
        w = np.exp(scores - scores.max(axis=1, keepdims=True))
        out = (w / w.sum(axis=1, keepdims=True)) @ values
        bary = np.linalg.solve(corners.T, np.column_stack([out, np.ones(len(out))]).T)
        assert (bary >= -1e-12).all() and np.allclose(bary.sum(axis=0), 1)
    assert "triangle" in item["options"][item["right"]]


@pytest.mark.parametrize("form", FORMS)
def test_the_block_item_counts_heads_of_d_model_over_h(form):
    """Issue 42: the full-width option names d_model itself, which d_model / h heads never have."""
    item = next(i for i in _items(form) if i["meta"]["item"] == "block_add_norm")
    heads = int(re.search(r"(\d+) heads", item["stem"])[1])
    d_model = int(re.search(r"d_model = (\d+)", item["stem"])[1])
    assert d_model % heads == 0 and d_model // heads < d_model
    full = next(item["options"][k] for k, slug in item["mis"].items() if slug == "heads_full_width")
    assert str(d_model) in full and str(d_model // heads) not in full
    right = item["options"][item["right"]]
    assert "added" in right or "summed" in right
    assert "each token's numbers are normalised" in right  # post-norm, per token (Ba et al. 2016)
