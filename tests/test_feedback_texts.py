"""No feedback or self-check message gives the fix as code or the right option's text (issue 27).

Every message a student can read is gathered here and scanned:

* the registry's texts (message, idea, hint and the three levels together);
* what the checks say: each hand-computed step and each exercise check run with every wrong
  computation the registry knows and with a wrong answer no misconception explains, and each
  implement-it check run with buggy functions;
* the assignments' feedback: every wrong option of every multiple-choice and true/false test in
  ``source/`` (chapters and concept inventory), run through its own hidden test.

A fix in code is numpy calls, axis/keepdims arguments, matrix products, transposes, ``where``
or an assignment of an expression. The right option's text is the right option's own words:
two of its distinctive words (words no wrong option and no stem uses), or five words in a row;
for true/false, the model answer's words that the statement does not use.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

import attention_lab
from attention_lab import checks, misconceptions
from attention_lab._layer_steps import LayerCase, compute_layer
from attention_lab._steps import Case, compute
from attention_lab.checks import exercises as exercise_checks
from attention_lab.checks.selfcheck import self_check
from attention_lab.examples import ISRO, TIFFIN

ROOT = Path(__file__).resolve().parents[1]

#: Code that would hand over a fix (the check says what is wrong, never how to write it).
CODE_FIX = [
    r"\bnp\.\w+",
    r"\bnumpy\.\w+",
    r"\bmath\.\w+",
    r"keepdims",
    r"\baxis\s*=",
    r"\w\s*@\s*\w",
    r"\w\.T\b",
    r"\bwhere\s*\(",
    r"float\(\s*['\"]-?inf",
    r"\b\w+\s*=\s*[\w.]+\s*[@/*+-]\s*\w",
    r"\bsoftmax\(\s*\w+",
    r"\bexp\(\s*\w+\s*-",
    r"\breturn\s+\w+\s*[,/@*]",
]
_STOP = set(
    """a an the of to and or in on at by for with from as is are be it its this that these
    those not no each every all one two three any only than then so if when which what who
    how why do does did can could would will may must more most less same other own just
    also both their them they there here into onto over under up down out your you we our
    his her he she i me my word words token tokens vector vectors""".split()
)


def _words(text: str) -> list[str]:
    """Lower-case words without maths markup, each cut to a stem (no plural s, 6 letters)."""
    text = re.sub(r"\\[a-z]+|[$^_{}]", " ", text.lower())
    return [w.removesuffix("s")[:6] for w in re.findall(r"[a-z]+", text)]


def _content(text: str) -> set[str]:
    return {w for w in _words(text) if len(w) >= 3 and w not in _STOP}


def _sequences(text: str, n: int = 5) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def fix_in_code(text: str) -> list[str]:
    """The code fragments in ``text`` that look like a fix."""
    return [m.group(0) for p in CODE_FIX for m in re.finditer(p, text)]


def gives_away(message: str, right: str, others: list[str]) -> set[str] | None:
    """The right text's words ``message`` repeats (2+ distinctive ones, or 5 in a row)."""
    distinctive = _content(right) - set().union(*(_content(o) for o in others))
    shared = distinctive & _content(message)
    if len(shared) >= 2:
        return shared
    run = _sequences(right) & _sequences(message)
    return {" ".join(run.pop())} if run else None


# ---------------------------------------------------------------------------------------------
# Gathering the messages
# ---------------------------------------------------------------------------------------------


#: Every failure :func:`_failure` caught: the misconception ids are read from these as data.
RAISED: list[checks.CheckFailure] = []


def _failure(fn, *args, **kwargs) -> str | None:
    try:
        fn(*args, **kwargs)
    except checks.CheckFailure as err:
        RAISED.append(err)
        return str(err)
    return None


ISRO_K = [[1, 0], [0, 1], [1, 1]]
ISRO_V = [[1, 2], [3, 0], [0, 4]]
TIFFIN_K = [[2, 1], [0, 1], [1, 1], [1, 0]]
TIFFIN_V = [[5, 2], [5, 6], [2, 2], [0, 8]]
HAND_CASES = [  # (query, keys, values, scale, queries)
    ([0, 1], ISRO_K, ISRO_V, True, ISRO_K),
    ([1, 1], TIFFIN_K, TIFFIN_V, False, None),
    ([1, 1], [[1, 0], [1, 1], [0, 2]], [[1, 0], [0, 1], [2, 2]], False, None),
    ([1, -1], TIFFIN_K, TIFFIN_V, False, None),  # lesson 02, your turn 2
    # queries that are not the keys: a weight matrix that is not symmetric (issue 38)
    ([1, 0], ISRO_K, ISRO_V, True, [[0, 1], [1, 0], [1, 2]]),
]


def _hand_messages() -> list[str]:
    found = []
    for query, keys, values, scale, queries in HAND_CASES:
        case = Case.of(queries if queries is not None else [query], keys, values, scale)
        row = 1 if queries is not None else 0
        answers = [np.full(len(keys), 7.0), np.full(len(values[0]), 7.0)]
        for _, wrong in misconceptions.entries_for("output"):
            steps = compute(case, wrong)
            if steps is not None:
                answers += [steps.scores[row], steps.weights[row], steps.output[row]]
        for answer in answers:
            for check, extra in (
                (checks.check_scores, {"values": values, "queries": queries}),
                (checks.check_weights, {"values": values, "queries": queries}),
                (checks.check_output, {"queries": queries}),
            ):
                args = (query, keys, values) if check is checks.check_output else (query, keys)
                found.append(_failure(check, answer, *args, scale=scale, **extra))
            mask = [True, False] + [True] * (len(keys) - 2)
            for check in (
                exercise_checks.check_masked_scores,
                exercise_checks.check_masked_weights,
            ):
                found.append(_failure(check, answer, query, keys, mask, scale))
            found.append(
                _failure(
                    exercise_checks.check_masked_output, answer, query, keys, values, mask, scale
                )
            )
            found.append(
                _failure(exercise_checks.check_hard_output, answer, query, keys, values, scale)
            )
    return found


def _buggy_softmaxes():
    def naive(x, axis=-1):
        e = np.exp(x)
        return e / e.sum(axis=axis, keepdims=True)

    def capped(x, axis=-1):
        e = np.exp(np.minimum(x, 300))
        return e / e.sum(axis=axis, keepdims=True)

    def minus_inf_to_zero(x, axis=-1):
        x = np.where(np.isneginf(x), 0, x)
        e = np.exp(x - x.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)

    def global_max(x, axis=-1):
        e = np.exp(x - np.max(x))
        return e / e.sum(axis=axis, keepdims=True)

    def squared(x, axis=-1):
        e = np.asarray(x, dtype=float) ** 2
        return e / e.sum(axis=axis, keepdims=True)

    def unfinished(x, axis=-1):
        raise NotImplementedError()

    def from_the_library(x, axis=-1):
        return attention_lab.softmax(x, axis=axis)

    return [
        naive, capped, minus_inf_to_zero, global_max, squared, unfinished, from_the_library,
        lambda x, axis=-1: x,
    ]  # fmt: skip


def _buggy_attentions():
    def make(scores, blend=lambda w, K, V: w @ V, fill=-np.inf):
        def attention(Q, K, V, mask=None):
            s = scores(Q, K)
            if mask is not None:
                s = np.where(mask, s, fill)
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            w = e / e.sum(axis=-1, keepdims=True)
            return blend(w, K, V), w

        return attention

    scaled = lambda Q, K: Q @ K.T / np.sqrt(K.shape[1])  # noqa: E731
    return [
        make(lambda Q, K: Q @ K.T),
        make(lambda Q, K: Q @ K.T / K.shape[0]),
        make(scaled, blend=lambda w, K, V: w @ K),
        make(scaled, fill=0.0),
        make(scaled, blend=lambda w, K, V: 2 * (w @ V)),
        lambda Q, K, V, mask=None: (None, None),
    ]


def _function_messages() -> list[str]:
    found = []
    for fn in _buggy_softmaxes():
        for behaviour in checks.SOFTMAX_BEHAVIOURS:
            found.append(_failure(checks.check_softmax_function, fn, behaviour=behaviour))
    for fn in _buggy_attentions():
        for behaviour in checks.ATTENTION_BEHAVIOURS:
            found.append(_failure(checks.check_attention_function, fn, behaviour=behaviour))
    masks = [
        lambda n: np.triu(np.ones((n, n), dtype=bool)),
        lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1),
        lambda n: np.ones((n, n), dtype=bool),
        lambda n: ~np.tril(np.ones((n, n), dtype=bool)),
    ]
    for fn in masks:
        found.append(_failure(checks.check_causal_mask_function, fn))
    return found


def _layer_messages() -> list[str]:
    """Lesson 6's checks, with every wrong layer computation the registry knows (issue 38)."""
    X, PE = [[1, 0], [0, 1], [1, 1]], [[0.0, 1.0], [0.841, 0.540], [0.909, -0.416]]
    W_Q, W_K, W_V, other = [[0, 1], [1, 0]], [[1, 1], [0, 2]], [[1, 0], [0, 2]], [[1, 2], [0, 1]]
    case = LayerCase.of(X, W_Q, W_K, W_V, PE, other)
    found = []
    for _, wrong in [(None, None), *misconceptions.layer_entries_for("output")]:
        steps = compute_layer(case, wrong)
        if steps is None:
            continue
        for row in (None, 2):
            pick = slice(None) if row is None else row
            found.append(_failure(checks.check_head_weights, steps.weights[pick] + 0.0, X, W_Q,
                                  W_K, row=row, positions=PE, other_W_Q=other))  # fmt: skip
            found.append(_failure(checks.check_head_output, steps.output[pick] + 0.0, X, W_Q,
                                  W_K, W_V, row=row, positions=PE, other_W_Q=other))  # fmt: skip
    found.append(_failure(checks.check_head_weights, [0.1, 0.2, 0.7], X, W_Q, W_K, row=2))
    found.append(_failure(checks.check_projection, [9, 9], X[2], W_Q))
    return found


def _block_messages() -> list[str]:
    """Lesson 7's checks, with every wrong block computation the registry knows (issue 42)."""
    from attention_lab.transformer.mistakes import block_entries_for

    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0], [2.0, -1.0, 1.0]])
    f = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 2.0]])
    logits, t = np.array([[2.0, 1.0, 0.0, -1.0], [0.0, 1.0, 3.0, 0.5]]), 0.5
    scores = np.array([[1.0, 2.0, 0.0], [0.5, 1.0, 3.0], [2.0, 0.0, 1.0]])
    runs = {
        "layer_norm": (checks.check_layer_norm, (x,)),
        "add_norm": (checks.check_add_and_norm, (x, f)),
        "probabilities": (checks.check_next_token_probabilities, (logits, t)),
        "generation_weights": (checks.check_generation_weights, (scores,)),
    }
    found = []
    for kind, (check, inputs) in runs.items():
        for _, wrong in block_entries_for(kind):
            value = wrong.compute(*inputs)
            if value is not None:
                found.append(_failure(check, value, *inputs))
    for part in ("attention", "feed_forward", "norms", "total"):
        for _, wrong in block_entries_for("parameters"):
            count = wrong.compute(512, 8, 2048)
            if count is not None:
                found.append(_failure(checks.check_parameter_count, getattr(count, part), 512, 8,
                                      2048, part=part))  # fmt: skip
    return found


def _registry_texts() -> list[str]:
    texts = []
    for entry in misconceptions.REGISTRY.values():
        texts += [entry.message, entry.idea, entry.hint, entry.teaching, entry.feedback()]
    return texts


# ---------------------------------------------------------------------------------------------
# The assignments' choice and true/false questions, read from the teacher's sources
# ---------------------------------------------------------------------------------------------


def _hidden_call(source: str) -> tuple[str, dict] | None:
    if "### BEGIN HIDDEN TESTS" not in source:
        return None
    hidden = source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
    for node in ast.walk(ast.parse(hidden)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("check_choice", "check_true_false"):
                kw = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
                kw["options"] = ast.literal_eval(node.args[1]) if len(node.args) > 1 else None
                return node.func.attr, kw
    return None


def _options(markdown: str) -> dict[str, str]:
    return dict(re.findall(r"^- \*\*([a-d])\)\*\* (.+)$", markdown, flags=re.M))


def _solution_text(cell) -> str:
    return cell.source.split("### BEGIN SOLUTION")[-1].split("**Rubric")[0]


def _until_next_item(cells):
    """The cells up to the next question: a later question's model answer is not this one's."""
    for cell in cells:
        if cell.cell_type == "code" and "### BEGIN HIDDEN TESTS" in cell.source:
            return
        if cell.cell_type == "markdown" and cell.source.startswith("## "):
            return
        yield cell


def choice_items():
    """(where, kind, right text, other texts, {wrong answer: message}) for every item."""
    for path in sorted((ROOT / "source").glob("*/*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for i, cell in enumerate(cells):
            found = _hidden_call(cell.source) if cell.cell_type == "code" else None
            if not found:
                continue
            kind, kw = found
            question = next(c for c in reversed(cells[:i]) if c.cell_type == "markdown")
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            where = f"{path.stem}/{gid}"
            if kind == "check_choice":
                options = _options(question.source)
                if not options:  # a choice of named keys (k1, k2, k3): no option text
                    continue
                right = options[kw["correct"]]
                stem = question.source.split("- **a)**")[0]
                others = [t for k, t in options.items() if k != kw["correct"]] + [stem]
                messages = {
                    letter: _failure(
                        checks.check_choice, letter, kw["options"], correct=kw["correct"],
                        misconceptions=kw.get("misconceptions"), name=kw["name"],
                    )
                    for letter in options if letter != kw["correct"]
                }  # fmt: skip
                yield where, right, others, messages
            else:
                reason = next(
                    (c for c in _until_next_item(cells[i + 1 :]) if "### BEGIN SOLUTION" in c.source
                     and c.cell_type == "markdown"), None,
                )  # fmt: skip
                right = _solution_text(reason) if reason else ""
                wrong = not kw["correct"]
                message = _failure(
                    checks.check_true_false, wrong, correct=kw["correct"],
                    misconception=kw.get("misconception"), name=kw["name"],
                )  # fmt: skip
                yield where, right, [question.source], {str(wrong): message}


CHOICE_ITEMS = list(choice_items())


def _all_messages() -> list[str]:
    texts = _registry_texts() + _hand_messages() + _function_messages() + _layer_messages()
    texts += _block_messages()
    texts += [m for *_, messages in CHOICE_ITEMS for m in messages.values()]
    return [t for t in texts if t]


# ---------------------------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_scan_sees_every_kind_of_message():
    """The gathering reaches every registry entry a check can name, and the fallbacks."""
    texts = _all_messages()
    assert len(texts) > 500
    named = {err.id for err in RAISED if isinstance(err, checks.Misconception)}
    computable = {e.id for e in misconceptions.REGISTRY.values() if e.wrong}
    assert computable <= named, sorted(computable - named)
    assert any(t.startswith("attention gives a wrong") for t in texts)
    assert any(t.startswith("stable_softmax gives wrong weights") for t in texts)
    assert len(CHOICE_ITEMS) >= 30


@pytest.mark.parametrize(
    "text",
    [
        "set them to -inf (np.where(mask, scores, -np.inf)) before the softmax.",
        "Subtract each row's own maximum (np.max(x, axis=axis, keepdims=True)).",
        "Steps: scores = Q @ K.T / sqrt(d_k); weights = softmax(scores); output = weights @ V.",
    ],
)
def test_the_code_scan_catches_the_fixes_issue_27_found(text):
    assert fix_in_code(text)


def test_the_option_scan_catches_the_give_aways_issue_27_found():
    """Focus Q2 (b)'s old idea gave (a) away; intro Q4's old True idea gave the reason away."""
    focus_a = "$q \\cdot k$ has variance $d_k$ for unit-variance components; dividing by $\\sqrt{d_k}$ brings it back to 1."
    old_idea = (
        "dividing by d_k over-shrinks the scores (their variance falls to 1/d_k), flattening "
        "softmax towards equal weights; sqrt(d_k) is chosen because it restores unit variance."
    )
    assert gives_away(old_idea, focus_a, ["Dividing by $d_k$ would keep the scores steadier"])
    model = "A Transformer tells the sentences apart only because positional encodings are added."
    old_true = "Transformers add positional encodings to know word order."
    assert gives_away(old_true, model, ["True or false: a self-attention layer, by itself"])


@pytest.mark.slow
def test_no_message_contains_a_fix_in_code():
    bad = {t: fix_in_code(t) for t in _all_messages() if fix_in_code(t)}
    assert not bad, bad


@pytest.mark.parametrize("item", CHOICE_ITEMS, ids=lambda item: item[0])
def test_no_wrong_option_feedback_gives_the_right_option_away(item):
    where, right, others, messages = item
    for answer, message in messages.items():
        assert message, f"{where}: {answer!r} passed"
        leak = gives_away(message, right, others)
        assert not leak, f"{where}: choosing {answer!r} shows {leak!r}\n{message}"


@pytest.mark.slow
def test_every_misconception_can_be_named_by_a_check_or_an_option():
    """Issue 38: an entry no check computes and no option offers is never shown to anyone."""
    _all_messages()
    named = {err.id for err in RAISED if isinstance(err, checks.Misconception)}
    assert set(misconceptions.REGISTRY) <= named, sorted(set(misconceptions.REGISTRY) - named)


# ---------------------------------------------------------------------------------------------
# Lesson pointers never send a student forward (issue 38, O7)
# ---------------------------------------------------------------------------------------------


def _lesson(mid: str) -> int:
    """The lesson an entry's feedback points to, as a number (``"lesson 03"`` -> 3)."""
    return misconceptions.get(mid).lesson_number


def _after_lesson() -> dict[str, int]:
    """Assignment -> the lesson it follows, read from the lesson table of docs/students.md."""
    table = (ROOT / "docs" / "students.md").read_text()
    rows = re.findall(r"^\| `(\d\d)_\w+` \|.*\| `(\w+)` \|$", table, flags=re.M)
    after = {assignment: int(lesson) for lesson, assignment in rows}
    # Both inventory forms: the pre-test's feedback is held until the post-test, after lesson 7
    # (teachers-gain).
    return after | {"inventory_pre": 7, "inventory_post": 7}


def _offered(path: Path) -> set[str]:
    """Every id an assignment's choice and true/false tests can name (hidden tests, as data)."""
    ids = set()
    for cell in nbformat.read(path, as_version=4).cells:
        found = _hidden_call(cell.source) if cell.cell_type == "code" else None
        if found:
            kw = found[1]
            ids |= set((kw.get("misconceptions") or {}).values())
            ids |= {kw["misconception"]} if kw.get("misconception") else set()
    return ids


def test_no_assignment_feedback_points_to_a_later_lesson():
    """intro_attention (after lesson 03) once sent students to lesson 05 (audit O7)."""
    from tests.support.accuracy_answers import QUESTIONS

    after = _after_lesson()
    assert set(after) >= {p.stem for p in (ROOT / "source").glob("*/*.ipynb")}, after
    for path in sorted((ROOT / "source").glob("*/*.ipynb")):
        shown = _offered(path) | {
            mid
            for question in QUESTIONS.get(path.stem, [])
            for wrong in question.wrong
            for mid in wrong.expect.values()
            if mid
        }
        late = {mid: _lesson(mid) for mid in shown if _lesson(mid) > after[path.stem]}
        assert not late, (path.stem, after[path.stem], late)


_L1_H = ((3, 1), (1, 1), (0, 2))  # lesson 1's encoder states, keys and values at once
#: The lessons' self-checks of hand-computed steps: (lesson, check, query, keys, values, scale).
_LESSON_CHECKS = [
    (1, "scores", (1, 2), _L1_H, _L1_H, False), (1, "output", (1, 2), _L1_H, _L1_H, False),
    (1, "scores", (2, -1), _L1_H, _L1_H, False), (1, "output", (2, -1), _L1_H, _L1_H, False),
    *[(lesson, kind, ex.query(), ex.K, ex.V, scale) for lesson, kind, ex, scale in [
        (2, "scores", TIFFIN, False), (2, "weights", TIFFIN, False), (2, "weights", TIFFIN, True),
        (2, "output", TIFFIN, True), (3, "scores", ISRO, True), (3, "weights", ISRO, True),
        (3, "weights", TIFFIN, True), (3, "output", ISRO, True), (5, "weights", TIFFIN, False),
        (5, "output", TIFFIN, False), (5, "output", ISRO, True),
    ]],
]  # fmt: skip
_HAND = {"scores": checks.check_scores, "weights": checks.check_weights,
         "output": checks.check_output}  # fmt: skip
_LATER_LESSON = re.compile(r"lesson 0?(\d)")


def _self_check_calls(lesson: int) -> list[tuple[str, dict]]:
    """(check, keyword names) of every hand-step ``self_check`` call in lesson ``lesson``."""
    path = next((ROOT / "notebooks").glob(f"{lesson:02d}_*.ipynb"))
    calls = []
    for cell in nbformat.read(path, as_version=4).cells:
        if "self-check" not in cell.metadata.get("tags", []):
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "self_check":
                check = ast.unparse(node.args[0]).rsplit(".", 1)[-1].removeprefix("check_")
                keywords = {k.arg: ast.unparse(k.value) for k in node.keywords}
                if check in _HAND:
                    calls.append((check, keywords))
    return calls


def test_every_hand_step_self_check_of_a_lesson_is_in_the_table():
    """A new self-check in lesson N is tried below, or this fails (lesson 1's were missing)."""
    for lesson in range(1, 8):
        used = {kind for kind, _ in _self_check_calls(lesson)}
        listed = {kind for n, kind, *_ in _LESSON_CHECKS if n == lesson}
        assert used <= listed, (lesson, used - listed)


@pytest.mark.parametrize(("lesson", "kind", "query", "keys", "values", "scale"), _LESSON_CHECKS)
def test_no_lesson_self_check_points_to_a_later_lesson(lesson, kind, query, keys, values, scale):
    """Every mistake a lesson's self-check names on its own inputs points to lessons up to it.

    The check runs as the lesson calls it (with ``lesson=N`` where the lesson passes it): an
    entry taught later is named there by what the answer shows, with no later lesson in sight.
    """
    passed = {kw.get("lesson") for k, kw in _self_check_calls(lesson) if k == kind}
    as_called = {"lesson": lesson} if passed == {str(lesson)} else {}
    case = Case.of([query], keys, values, scale)
    args = (query, keys, values) if kind == "output" else (query, keys)
    named, late = set(), {}
    for _, wrong in misconceptions.entries_for(kind):
        steps = compute(case, wrong)
        if steps is None:
            continue
        with contextlib.redirect_stdout(io.StringIO()):
            result = self_check(
                _HAND[kind], getattr(steps, kind)[0], *args, scale=scale, **as_called
            )
        if result.misconception:
            named.add(result.misconception)
            pointed = {int(n) for n in _LATER_LESSON.findall(result.message)}
            if max(pointed, default=0) > lesson:
                late[result.misconception] = result.message
    assert named and not late, (lesson, kind, late)
