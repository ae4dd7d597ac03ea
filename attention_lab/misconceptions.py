"""The misconception registry: one entry per mistake the course's feedback can name.

An entry holds everything about one misconception: its id (what feedback shows in square
brackets and the class report counts), a short title for the teacher, the message a student gets
when a computed answer shows it, the teaching idea shown when a multiple-choice option or a
true/false answer reveals it, and the wrong computation(s) that produce it, written as stage
replacements of the attention computation (:class:`attention_lab._steps.WrongComputation`), or,
for a mistake about projections, heads or positions (lesson 6), of one projected head
(:class:`attention_lab._layer_steps.WrongLayer`, in ``layer_wrong``).

The checks in :mod:`attention_lab.checks` build their candidate wrong answers from these entries,
and the teacher's report reads a diagnosis back with :func:`parse_diagnosis`, the inverse of
:func:`format_diagnosis`. A new misconception is one new entry here (and a test).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from attention_lab._layer_steps import LayerCase, WrongLayer
from attention_lab._steps import Case, WrongComputation, one_hot, raw_scores, softmax

__all__ = [
    "REGISTRY",
    "Entry",
    "Parsed",
    "Case",
    "WrongComputation",
    "entries_for",
    "layer_entries_for",
    "format_diagnosis",
    "get",
    "parse_diagnosis",
    "titles",
]


@dataclass(frozen=True)
class Entry:
    """One misconception.

    Attributes
    ----------
    id : str
        lower_snake_case; shown in brackets in feedback, e.g. ``[forgot_scaling]``.
    title : str
        A few words for the teacher's report.
    message : str
        What a wrong computed answer shows and what to do instead (never a number).
    idea : str
        The teaching idea, for a multiple-choice option or true/false answer that reveals it.
    wrong : tuple of WrongComputation
        The computations that produce it (empty for a misconception about an idea).
    kinds : frozenset of str or None
        The answer kinds it is looked for in (see ``WrongComputation.reaches``); None = every
        kind its computations reach.
    layer_wrong : tuple of WrongLayer
        The computations of one projected head that produce it (lesson 6's projections, heads
        and positions; see :func:`layer_entries_for`).
    """

    id: str
    title: str
    message: str
    idea: str = ""
    wrong: tuple[WrongComputation, ...] = ()
    kinds: frozenset[str] | None = None
    layer_wrong: tuple[WrongLayer, ...] = ()

    def computations(self, kind: str) -> tuple[WrongComputation, ...]:
        """The wrong computations that apply to an answer of ``kind``."""
        if self.kinds is not None and kind not in self.kinds:
            return ()
        return tuple(w for w in self.wrong if w.reaches(kind))

    @property
    def teaching(self) -> str:
        """The idea when there is one, else the message."""
        return self.idea or self.message


# ---------------------------------------------------------------------------------------------
# Wrong stages (small named functions, reused by several entries)
# ---------------------------------------------------------------------------------------------


def _unscaled(case: Case):
    return raw_scores(case) if case.scale else None


def _scaled_anyway(case: Case):
    return None if case.scale else raw_scores(case) / np.sqrt(case.d_k)


def _by_dk(case: Case):
    return raw_scores(case) / case.d_k


def _by_tokens(case: Case):
    return raw_scores(case) / case.n_k


def _query_dot_values(case: Case):
    if case.V is None or case.V.shape[-1] != case.d_k:
        return None
    raw = case.Q @ case.V.T
    return raw / np.sqrt(case.d_k) if case.scale else raw


def _softmax_of_scores(case: Case):
    raw = raw_scores(case)
    return softmax(raw / np.sqrt(case.d_k) if case.scale else raw)


def _other_axis(x, axis):
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[0] < 2:
        return None
    return softmax(x, axis=0 if axis % x.ndim != 0 else -1)


def _whole_array(x, axis):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps)


def _row_shift_whole_sum(x, axis):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.sum(exps)


def _global_max(x, axis):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps, axis=axis, keepdims=True)


def _clipped(limit):
    """Scores clipped to [-limit, limit] before exp (limits students pick: 88 is float32's)."""

    def clipped(x, axis):
        exps = np.exp(np.clip(np.asarray(x, dtype=float), -limit, limit))
        return exps / np.sum(exps, axis=axis, keepdims=True)

    return clipped


def _naive(x, axis):
    exps = np.exp(np.asarray(x, dtype=float))
    return exps / np.sum(exps, axis=axis, keepdims=True)


def _by_sum(x, axis):
    x = np.asarray(x, dtype=float)
    return x / np.sum(x, axis=axis, keepdims=True)


def _one_hot(pick):
    return lambda x, axis: one_hot(x, axis=axis, pick=pick)


def _exps_shifted(x, axis):
    x = np.asarray(x, dtype=float)
    return np.exp(x - np.max(x, axis=axis, keepdims=True))


def _exps(x, axis):
    return np.exp(np.asarray(x, dtype=float))


def _uniform(x, axis):
    x = np.asarray(x, dtype=float)
    return np.full_like(x, 1.0 / x.shape[axis])


def _identity(x, *_):
    return np.asarray(x, dtype=float)


def _zero_masked(scores, mask):
    return np.where(mask, scores, 0.0)


def _inverted(scores, mask):
    return np.where(~mask, scores, -np.inf)


def _keys_blended(weights, case):
    return weights @ case.K


def _tril(n, k=0):
    return np.tril(np.ones((n, n), dtype=bool), k=k)


def _first_head_queries(case: LayerCase, inputs):
    return None if case.other_W_Q is None else inputs @ case.other_W_Q


def _unprojected_scores(case: LayerCase, inputs):
    return inputs @ inputs.T / case.divisor


def _without_positions(case: LayerCase):
    return None if case.positions is None else case.X


def _positions_on_output(case: LayerCase, weights, values):
    return None if case.positions is None else weights @ values + case.positions


def _one_matrix_scores(case: LayerCase, inputs):
    if case.W_Q.shape[1] != case.W_K.shape[0]:
        return None
    return inputs @ (case.W_Q @ case.W_K) @ inputs.T / case.divisor


_W = WrongComputation

# ---------------------------------------------------------------------------------------------
# The entries. Order matters: when one wrong answer matches several computations, the first
# entry wins, so specific mistakes come before general ones.
# ---------------------------------------------------------------------------------------------

_ENTRIES = [
    Entry(
        "hard_attention",
        "picked one value (v[argmax]) instead of blending all values",
        "your answer puts all the weight on the best-matching key (a one-hot argmax, v[argmax] "
        "for the output): softmax gives every key some weight, and attention blends all the "
        "values, each in proportion to its weight; it does not pick one.",
        "that is hard attention, picking the single best match (v[argmax]); softmax gives every "
        "token some weight and attention blends all the values.",
        (_W(softmax=_one_hot("first")), _W(softmax=_one_hot("last")), _W(softmax=_one_hot("all"))),
    ),
    Entry(
        "forgot_scaling",
        "forgot to divide the scores by sqrt(d_k)",
        "your answer matches unscaled scores: scaled dot-product attention divides every q.k by "
        "sqrt(d_k) before the softmax.",
        "without scaling, the dot product's spread grows with d_k, softmax saturates to nearly "
        "one-hot and the losing keys get almost no gradient; the scaling matters.",
        (_W(scores=_unscaled),),
    ),
    Entry(
        "scaled_when_not_asked",
        "divided by sqrt(d_k) when the question said not to scale",
        "your answer is divided by sqrt(d_k), but this question asks for the plain dot product "
        "(no scaling): add up the products of matching components and stop there.",
        wrong=(_W(scores=_scaled_anyway),),
    ),
    Entry(
        "divided_by_dk",
        "divided the scores by d_k instead of sqrt(d_k)",
        "your answer divides the scores by d_k: the scaling is 1/sqrt(d_k), which keeps the "
        "scores' variance near 1; dividing by d_k over-shrinks them and flattens the softmax.",
        "dividing by d_k over-shrinks the scores (their variance falls to 1/d_k), flattening "
        "softmax towards equal weights; sqrt(d_k) is chosen because it restores unit variance.",
        (_W(scores=_by_dk),),
    ),
    Entry(
        "divided_by_n_tokens",
        "divided the scores by the number of tokens instead of sqrt(d_k)",
        "your answer divides the scores by the number of tokens: the scaling depends on the "
        "length of the vectors (d_k), not on how many tokens there are; divide by sqrt(d_k).",
        wrong=(_W(scores=_by_tokens),),
    ),
    Entry(
        "query_dot_values",
        "scored the query against the values (Q.V) instead of the keys",
        "your scores compare the query with the value vectors: scores come from q.k with the "
        "keys; the values are only blended afterwards.",
        wrong=(_W(scores=_query_dot_values),),
    ),
    Entry(
        "weights_not_scores",
        "applied softmax where raw scores were asked",
        "your answer already went through softmax: this part asks for the raw scores (the dot "
        "products, scaled only if the question says so).",
        wrong=(_W(scores=_softmax_of_scores),),
        kinds=frozenset({"scores"}),
    ),
    Entry(
        "softmax_wrong_axis",
        "took the softmax along the wrong axis",
        "your softmax runs along the wrong axis: each query's weights over the keys must sum "
        "to 1 (across a row, axis=-1), not each key's weights over the queries.",
        wrong=(_W(softmax=_other_axis),),
    ),
    Entry(
        "softmax_whole_matrix",
        "took one softmax over the whole score matrix",
        "your softmax runs over the whole score matrix at once, so all the weights together sum "
        "to 1: each query needs its own softmax over the keys (one row at a time, axis=-1).",
        wrong=(_W(softmax=_whole_array), _W(softmax=_row_shift_whole_sum)),
    ),
    Entry(
        "global_max_softmax",
        "subtracted one global maximum instead of each row's maximum",
        "your softmax subtracts one maximum for the whole array: in a row whose scores are far "
        "below the overall maximum every exp underflows to 0, and 0/0 is nan. Subtract each "
        "row's own maximum (np.max(x, axis=axis, keepdims=True)).",
        wrong=(_W(softmax=_global_max),),
    ),
    Entry(
        "uniform_average",
        "averaged the values equally, ignoring the scores",
        "your answer gives every key the same weight (a plain average of the values): attention "
        "weights each value by how well its key matches the query.",
        wrong=(_W(softmax=_uniform),),
        kinds=frozenset({"weights", "output", "attention"}),
    ),
    Entry(
        "clipped_softmax",
        "clipped large scores before exp, so they all get the same weight",
        "your softmax clips (or caps) large scores before exp, so every large score becomes the "
        "same number and they all get equal weight: subtract the maximum score instead, which "
        "never overflows and does not change the result.",
        wrong=tuple(_W(softmax=_clipped(c)) for c in (709.0, 700.0, 500.0, 100.0, 88.0, 50.0)),
    ),
    Entry(
        "naive_softmax_overflow",
        "naive softmax overflows to nan on large scores",
        "your softmax overflows on large scores (exp of a large number is inf, and inf/inf is "
        "nan): subtract the maximum score first; softmax does not change when every score is "
        "shifted by the same amount.",
        wrong=(_W(softmax=_naive),),
    ),
    Entry(
        "mask_after_softmax",
        "applied the mask after the softmax",
        "you applied the mask after the softmax, so the allowed weights no longer sum to 1: set "
        "masked scores to -inf before the softmax; then they get exactly 0 weight and the others "
        "keep their ratios.",
        wrong=(_W(masked=_identity, after=lambda w, m: w * m),),
    ),
    Entry(
        "mask_zero_not_inf",
        "masked scores with 0 instead of -inf",
        "you set masked scores to 0, but exp(0) = 1, so masked tokens still get weight: set them "
        "to -inf (np.where(mask, scores, -np.inf)) before the softmax.",
        wrong=(_W(masked=_zero_masked),),
    ),
    Entry(
        "mask_inverted",
        "read the mask backwards (True taken as 'blocked')",
        "you read the mask backwards: True means 'may attend' and False means 'masked'.",
        wrong=(_W(masked=_inverted), _W(causal_mask=lambda n: ~_tril(n))),
    ),
    Entry(
        "mask_wrong_triangle",
        "causal mask on the wrong triangle (lets tokens see the future)",
        "your mask lets tokens see later tokens: in a causal mask token i may attend to tokens "
        "0..i (the lower triangle, diagonal included), never to the future.",
        wrong=(_W(causal_mask=lambda n: _tril(n).T),),
    ),
    Entry(
        "mask_no_diagonal",
        "causal mask hides each token from itself",
        "your mask stops each token from attending to itself: the causal mask keeps the "
        "diagonal (token i may attend to tokens 0..i, including i).",
        wrong=(_W(causal_mask=lambda n: _tril(n, k=-1)),),
    ),
    Entry(
        "keys_as_values",
        "blended the keys instead of the values",
        "your output blends the key vectors: keys are only for matching; the output is the "
        "weighted sum of the value vectors.",
        wrong=(_W(blend=_keys_blended),),
    ),
    Entry(
        "sum_normalised",
        "divided by the sum instead of using softmax",
        "your weights are the scores divided by their sum: attention uses softmax (exponentiate, "
        "then divide by the sum of the exponentials), which keeps every weight positive even for "
        "negative scores.",
        "dividing raw scores by their sum breaks with negative scores (negative 'shares' of "
        "attention) and when they sum to 0; exponentiating first makes every value positive.",
        (_W(softmax=_by_sum), _W(masked=_zero_masked, softmax=_by_sum)),
    ),
    Entry(
        "scores_not_weights",
        "gave the raw scores where weights were asked",
        "you used the raw scores as the weights: turn scores into weights with softmax, so "
        "they are positive and sum to 1, before blending the values.",
        wrong=(_W(softmax=_identity),),
        kinds=frozenset({"weights", "output", "attention"}),
    ),
    Entry(
        "weights_not_normalised",
        "weights that do not sum to 1",
        "your weights do not add up to 1: after exponentiating, divide by the sum of the "
        "exponentials (for each query separately).",
        "it is the softmax's division by the sum of exponentials that makes the weights add up "
        "to 1, whatever the scaling.",
        (_W(softmax=_exps_shifted), _W(softmax=_exps)),
    ),
    Entry(
        "used_library",
        "called a library instead of writing the code",
        "this exercise asks you to write the computation yourself with numpy (np.exp, np.max, "
        "np.sum, @, np.where, np.tril ...), not to call a finished implementation.",
    ),
    Entry(
        "importance_is_programmed",
        "thinks attention weights are hand-written rules",
        "nobody writes rules like 'bags matter less': the weight comes from the numbers in the "
        "query and key vectors (chosen by hand in the toy example, learned from data in a real "
        "network).",
    ),
    Entry(
        "order_aware_self_attention",
        "thinks self-attention alone knows word order or distance",
        "self-attention's scores depend only on the word vectors, not on their positions: "
        "shuffle the words and the scores just shuffle along, and a far word is not penalised. "
        "Transformers add positional encodings to know word order.",
    ),
    Entry(
        "values_change_weights",
        "thinks value vectors change the attention weights",
        "a weight is the softmax of the query's scores against the keys: it depends only on the "
        "query and the keys. Values only decide what gets blended once the weights are fixed.",
    ),
    Entry(
        "one_fixed_vector",
        "thinks one fixed-size summary vector, made big enough, can hold any sentence",
        "a fixed-size vector has the same room for a five-word and a fifty-word sentence, so the "
        "longer the sentence, the more of its early details get squeezed out (the bottleneck). "
        "Attention removes the squeeze: the decoder keeps every encoder state and looks back at "
        "all of them, with fresh weights, at every step.",
    ),
    Entry(
        "cross_attention_sources",
        "mixes up where cross-attention's queries, keys and values come from",
        "in cross-attention the queries come from the sequence being generated (the Hindi being "
        "written) and the keys and values from the other sequence (the English source); the dot "
        "products, the softmax and the blend are the same as in self-attention.",
    ),
    Entry(
        "heads_share_projection",
        "gave every head the same W_Q",
        "your answer uses another head's W_Q: every head has its own W_Q, W_K and W_V, which is "
        "what lets two heads look for different things in the same sentence.",
        "heads run side by side on the same words, but each with its own projections; with one "
        "shared W_Q the heads' queries would ask the same question.",
        layer_wrong=(WrongLayer(queries=_first_head_queries),),
    ),
    Entry(
        "projection_after_softmax",
        "scored the raw word vectors and projected after the softmax",
        "your answer scores the word vectors themselves against each other, as if the "
        "projections came after the softmax: W_Q and W_K make the queries and the keys first, "
        "and only those are compared.",
        "the projections make the queries and keys before any score is taken; projecting after "
        "the softmax cannot change which words match.",
        layer_wrong=(WrongLayer(scores=_unprojected_scores),),
    ),
    Entry(
        "positions_after_attention",
        "added the positions to the weights or output instead of the inputs",
        "your answer is what attention gives when the positions are left out of its inputs and "
        "added afterwards (or not at all): the position vectors join the word vectors X before "
        "the projections, so that the scores can depend on where each word stands.",
        "positional encodings are added to the inputs of the layer (the word vectors), not to "
        "the weights or to the output; added later, they cannot change who looks at whom.",
        layer_wrong=(
            WrongLayer(inputs=_without_positions, output=_positions_on_output),
            WrongLayer(inputs=_without_positions),
        ),
    ),
    Entry(
        "one_matrix_no_transpose",
        "merged W_Q and W_K into one matrix without transposing W_K",
        "your scores use the product of W_Q and W_K as one matrix between the word vectors: a "
        "key enters the dot product transposed, so the matrix that joins them is not plain "
        "W_Q times W_K. Make the queries and the keys first, then compare them.",
        "q.k for q = x W_Q and k = y W_K is x W_Q (y W_K) transposed: the key's matrix enters "
        "transposed, so merging the two needs care.",
        layer_wrong=(WrongLayer(scores=_one_matrix_scores),),
    ),
]

#: id -> Entry, in matching order.
REGISTRY: dict[str, Entry] = {entry.id: entry for entry in _ENTRIES}

_DIAGNOSIS = re.compile(r"^\[([a-z0-9_]+)\] ")


def get(misconception_id: str) -> Entry:
    """The entry of ``misconception_id``; KeyError names the registry when it is unknown."""
    try:
        return REGISTRY[misconception_id]
    except KeyError:
        raise KeyError(
            f"unknown misconception id {misconception_id!r}; add an Entry to "
            "attention_lab/misconceptions.py"
        ) from None


def titles() -> dict[str, str]:
    """id -> short title, for the teacher's report."""
    return {entry.id: entry.title for entry in _ENTRIES}


def entries_for(kind: str) -> list[tuple[str, WrongComputation]]:
    """(id, wrong computation) for every entry that applies to an answer of ``kind``, in order."""
    return [(entry.id, w) for entry in _ENTRIES for w in entry.computations(kind)]


def layer_entries_for(kind: str) -> list[tuple[str, WrongLayer]]:
    """(id, wrong layer computation) for every entry that changes a layer answer of ``kind``.

    ``kind`` is one of ``"queries"``, ``"weights"``, ``"output"`` (one projected head).
    """
    return [(entry.id, w) for entry in _ENTRIES for w in entry.layer_wrong if w.reaches(kind)]


def format_diagnosis(misconception_id: str, name: str, message: str = "", detail: str = "") -> str:
    """The feedback line naming a misconception: ``"[id] name: message detail"``.

    ``message`` defaults to the entry's message; :func:`parse_diagnosis` reads it back.
    """
    text = message or get(misconception_id).message
    return f"[{misconception_id}] {name}: {text} {detail}".rstrip()


class Parsed(NamedTuple):
    """A diagnosis read back from feedback: the misconception id and the rest of the line."""

    id: str
    message: str


def parse_diagnosis(text: str) -> Parsed | None:
    """Read ``"[id] ..."`` (as :func:`format_diagnosis` writes it); None if it names no id."""
    match = _DIAGNOSIS.match(text or "")
    if not match:
        return None
    return Parsed(match[1], text[match.end() :].strip())
