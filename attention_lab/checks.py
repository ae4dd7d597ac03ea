"""Misconception-aware checks for the auto-graded assignments.

A test cell in an nbgrader assignment makes one call per check, passing the student's answer and
the question's inputs::

    checks.check_weights(launched_weights, query=[0, 1], keys=K, scale=True, name="launched_weights")

A check returns ``None`` when the answer is right. Otherwise it raises an ``AssertionError``
subclass, so nbgrader marks the cell as failed:

* :class:`Misconception` when the wrong answer equals a known buggy computation (hard attention,
  a forgotten ``1/sqrt(d_k)``, a mask applied after the softmax, ...). ``str(err)`` is
  ``"[<slug>] <teaching message>"``; :data:`MISCONCEPTIONS` maps every slug to a short title.
* :class:`AnswerFormatError` when the answer has the wrong type or shape (says what was expected).
* :class:`WrongAnswer` otherwise.

The expected values are computed here from the inputs the test cell passes, so this module holds
no answer key, and no message ever shows an expected value or a hidden input. Checks write
nothing to stderr (nbgrader gives 0 points to a test cell with stderr output): numpy's floating
point warnings and the student's own stderr are swallowed while a check runs.

The ``check_*_function`` checks exercise a student's implementation on several inputs (small,
overflow-size scores, random shapes, masked rows) while ``attention_lab``, ``scipy`` and
``torch`` are replaced by tripwires, so an implementation that calls a library fails with
``[used_library]`` naming what it called.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
import warnings
from collections.abc import Callable, Iterator

import numpy as np

from attention_lab.core import causal_mask as _reference_causal_mask
from attention_lab.core import softmax as _reference_softmax

__all__ = [
    "MISCONCEPTIONS",
    "CheckFailure",
    "Misconception",
    "AnswerFormatError",
    "WrongAnswer",
    "check_numbers",
    "check_weights_format",
    "check_scores",
    "check_weights",
    "check_output",
    "check_choice",
    "check_true_false",
    "check_names",
    "check_function",
    "check_softmax_function",
    "check_attention_function",
    "check_causal_mask_function",
]

#: slug -> short human title (the teacher's class report counts these).
MISCONCEPTIONS: dict[str, str] = {
    "hard_attention": "picked one value (v[argmax]) instead of blending all values",
    "forgot_scaling": "forgot to divide the scores by sqrt(d_k)",
    "scaled_when_not_asked": "divided by sqrt(d_k) when the question said not to scale",
    "divided_by_dk": "divided the scores by d_k instead of sqrt(d_k)",
    "sum_normalised": "divided by the sum instead of using softmax",
    "softmax_wrong_axis": "took the softmax along the wrong axis",
    "keys_as_values": "blended the keys instead of the values",
    "query_dot_values": "scored the query against the values (Q.V) instead of the keys",
    "scores_not_weights": "gave the raw scores where weights were asked",
    "weights_not_scores": "applied softmax where raw scores were asked",
    "uniform_average": "averaged the values equally, ignoring the scores",
    "mask_after_softmax": "applied the mask after the softmax",
    "mask_zero_not_inf": "masked scores with 0 instead of -inf",
    "mask_wrong_triangle": "causal mask on the wrong triangle (lets tokens see the future)",
    "mask_no_diagonal": "causal mask hides each token from itself",
    "mask_inverted": "read the mask backwards (True taken as 'blocked')",
    "naive_softmax_overflow": "naive softmax overflows to nan on large scores",
    "weights_not_normalised": "weights that do not sum to 1",
    "used_library": "called a library instead of writing the code",
    "importance_is_programmed": "thinks attention weights are hand-written rules",
    "order_aware_self_attention": "thinks self-attention alone knows word order",
    "values_change_weights": "thinks value vectors change the attention weights",
}

# The teaching message for each slug: what the answer shows and what to do instead. Never an
# expected value.
_LESSONS: dict[str, str] = {
    "hard_attention": (
        "your answer equals the value of the best-matching token alone (v[argmax]): attention "
        "blends all the values, each in proportion to its softmax weight; it does not pick one."
    ),
    "forgot_scaling": (
        "your answer matches unscaled scores: scaled dot-product attention divides every q.k by "
        "sqrt(d_k) before the softmax."
    ),
    "scaled_when_not_asked": (
        "your answer is divided by sqrt(d_k), but this question asks for the plain dot product "
        "(no scaling): add up the products of matching components and stop there."
    ),
    "divided_by_dk": (
        "your answer divides the scores by d_k: the scaling is 1/sqrt(d_k), which keeps the "
        "scores' variance near 1; dividing by d_k over-shrinks them and flattens the softmax."
    ),
    "sum_normalised": (
        "your weights are the scores divided by their sum: attention uses softmax (exponentiate, "
        "then divide by the sum of the exponentials), which keeps every weight positive even for "
        "negative scores."
    ),
    "softmax_wrong_axis": (
        "your softmax runs along the wrong axis: each query's weights over the keys must sum "
        "to 1 (across a row, axis=-1), not each key's weights over the queries."
    ),
    "keys_as_values": (
        "your output blends the key vectors: keys are only for matching; the output is the "
        "weighted sum of the value vectors."
    ),
    "query_dot_values": (
        "your scores compare the query with the value vectors: scores come from q.k with the "
        "keys; the values are only blended afterwards."
    ),
    "scores_not_weights": (
        "your weights are the raw scores: turn scores into weights with softmax so they are "
        "positive and sum to 1."
    ),
    "weights_not_scores": (
        "your answer already went through softmax: this part asks for the raw scores (the dot "
        "products, scaled only if the question says so)."
    ),
    "uniform_average": (
        "your output is the plain average of the values: attention weights each value by how "
        "well its key matches the query."
    ),
    "mask_after_softmax": (
        "you applied the mask after the softmax, so the allowed weights no longer sum to 1: set "
        "masked scores to -inf before the softmax; then they get exactly 0 weight and the others "
        "keep their ratios."
    ),
    "mask_zero_not_inf": (
        "you set masked scores to 0, but exp(0) = 1, so masked tokens still get weight: set them "
        "to -inf (np.where(mask, scores, -np.inf)) before the softmax."
    ),
    "mask_wrong_triangle": (
        "your mask lets tokens see later tokens: in a causal mask token i may attend to tokens "
        "0..i (the lower triangle, diagonal included), never to the future."
    ),
    "mask_no_diagonal": (
        "your mask stops each token from attending to itself: the causal mask keeps the "
        "diagonal (token i may attend to tokens 0..i, including i)."
    ),
    "mask_inverted": (
        "you read the mask backwards: True means 'may attend' and False means 'masked'."
    ),
    "naive_softmax_overflow": (
        "your softmax overflows on large scores (exp of a large number is inf, and inf/inf is "
        "nan): subtract the maximum score first; softmax does not change when every score is "
        "shifted by the same amount."
    ),
    "weights_not_normalised": (
        "your weights do not add up to 1: after exponentiating, divide by the sum of the "
        "exponentials (for each query separately)."
    ),
    "used_library": (
        "this exercise asks you to write the computation yourself with numpy (np.exp, np.max, "
        "np.sum, @, np.where, np.tril ...), not to call a finished implementation."
    ),
    "importance_is_programmed": (
        "nobody writes rules like 'bags matter less': the weight comes from the numbers in the "
        "query and key vectors (chosen by hand in the toy example, learned from data in a real "
        "network)."
    ),
    "order_aware_self_attention": (
        "self-attention's scores depend only on the word vectors, not on their positions: "
        "shuffle the words and the scores just shuffle along. Transformers add positional "
        "encodings to know word order."
    ),
    "values_change_weights": (
        "a weight is softmax(q.k / sqrt(d_k)) over the keys: it depends only on the query and "
        "the keys. Values only decide what gets blended once the weights are fixed."
    ),
}

# Choice and true/false questions test the idea, not a computation: their own wording.
_IDEAS: dict[str, str] = {
    "hard_attention": (
        "that is hard attention, picking the single best match (v[argmax]); softmax gives every "
        "token some weight and attention blends all the values."
    ),
    "forgot_scaling": (
        "without scaling, the dot product's spread grows with d_k, softmax saturates to nearly "
        "one-hot and the losing keys get almost no gradient; the scaling matters."
    ),
    "divided_by_dk": (
        "dividing by d_k over-shrinks the scores (their variance falls to 1/d_k), flattening "
        "softmax towards equal weights; sqrt(d_k) is chosen because it restores unit variance."
    ),
    "sum_normalised": (
        "dividing raw scores by their sum breaks with negative scores (negative 'shares' of "
        "attention) and when they sum to 0; exponentiating first makes every value positive."
    ),
    "weights_not_normalised": (
        "it is the softmax's division by the sum of exponentials that makes the weights add up "
        "to 1, whatever the scaling."
    ),
}

# Hand-computed answers may be rounded to 3 decimals in intermediate steps (the chapters do).
_HAND_RTOL, _HAND_ATOL = 1e-3, 6e-3
# Implementations may use float32: near scores of 10 000 it rounds to about 1e-3, which moves
# the weights by about 0.1% (relative).
_CODE_RTOL, _CODE_ATOL = 3e-3, 1e-4
# Libraries an implement-it exercise must not call (roots of module names).
_FORBIDDEN_ROOTS = ("attention_lab", "scipy", "torch", "tensorflow", "jax")


class CheckFailure(AssertionError):
    """Base of every failed check: an AssertionError, so nbgrader counts the test as failed.

    IPython shows only ``Name: message`` for these (via ``_render_traceback_``), not a traceback
    that would quote the test cell's code.
    """

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


class Misconception(CheckFailure):
    """The wrong answer equals a known buggy computation; ``str(err)`` is ``"[slug] message"``."""

    def __init__(self, slug: str, name: str = "your answer", detail: str = "", lesson: str = ""):
        if slug not in MISCONCEPTIONS:
            raise KeyError(f"unknown misconception slug {slug!r}; add it to MISCONCEPTIONS")
        self.slug = slug
        text = f"[{slug}] {name}: {lesson or _LESSONS[slug]}"
        super().__init__(f"{text} {detail}".rstrip())


class AnswerFormatError(CheckFailure):
    """The answer has the wrong type or shape; the message says what was expected."""


class WrongAnswer(CheckFailure):
    """The answer is wrong in a way no known misconception explains."""


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence numpy floating-point warnings, Python warnings and stderr inside a check."""
    with (
        np.errstate(all="ignore"),
        warnings.catch_warnings(),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        warnings.simplefilter("ignore")
        yield


def _as_numbers(answer, name: str, shape: tuple[int, ...], what: str) -> np.ndarray:
    """Convert an answer to a float array of ``shape`` or raise AnswerFormatError."""
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: replace None with {what}.")
    if isinstance(answer, str | bytes | dict | set):
        raise AnswerFormatError(
            f"{name} is a {type(answer).__name__}; expected {what} (numbers, not text)."
        )
    try:
        with _quiet():
            arr = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        raise AnswerFormatError(
            f"{name} could not be read as numbers ({type(answer).__name__}); expected {what}."
        ) from None
    if arr.shape != tuple(shape):
        raise AnswerFormatError(
            f"{name} has shape {arr.shape}; expected {what}, i.e. shape {tuple(shape)}."
        )
    if not np.isfinite(arr).all():
        raise AnswerFormatError(f"{name} contains nan or inf; expected {what} (finite numbers).")
    return arr


def _close(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    """True when ``a`` and ``b`` have the same shape and agree within the tolerances."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    with _quiet():
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=False))


def _diagnose(
    answer: np.ndarray,
    expected: np.ndarray,
    candidates: list[tuple[str, np.ndarray]],
    name: str,
    rtol: float,
    atol: float,
    wrong: str,
) -> None:
    """Pass if ``answer`` matches ``expected``; else raise the first matching misconception.

    A candidate that cannot be told apart from the expected value (within twice the tolerance)
    is skipped: for these inputs the bug would give the right answer, so it cannot be named.
    """
    if _close(answer, expected, rtol, atol):
        return
    for slug, candidate in candidates:
        if candidate is None or _close(candidate, expected, 2 * rtol, 2 * atol):
            continue
        if _close(answer, candidate, rtol, atol):
            raise Misconception(slug, name)
    raise WrongAnswer(f"{name} is not right yet. {wrong}")


def _scores(query, keys, scale: bool, divisor: str | None = None) -> np.ndarray:
    """q.k for each key; ``divisor`` overrides the scaling ("sqrt", "d" or "none")."""
    q = np.asarray(query, dtype=float)
    k = np.asarray(keys, dtype=float)
    raw = k @ q if q.ndim == 1 else q @ k.T
    d = k.shape[-1]
    rule = divisor or ("sqrt" if scale else "none")
    return {"sqrt": raw / np.sqrt(d), "d": raw / d, "none": raw}[rule]


def _one_hot_argmax(scores: np.ndarray) -> np.ndarray:
    """Hard attention's weights: 1 at each row's argmax (first on ties, like numpy), else 0."""
    scores = np.atleast_2d(scores)
    hot = np.zeros_like(scores)
    hot[np.arange(scores.shape[0]), np.argmax(scores, axis=-1)] = 1.0
    return hot


def _weight_candidates(query, keys, scale: bool) -> list[tuple[str, np.ndarray]]:
    """Weights that known misconceptions produce for one query (1-D) or several (2-D).

    A division by a zero sum gives nan/inf here, which never matches an answer.
    """
    s = _scores(query, keys, scale)
    raw = _scores(query, keys, scale, "none")
    other = "none" if scale else "sqrt"
    with _quiet():
        candidates = [
            (
                "forgot_scaling" if scale else "scaled_when_not_asked",
                _reference_softmax(_scores(query, keys, scale, other)),
            ),
            ("divided_by_dk", _reference_softmax(_scores(query, keys, scale, "d"))),
            ("sum_normalised", s / np.sum(s, axis=-1, keepdims=True)),
            ("sum_normalised", raw / np.sum(raw, axis=-1, keepdims=True)),
            ("hard_attention", _one_hot_argmax(s).reshape(s.shape)),
            ("weights_not_normalised", np.exp(s)),
            ("scores_not_weights", s),
            ("uniform_average", np.full_like(s, 1.0 / s.shape[-1])),
        ]
        if s.ndim == 2 and s.shape[0] > 1:
            candidates.append(("softmax_wrong_axis", _reference_softmax(s, axis=0)))
    return candidates


# --------------------------------------------------------------------------------------------
# Format checks (visible tests)
# --------------------------------------------------------------------------------------------


def check_numbers(answer, shape, name: str = "your answer", what: str = "numbers") -> None:
    """Check that ``answer`` is finite numbers of the given ``shape`` (a visible format test).

    Parameters
    ----------
    answer : number, list or numpy.ndarray
    shape : tuple of int
        ``()`` for a single number, ``(n,)`` for a list of ``n`` numbers.
    name : str
        The answer variable's name, used in messages.
    what : str
        What the answer should be, in words (e.g. ``"two numbers: the scores for Key_a and
        Key_b"``).
    """
    _as_numbers(answer, name, tuple(shape), what)


def check_weights_format(answer, n: int, name: str = "your weights") -> None:
    """Check ``answer`` is ``n`` attention weights: finite, non-negative and summing to 1."""
    arr = _as_numbers(answer, name, (n,), f"{n} weights, one per key")
    if (arr < -_HAND_ATOL).any():
        raise Misconception(
            "scores_not_weights", name, "(A weight can never be negative: exp(x) > 0.)"
        )
    if abs(arr.sum() - 1.0) > 2 * _HAND_ATOL:
        raise Misconception("weights_not_normalised", name)


# --------------------------------------------------------------------------------------------
# Value checks for hand computations (hidden tests)
# --------------------------------------------------------------------------------------------


def check_scores(answer, query, keys, scale: bool, name: str = "your scores") -> None:
    """Check the raw (or scaled) dot-product scores of one query against each key.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (n_k,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    scale : bool
        Whether the question asks for scores divided by ``sqrt(d_k)``.
    name : str
        The answer variable's name, used in messages.
    """
    n_k = len(keys)
    arr = _as_numbers(answer, name, (n_k,), f"{n_k} scores, one per key")
    expected = _scores(query, keys, scale)
    other = "none" if scale else "sqrt"
    with _quiet():
        candidates = [
            (
                "forgot_scaling" if scale else "scaled_when_not_asked",
                _scores(query, keys, scale, other),
            ),
            ("divided_by_dk", _scores(query, keys, scale, "d")),
            ("weights_not_scores", _reference_softmax(expected)),
        ]
    _diagnose(
        arr, expected, candidates, name, _HAND_RTOL, _HAND_ATOL,
        "A score is q.k: multiply matching components and add them up"
        + (", then divide by sqrt(d_k)." if scale else "."),
    )  # fmt: skip


def check_weights(answer, query, keys, scale: bool, name: str = "your weights") -> None:
    """Check the softmax attention weights of one query over the keys.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (n_k,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    scale : bool
        Whether the scores are divided by ``sqrt(d_k)`` before the softmax.
    name : str
        The answer variable's name, used in messages.
    """
    n_k = len(keys)
    arr = _as_numbers(answer, name, (n_k,), f"{n_k} weights, one per key")
    expected = _reference_softmax(_scores(query, keys, scale))
    _diagnose(
        arr, expected, _weight_candidates(query, keys, scale), name, _HAND_RTOL, _HAND_ATOL,
        "Weights are softmax(scores): exponentiate each score, then divide by the sum of the "
        "exponentials.",
    )  # fmt: skip


def check_output(answer, query, keys, values, scale: bool, name: str = "your output") -> None:
    """Check the attention output (the weighted blend of the values) for one query.

    Parameters
    ----------
    answer : list or numpy.ndarray, shape (d_v,)
    query : array_like, shape (d_k,)
    keys : array_like, shape (n_k, d_k)
    values : array_like, shape (n_k, d_v)
    scale : bool
        Whether the scores are divided by ``sqrt(d_k)`` before the softmax.
    name : str
        The answer variable's name, used in messages.
    """
    v = np.asarray(values, dtype=float)
    k = np.asarray(keys, dtype=float)
    d_v = v.shape[1]
    arr = _as_numbers(answer, name, (d_v,), f"a vector of {d_v} numbers (same length as a value)")
    s = _scores(query, keys, scale)
    weights = _reference_softmax(s)
    expected = weights @ v
    candidates = []
    for slug, w in _weight_candidates(query, keys, scale):
        if slug == "hard_attention":
            candidates.append((slug, v[int(np.argmax(s))]))
        elif slug != "scores_not_weights" and np.isfinite(w).all():
            candidates.append((slug, w @ v))
    if k.shape == v.shape:
        candidates.append(("keys_as_values", weights @ k))
        candidates.append(("query_dot_values", _reference_softmax(_scores(query, v, scale)) @ v))
    _diagnose(
        arr, expected, candidates, name, _HAND_RTOL, _HAND_ATOL,
        "The output is sum_i weight_i * v_i: every value, times its softmax weight, added up.",
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# Choice, true/false and naming questions
# --------------------------------------------------------------------------------------------


def _normalise_choice(answer) -> str:
    """``" (B) "`` -> ``"b"``; non-strings are returned as their repr for the message."""
    return str(answer).strip().strip("().").strip().lower()


def check_choice(
    answer,
    options,
    correct: str | None = None,
    misconceptions: dict[str, str] | None = None,
    name: str = "your answer",
) -> None:
    """Check a multiple-choice answer given as one option label, e.g. ``answer_q2 = "b"``.

    Parameters
    ----------
    answer : str
    options : iterable of str
        The allowed labels (``"abcd"`` or ``["k1", "k2", "k3"]``).
    correct : str, optional
        The right label; ``None`` checks the format only (the visible test).
    misconceptions : dict of str to str, optional
        Wrong label -> the misconception slug it reveals.
    name : str
        The answer variable's name, used in messages.
    """
    labels = [str(o).lower() for o in options]
    listed = ", ".join(f'"{label}"' for label in labels)
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: set it to one of {listed}.")
    if not isinstance(answer, str):
        raise AnswerFormatError(
            f"{name} is a {type(answer).__name__}; expected one of {listed} (a string in quotes)."
        )
    choice = _normalise_choice(answer)
    if choice not in labels:
        raise AnswerFormatError(f"{name} is {answer!r}; expected one of {listed}.")
    if correct is None or choice == _normalise_choice(correct):
        return
    slug = (misconceptions or {}).get(choice)
    if slug:
        raise Misconception(slug, f"{name} ({choice!r})", lesson=_IDEAS.get(slug, ""))
    raise WrongAnswer(f"{name}: {choice!r} is not the best answer; reread the options.")


def _as_bool(answer, name: str) -> bool:
    """Accept True/False (Python or numpy) or the strings "true"/"false"."""
    if isinstance(answer, bool | np.bool_):
        return bool(answer)
    if isinstance(answer, str) and answer.strip().lower() in ("true", "false"):
        return answer.strip().lower() == "true"
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: set it to True or False.")
    raise AnswerFormatError(
        f"{name} is {answer!r} ({type(answer).__name__}); expected True or False."
    )


def check_true_false(
    answer, correct: bool | None = None, misconception: str | None = None, name: str = "your answer"
) -> None:
    """Check a true/false answer; ``correct=None`` checks the format only (the visible test).

    ``misconception`` is the slug a wrong answer reveals.
    """
    value = _as_bool(answer, name)
    if correct is None or value == bool(correct):
        return
    if misconception:
        raise Misconception(misconception, name)
    raise WrongAnswer(f"{name} is not right yet; reread the statement.")


def _normalise_name(word: str) -> str:
    """``"Queries"`` / ``"query vector"`` / ``"Q"`` -> ``"query"`` (the same for key, value)."""
    word = word.strip().lower().removesuffix(" vectors").removesuffix(" vector").strip()
    singular = {"queries": "query", "keys": "key", "values": "value"}
    short = {"q": "query", "k": "key", "v": "value"}
    return singular.get(word, short.get(word, word))


def check_names(answer, count: int, correct=None, name: str = "your answer") -> None:
    """Check a list of ``count`` names, in any order and any capitalisation.

    ``correct=None`` checks the format only (the visible test).
    """
    if answer is None:
        raise AnswerFormatError(f"{name} is still None: give a list of {count} names (strings).")
    if isinstance(answer, str) or not isinstance(answer, list | tuple | set):
        raise AnswerFormatError(
            f"{name} is a {type(answer).__name__}; expected a list of {count} names, "
            'like ["first", "second", "third"].'
        )
    items = list(answer)
    if len(items) != count or not all(isinstance(item, str) for item in items):
        raise AnswerFormatError(f"{name} should hold exactly {count} names, each a string.")
    if correct is None:
        return
    given = {_normalise_name(item) for item in items}
    wanted = {_normalise_name(item) for item in correct}
    strays = sorted(given - wanted)
    if strays:
        raise WrongAnswer(
            f"{name}: {', '.join(repr(s) for s in strays)} is not one of the vectors each word "
            "computes before any score (scores and weights come later, from those vectors)."
        )
    if len(given) != count:
        raise WrongAnswer(f"{name} repeats a name; the {count} vectors are all different.")


# --------------------------------------------------------------------------------------------
# Implement-it exercises: run the student's function on several inputs, with tripwires
# --------------------------------------------------------------------------------------------


class _Tripwire(BaseException):
    """Raised when forbidden library code is called. A BaseException, so the student's own
    ``except Exception`` cannot swallow it."""


def _tripwire(qualname: str) -> Callable:
    def tripped(*args, **kwargs):
        raise _Tripwire(qualname)

    tripped.__name__ = qualname.rsplit(".", 1)[-1]
    return tripped


class _TripwireModule(types.ModuleType):
    """Stands in for an uninstalled/unimported library while the student's code runs."""

    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise _Tripwire(f"{self.__name__}.{attr}")


_TRIPWIRE_MODULES = ("scipy", "scipy.special", "torch", "torch.nn", "torch.nn.functional")


@contextlib.contextmanager
def _tripwires() -> Iterator[None]:
    """Replace library implementations by tripwires while the student's function runs."""
    patched: list[tuple[object, str, object]] = []
    inserted: list[str] = []
    targets = [m for m in ("attention_lab", "attention_lab.core") if m in sys.modules]
    for modname in targets:
        module = sys.modules[modname]
        for attr in getattr(module, "__all__", []):
            # vars(), not getattr(): a lazily imported attribute (plots, widgets) would import
            # matplotlib here; what is not loaded yet cannot be bound by the student either.
            value = vars(module).get(attr)
            if isinstance(value, types.FunctionType):
                patched.append((module, attr, value))
                setattr(module, attr, _tripwire(f"{modname}.{attr}"))
    for modname in _TRIPWIRE_MODULES:
        if modname in sys.modules:
            module = sys.modules[modname]
            if hasattr(module, "softmax"):
                patched.append((module, "softmax", module.softmax))
                module.softmax = _tripwire(f"{modname}.softmax")
        else:
            sys.modules[modname] = _TripwireModule(modname)
            inserted.append(modname)
    try:
        yield
    finally:
        for module, attr, original in reversed(patched):
            setattr(module, attr, original)
        for modname in inserted:
            sys.modules.pop(modname, None)


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """A code object and every nested one (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _forbidden_reference(obj) -> str | None:
    """The dotted name of ``obj`` if it is (or belongs to) a forbidden library, else None."""
    if isinstance(obj, types.ModuleType):
        modname = obj.__name__
    else:
        modname = getattr(obj, "__module__", None) or ""
        if not isinstance(modname, str):
            return None
    if modname.split(".")[0] in _FORBIDDEN_ROOTS:
        label = getattr(obj, "__qualname__", getattr(obj, "__name__", ""))
        return modname if isinstance(obj, types.ModuleType) else f"{modname}.{label}"
    return None


def _static_library_use(fn: Callable, _seen: set | None = None) -> str | None:
    """Find a forbidden library among the names ``fn`` (and the helpers it calls) refers to."""
    seen = _seen if _seen is not None else set()
    if not isinstance(fn, types.FunctionType):
        # The grader's call proxy for a function that lives in the student's kernel carries
        # what the grader found in the submitted source (attention_grader.trusted).
        return getattr(fn, "attention_library_use", None) if _seen is None else None
    if fn in seen:
        return None
    seen.add(fn)
    closure = [cell.cell_contents for cell in fn.__closure__ or () if _cell_filled(cell)]
    for code in _code_objects(fn.__code__):
        for word in code.co_names:
            if word.split(".")[0] in _FORBIDDEN_ROOTS:  # `import scipy.special` names it whole
                return word
            obj = fn.__globals__.get(word)
            found = _forbidden_reference(obj) if obj is not None else None
            if found:
                return found
            if isinstance(obj, types.FunctionType):
                found = _static_library_use(obj, seen)
                if found:
                    return found
    for obj in closure:
        found = _forbidden_reference(obj) or _static_library_use(obj, seen)
        if found:
            return found
    return None


def _cell_filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 -- an empty closure cell raises ValueError
    except ValueError:
        return False
    return True


def check_function(fn, name: str) -> None:
    """Check that ``fn`` is a function the student wrote (a visible format test).

    Raises AnswerFormatError if it is not callable and ``Misconception("used_library")`` if its
    code refers to ``attention_lab``, ``scipy``, ``torch`` (or tensorflow/jax).
    """
    if not callable(fn):
        raise AnswerFormatError(f"{name} is a {type(fn).__name__}; expected a function (def ...).")
    found = _static_library_use(fn)
    if found:
        raise Misconception("used_library", name, f"(Your code refers to {found}.)")


class _StudentRaised(Exception):
    def __init__(self, err: BaseException):
        super().__init__(f"{type(err).__name__}: {err}")
        self.err = err


def _call(fn: Callable, name: str, case: str, *args, **kwargs):
    """Call the student's function quietly, behind tripwires; translate what goes wrong."""
    try:
        with _quiet(), _tripwires():
            return fn(*args, **kwargs)
    except _Tripwire as trip:
        raise Misconception("used_library", name, f"(It called {trip.args[0]}.)") from None
    except NotImplementedError:
        raise WrongAnswer(
            f"{name} raised NotImplementedError: replace `raise NotImplementedError()` with "
            "your code."
        ) from None
    except (OverflowError, FloatingPointError) as err:
        raise _StudentRaised(err) from None
    except Exception as err:
        raise WrongAnswer(
            f"{name} raised {type(err).__name__} on {case}: {err}. Run it on a small example "
            "of your own to find out why."
        ) from None


def _overflow_case(case: str) -> bool:
    """Whether a case's scores are large enough to overflow a naive softmax."""
    return "overflow" in case or "large" in case


def _non_finite(name: str, case: str) -> CheckFailure:
    """The failure for a nan/inf result: naive softmax on large scores, else a plain bug."""
    if _overflow_case(case):
        return Misconception("naive_softmax_overflow", name, f"(It gave nan/inf on {case}.)")
    return WrongAnswer(f"{name} gave nan or inf on {case}; every result should be a real number.")


def _returned_array(result, name: str, case: str, what: str) -> np.ndarray:
    """Read a returned value as a float array, or raise AnswerFormatError."""
    if result is None:
        raise AnswerFormatError(f"{name} returned None on {case}: add a `return` with {what}.")
    try:
        with _quiet():
            return np.asarray(result, dtype=float)
    except (TypeError, ValueError):
        raise AnswerFormatError(
            f"{name} returned a {type(result).__name__} on {case} that is not numbers; "
            f"expected {what}."
        ) from None


def _softmax_cases(visible: bool, rng: np.random.Generator) -> list[tuple[str, np.ndarray, dict]]:
    """(description, scores, keyword arguments) for exercising a softmax implementation."""
    cases = [("a short vector of scores", np.array([1.0, 2.0, 0.5]), {})]
    if visible:
        return cases
    big = 1e4 + rng.uniform(-3, 3, size=5)
    masked = rng.normal(size=(4, 6))
    masked[masked < -0.3] = -np.inf
    masked[:, 0] = rng.normal(size=4)  # every row keeps at least one allowed key
    rows, cols = rng.integers(2, 7, size=2)
    cases += [
        ("overflow-size scores (around 10 000)", big, {}),
        ("large negative scores (around -10 000)", -big, {}),
        ("a random 2-D batch (softmax across each row)", rng.normal(size=(rows, cols)) * 3, {}),
        ("a random 2-D batch with axis=0", rng.normal(size=(cols, rows)) * 3, {"axis": 0}),
        ("rows with masked (-inf) scores", masked, {}),
    ]
    return cases


def check_softmax_function(fn, name: str = "stable_softmax", visible: bool = False) -> None:
    """Check a student's softmax ``fn(x, axis=-1)`` on several inputs.

    ``visible=True`` runs only one small public case (the visible test); the full run adds
    overflow-size scores, random 2-D shapes along both axes and rows with ``-inf`` entries.
    """
    check_function(fn, name)
    rng = np.random.default_rng(20261130)
    for case, x, kwargs in _softmax_cases(visible, rng):
        axis = kwargs.get("axis", -1)
        try:
            result = _call(fn, name, case, x.copy(), **kwargs)
        except _StudentRaised as err:
            if _overflow_case(case):
                raise Misconception("naive_softmax_overflow", name, f"(On {case}.)") from None
            raise WrongAnswer(f"{name} raised {err} on {case}.") from None
        got = _returned_array(result, name, case, "an array of weights")
        if got.shape != x.shape:
            raise AnswerFormatError(
                f"{name} returned shape {got.shape} on {case}; a softmax returns one weight per "
                "score (the same shape as its input)."
            )
        expected = _reference_softmax(x, axis=axis)
        if not np.isfinite(got).all():
            raise _non_finite(name, case)
        with _quiet():
            shifted = x - np.max(x, axis=axis, keepdims=True)
            other_axis = 0 if axis != 0 else -1
            candidates = [
                ("softmax_wrong_axis", _reference_softmax(x, axis=other_axis) if x.ndim > 1 else None),
                ("sum_normalised", x / np.sum(x, axis=axis, keepdims=True)),
                ("weights_not_normalised", np.exp(shifted)),
                ("weights_not_normalised", np.exp(x)),
            ]  # fmt: skip
        try:
            _diagnose(got, expected, candidates, name, _CODE_RTOL, _CODE_ATOL, "")
        except WrongAnswer:
            sums = np.sum(got, axis=axis)
            if not np.allclose(sums, 1.0, atol=1e-3):
                raise Misconception("weights_not_normalised", name, f"(On {case}.)") from None
            raise WrongAnswer(
                f"{name} gives wrong weights on {case}. Softmax is exp(x_i - max) divided by the "
                "sum of those exponentials along the given axis."
            ) from None


def _attention_reference(Q, K, V, mask=None, divisor="sqrt", mask_mode="inf", axis=-1):
    """Reference attention with switchable bugs; returns (output, weights) or None if undefined."""
    scores = _scores(Q, K, True, divisor)
    with _quiet():
        if mask is not None and mask_mode == "inf":
            scores = np.where(mask, scores, -np.inf)
        elif mask is not None and mask_mode == "zero":
            scores = np.where(mask, scores, 0.0)
        elif mask is not None and mask_mode == "inverted":
            if (~mask).all(axis=-1).any() or mask.all(axis=-1).any():
                return None
            scores = np.where(~mask, scores, -np.inf)
        weights = _reference_softmax(scores, axis=axis)
        if mask is not None and mask_mode == "after":
            weights = weights * mask
    return weights @ np.asarray(V, dtype=float), weights


def _attention_cases(visible: bool, rng: np.random.Generator) -> list[tuple[str, dict]]:
    """(description, keyword arguments Q, K, V, mask) for exercising an attention function."""
    isro_k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    isro_v = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 4.0]])
    cases = [("the ISRO example (3 tokens, d_k = 2)", {"Q": isro_k, "K": isro_k, "V": isro_v})]
    if visible:
        return cases
    n_q, n_k, d_k, d_v = (int(v) for v in rng.integers(3, 7, size=4))
    if d_v == d_k:
        d_v += 1  # different lengths expose blending the keys instead of the values
    n = int(rng.integers(4, 7))
    square = {"Q": rng.normal(size=(n, d_k)), "K": rng.normal(size=(n, d_k))}
    # Every row keeps at least one allowed and one masked key, so a mask read backwards still
    # gives finite weights and can be recognised.
    random_mask = rng.random((n_q, n_k)) < 0.5
    random_mask[np.arange(n_q), rng.integers(0, n_k // 2, size=n_q)] = True
    random_mask[np.arange(n_q), rng.integers(n_k // 2, n_k, size=n_q)] = False
    big = rng.normal(size=(n_q, d_k)) * 30.0
    cases += [
        (
            "random shapes (n_q, n_k, d_k, d_v all different)",
            {"Q": rng.normal(size=(n_q, d_k)), "K": rng.normal(size=(n_k, d_k)) * 2,
             "V": rng.normal(size=(n_k, d_v))},
        ),
        (
            "a random mask with masked entries in several rows",
            {"Q": rng.normal(size=(n_q, d_k)) * 2, "K": rng.normal(size=(n_k, d_k)),
             "V": rng.normal(size=(n_k, d_v)), "mask": random_mask},
        ),
        (
            "a causal mask (lower triangle)",
            {**square, "V": rng.normal(size=(n, d_v)), "mask": _reference_causal_mask(n)},
        ),
        (
            "overflow-size scores (thousands)",
            {"Q": big, "K": big[rng.integers(0, n_q, size=n_k)] + rng.normal(size=(n_k, d_k)),
             "V": rng.normal(size=(n_k, d_v))},
        ),
    ]  # fmt: skip
    return cases


def _attention_candidates(args: dict) -> list[tuple[str, tuple | None]]:
    """(slug, (output, weights)) pairs that known misconceptions produce for one case."""
    Q, K, V, mask = args["Q"], args["K"], args["V"], args.get("mask")
    with _quiet():
        found = [
            ("forgot_scaling", _attention_reference(Q, K, V, mask, divisor="none")),
            ("divided_by_dk", _attention_reference(Q, K, V, mask, divisor="d")),
            ("softmax_wrong_axis", None),
        ]
        if mask is None or mask.any(axis=0).all():
            found[2] = ("softmax_wrong_axis", _attention_reference(Q, K, V, mask, axis=0))
        if mask is not None:
            found += [
                ("mask_after_softmax", _attention_reference(Q, K, V, mask, mask_mode="after")),
                ("mask_zero_not_inf", _attention_reference(Q, K, V, mask, mask_mode="zero")),
                ("mask_inverted", _attention_reference(Q, K, V, mask, mask_mode="inverted")),
            ]
        out, weights = _attention_reference(Q, K, V, mask)
        scores = _scores(Q, K, True)
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        hard = _one_hot_argmax(scores)
        found.append(("hard_attention", (hard @ V, hard)))
        sums = np.where(mask, _scores(Q, K, True), 0.0) if mask is not None else scores
        found.append(("sum_normalised", ((w := sums / sums.sum(-1, keepdims=True)) @ V, w)))
        found.append(("keys_as_values", (weights @ K, weights)))
        if V.shape == K.shape:
            w_qv = _reference_softmax(_scores(Q, V, True))
            found.append(("query_dot_values", (w_qv @ V, w_qv)))
    return found


def check_attention_function(fn, name: str = "attention", visible: bool = False) -> None:
    """Check a student's ``fn(Q, K, V, mask=None) -> (output, weights)`` on several inputs.

    ``visible=True`` runs only the chapter's ISRO example (the visible test); the full run adds
    random shapes, a causal mask, a random mask and overflow-size scores.
    """
    check_function(fn, name)
    rng = np.random.default_rng(20261201)
    for case, args in _attention_cases(visible, rng):
        Q, K, V, mask = args["Q"], args["K"], args["V"], args.get("mask")
        call_args = {k: np.array(v, copy=True) for k, v in args.items()}
        mask_kw = {"mask": call_args.pop("mask")} if mask is not None else {}
        try:
            result = _call(
                fn, name, case, call_args["Q"], call_args["K"], call_args["V"], **mask_kw
            )
        except _StudentRaised as err:
            if _overflow_case(case):
                raise Misconception("naive_softmax_overflow", name, f"(On {case}.)") from None
            raise WrongAnswer(f"{name} raised {err} on {case}.") from None
        if not isinstance(result, tuple | list) or len(result) != 2:
            raise AnswerFormatError(
                f"{name} returned a {type(result).__name__} on {case}; expected a pair "
                "(output, weights): `return output, weights`."
            )
        out = _returned_array(result[0], name, case, "(output, weights)")
        weights = _returned_array(result[1], name, case, "(output, weights)")
        n_q, n_k, d_v = Q.shape[0], K.shape[0], V.shape[1]
        if out.shape == (n_q, n_k) and weights.shape == (n_q, d_v) and n_k != d_v:
            raise AnswerFormatError(
                f"{name} returned (weights, output) on {case}; return them as (output, weights)."
            )
        if weights.shape != (n_q, n_k):
            raise AnswerFormatError(
                f"{name} returned weights of shape {weights.shape} on {case}; expected one row "
                "per query and one column per key."
            )
        if out.shape != (n_q, d_v):
            if out.shape == (n_q, K.shape[1]):
                raise Misconception("keys_as_values", name, f"(On {case}.)")
            raise AnswerFormatError(
                f"{name} returned an output of shape {out.shape} on {case}; expected one row per "
                "query and one column per value component."
            )
        if not (np.isfinite(out).all() and np.isfinite(weights).all()):
            raise _non_finite(name, case)
        expected_out, expected_w = _attention_reference(Q, K, V, mask)
        if _close(weights, expected_w, _CODE_RTOL, _CODE_ATOL) and _close(
            out, expected_out, _CODE_RTOL, _CODE_ATOL
        ):
            continue
        for slug, candidate in _attention_candidates(args):
            if candidate is None or not np.isfinite(candidate[1]).all():
                continue
            c_out, c_w = candidate
            if _close(c_out, expected_out, 2 * _CODE_RTOL, 2 * _CODE_ATOL) and _close(
                c_w, expected_w, 2 * _CODE_RTOL, 2 * _CODE_ATOL
            ):
                continue
            if _close(out, c_out, _CODE_RTOL, _CODE_ATOL):
                raise Misconception(slug, name, f"(On {case}.)")
        if not np.allclose(np.sum(weights, axis=-1), 1.0, atol=1e-3):
            raise Misconception("weights_not_normalised", name, f"(On {case}.)")
        part = "weights" if not _close(weights, expected_w, _CODE_RTOL, _CODE_ATOL) else "output"
        raise WrongAnswer(
            f"{name} gives a wrong {part} on {case}. Steps: scores = Q @ K.T / sqrt(d_k); masked "
            "scores -> -inf; weights = softmax over each row; output = weights @ V."
        )


def check_causal_mask_function(fn, name: str = "causal_mask", visible: bool = False) -> None:
    """Check a student's ``fn(n)`` returns the boolean causal mask (True = may attend).

    ``visible=True`` runs only ``n = 3``; the full run adds ``n = 1`` and two random sizes.
    """
    check_function(fn, name)
    rng = np.random.default_rng(20261202)
    sizes = [3] if visible else [3, 1, *(int(n) for n in rng.integers(4, 12, size=2))]
    for n in sizes:
        case = f"n = {n}" if visible or n < 4 else "a random sequence length"
        result = _call(fn, name, case, n)
        if result is None:
            raise AnswerFormatError(f"{name} returned None on {case}: add a `return`.")
        try:
            got = np.asarray(result)
        except (TypeError, ValueError):
            raise AnswerFormatError(f"{name} returned something that is not an array.") from None
        if got.shape != (n, n):
            raise AnswerFormatError(
                f"{name} returned shape {got.shape} on {case}; expected an n x n array "
                "(one row per query token, one column per key token)."
            )
        if got.dtype != bool:
            if np.isin(got, (0, 1)).all():
                got = got.astype(bool)  # 0/1 integers mean the same thing
            else:
                raise AnswerFormatError(
                    f"{name} returned values other than True/False on {case}; return booleans "
                    "(True = may attend), not scores such as 0 and -inf."
                )
        expected = _reference_causal_mask(n)
        if np.array_equal(got, expected):
            continue
        eye = np.eye(n, dtype=bool)
        for slug, candidate in (
            ("mask_wrong_triangle", expected.T),
            ("mask_no_diagonal", expected & ~eye),
            ("mask_inverted", ~expected),
        ):
            if np.array_equal(got, candidate):
                raise Misconception(slug, name, f"(On {case}.)")
        raise WrongAnswer(
            f"{name} is not a causal mask on {case}: True where the key's position is at most "
            "the query's position (lower triangle with the diagonal)."
        )
