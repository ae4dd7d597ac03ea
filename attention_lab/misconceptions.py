"""The misconception registry: one entry per mistake the course's feedback can name.

An entry holds everything about one misconception: its id (what feedback shows in square
brackets and the class report counts), a short title for the teacher, the message a student gets
when a computed answer shows it, the teaching idea shown when a multiple-choice option or a
true/false answer reveals it, and the wrong computation(s) that produce it, written as stage
replacements of the attention computation (:class:`attention_lab._steps.WrongComputation`), or,
for a mistake about projections, heads or positions (lesson 6), of one projected head
(:class:`attention_lab._layer_steps.WrongLayer`, in ``layer_wrong``).

The checks in :mod:`attention_lab.checks` build their candidate wrong answers from these entries
and raise :class:`attention_lab.checks.Misconception` with an entry's id; the grader records that
id as data in the graded cell (:mod:`attention_grader.common.diagnosis`), where the teacher's report
reads it. A new misconception is one new entry here (and a test).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_lab._layer_steps import LayerCase, WrongLayer
from attention_lab._steps import Case, WrongComputation, one_hot, raw_scores, softmax

__all__ = [
    "REGISTRY",
    "Entry",
    "Case",
    "WrongComputation",
    "entries_for",
    "layer_entries_for",
    "diagnosis_text",
    "format_diagnosis",
    "get",
    "titles",
]


@dataclass(frozen=True)
class Entry:
    """One misconception, with its feedback in three levels.

    A student who shows it reads, in this order: the misconception named in plain words
    (``message``, or ``idea`` for a choice), a hint that points at the idea (``hint``), and
    where the course teaches it (``lesson``). None of them gives the fix as code or the right
    option's text (``tests/test_feedback_texts.py`` scans every one).

    Attributes
    ----------
    id : str
        lower_snake_case; shown in brackets in feedback, e.g. ``[forgot_scaling]``.
    title : str
        A few words for the teacher's report.
    message : str
        Level 1 for a computed answer: what the wrong answer shows, in plain words (never a
        number, never the fix).
    idea : str
        Level 1 for a multiple-choice option or true/false answer that reveals it: the mistaken
        idea, named without pointing at the right option.
    wrong : tuple of WrongComputation
        The computations that produce it (empty for a misconception about an idea).
    kinds : frozenset of str or None
        The answer kinds it is looked for in (see ``WrongComputation.reaches``); None = every
        kind its computations reach.
    hint : str
        Level 2: a question or pointer that leads to the idea (not to the fix).
    lesson : str
        Level 3: where the course teaches it, e.g. ``"lesson 04"``.
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
    hint: str = ""
    lesson: str = ""
    layer_wrong: tuple[WrongLayer, ...] = ()

    def computations(self, kind: str) -> tuple[WrongComputation, ...]:
        """Return the wrong computations that apply to an answer of ``kind``."""
        if self.kinds is not None and kind not in self.kinds:
            return ()
        return tuple(w for w in self.wrong if w.reaches(kind))

    def feedback(self, first: str = "") -> str:
        """Return the three levels as one text: ``first`` (default: the message), hint, lesson."""
        text = first or self.message
        if self.hint:
            text += f" Hint: {self.hint}"
        if self.lesson:
            text += f" (See {self.lesson}.)"
        return text

    @property
    def teaching(self) -> str:
        """What a wrong choice shows: the idea (else the message), then hint and lesson."""
        return self.feedback(self.idea or self.message)


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


def _by_sqrt_tokens(case: Case):
    return raw_scores(case) / np.sqrt(case.n_k)


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


def _capped(limit):
    """Return a softmax that caps only large scores at ``limit`` before exp (a one-sided clip).

    It ties the large ones, and a row far below 0 still underflows to 0/0.
    """

    def capped(x, axis):
        exps = np.exp(np.minimum(np.asarray(x, dtype=float), limit))
        return exps / np.sum(exps, axis=axis, keepdims=True)

    return capped


#: Limits students pick when they cap scores (709: exp's float64 limit; 88: float32's).
_CAPS = (709.0, 700.0, 500.0, 300.0, 100.0, 88.0, 50.0, 20.0, 10.0)


def _minus_inf_to_zero(x, axis):
    """-inf (a masked score) turned into 0 before the softmax, "to avoid nan"."""
    x = np.asarray(x, dtype=float)
    return softmax(np.where(np.isneginf(x), 0.0, x), axis=axis)


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
# The entries. Order matters: when one wrong answer matches several computations equally well,
# the first entry wins, so specific mistakes come before general ones. Dividing by the sum comes
# before hard attention: on scores (0, s, s) dividing by the sum and splitting the tie between
# the two best keys give the same weights (0, 1/2, 1/2), so no answer can tell them apart there;
# the tie split is named wherever the numbers differ (scores (1, 2, 2), a matrix of queries).
# ---------------------------------------------------------------------------------------------

_ENTRIES = [
    Entry(
        "forgot_scaling",
        "forgot to divide the scores by sqrt(d_k)",
        "your answer matches scores that were never scaled, but this question asks for scaled "
        "dot-product attention.",
        "that treats the scaling as unimportant.",
        (_W(scores=_unscaled),),
        hint="think back to lesson 02's experiment with long keys and no division: what did "
        "the weights look like?",
        lesson="lesson 02",
    ),
    Entry(
        "scaled_when_not_asked",
        "divided by sqrt(d_k) when the question said not to scale",
        "your answer was divided by sqrt(d_k), but this question works with plain dot products "
        "as the scores, with no scaling anywhere.",
        wrong=(_W(scores=_scaled_anyway),),
        hint="reread what the question says about scaling; which of your steps changed the scores?",
        lesson="lesson 02",
    ),
    Entry(
        "divided_by_dk",
        "divided the scores by d_k instead of sqrt(d_k)",
        "your answer divides the scores by d_k itself, not by its square root.",
        "that divides by d_k, which shrinks the scores too much: softmax then flattens towards "
        "equal weights.",
        (_W(scores=_by_dk),),
        hint="which divisor keeps the typical size of q.k the same for every d_k, as lesson 02 "
        "measured it?",
        lesson="lesson 02",
    ),
    Entry(
        "divided_by_n_tokens",
        "divided the scores by the number of tokens (or its square root)",
        "your answer divides the scores by the number of tokens (or by its square root), as if "
        "the scaling averaged over the sentence.",
        "that scales by the length of the sentence, as if the scores were averaged over words.",
        (_W(scores=_by_tokens), _W(scores=_by_sqrt_tokens)),
        hint="one score compares one query with one key: does it change when the sentence "
        "gets longer, or when the vectors do?",
        lesson="lesson 02",
    ),
    Entry(
        "query_dot_values",
        "scored the query against the values (Q.V) instead of the keys",
        "your scores compare the query with the value vectors.",
        "that compares the query with the values, as if what a token hands back decided how "
        "well it matches.",
        wrong=(_W(scores=_query_dot_values),),
        hint="in the library picture, is the search compared with the books themselves or with "
        "their labels?",
        lesson="lesson 02",
    ),
    Entry(
        "weights_not_scores",
        "applied softmax where raw scores were asked",
        "your answer already went through softmax, but this part asks for the scores.",
        wrong=(_W(scores=_softmax_of_scores),),
        kinds=frozenset({"scores"}),
        hint="which step of attention comes before the softmax?",
        lesson="lesson 03",
    ),
    Entry(
        "softmax_wrong_axis",
        "took the softmax along the wrong axis",
        "your weights add up to 1 down each column (over the queries), not across each row.",
        "that shares out each word's attention over the queries that look at it, not each "
        "query's attention over the words.",
        wrong=(_W(softmax=_other_axis),),
        hint="one query shares out its attention among all the keys: which of its weights must "
        "add up to 1?",
        lesson="lesson 03",
    ),
    Entry(
        "softmax_whole_matrix",
        "took one softmax over the whole score matrix",
        "your weights add up to 1 over the whole matrix at once, so the queries share one "
        "budget of attention.",
        "that gives the whole matrix one budget of attention instead of one per query.",
        wrong=(_W(softmax=_whole_array), _W(softmax=_row_shift_whole_sum)),
        hint="does one query's attention depend on how much another query attends?",
        lesson="lesson 03",
    ),
    Entry(
        "global_max_softmax",
        "subtracted one global maximum instead of each row's maximum",
        "your softmax shifts every row by the same number, the largest score of the whole "
        "array, so a row far below it underflows to 0/0.",
        wrong=(_W(softmax=_global_max),),
        hint="the shift is there so that each row's largest exponential is exactly 1; which "
        "largest score is that for a row far below the others?",
        lesson="lesson 04",
    ),
    Entry(
        "uniform_average",
        "averaged the values equally, ignoring the scores",
        "your answer gives every key the same weight, a plain average of the values.",
        "that gives every word an equal share, whatever its score, as if matching did not matter.",
        wrong=(_W(softmax=_uniform),),
        kinds=frozenset({"weights", "output", "attention"}),
        hint="what are the scores for, if every key gets the same weight in the end?",
        lesson="lesson 02",
    ),
    Entry(
        "clipped_softmax",
        "capped or clipped large scores before exp, so they all get the same weight",
        "your softmax caps large scores (at one side or both) before exp, so every large score "
        "becomes the same number and they all get equal weight.",
        wrong=(
            *(_W(softmax=_clipped(c)) for c in _CAPS),
            *(_W(softmax=_capped(c)) for c in _CAPS),
        ),
        hint="softmax does not change when every score of a row moves by the same amount; "
        "which shift keeps every exponential at most 1 without changing any score's difference "
        "to the others?",
        lesson="lesson 04",
    ),
    Entry(
        "naive_softmax_overflow",
        "naive softmax overflows to nan on large scores",
        "your softmax overflows on large scores: exp of a large number is inf, and inf/inf is nan.",
        wrong=(_W(softmax=_naive),),
        hint="softmax does not change when every score of a row moves by the same amount; "
        "which amount keeps every exponential small?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_after_softmax",
        "applied the mask after the softmax",
        "you hid the masked weights after the softmax, so the weights left over no longer add "
        "up to 1.",
        "that hides the masked token after the softmax: the weights left no longer add up to 1.",
        wrong=(_W(masked=_identity, after=lambda w, m: w * m),),
        hint="at which step must a masked token disappear so that the allowed ones still share "
        "the whole budget?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_zero_not_inf",
        "turned masked (-inf) scores into 0 before the softmax",
        "a masked score became 0 before the softmax (set to 0, or turned from -inf into 0), "
        "but exp(0) = 1, so the masked token still gets weight.",
        "that gives the masked token a score of 0, and exp(0) = 1: it still gets weight.",
        wrong=(_W(masked=_zero_masked), _W(softmax=_minus_inf_to_zero)),
        hint="which score has an exponential of exactly 0?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_inverted",
        "read the mask backwards (True taken as 'blocked')",
        "you read the mask backwards: the tokens you hid are the ones allowed, and the ones "
        "you kept are the masked ones.",
        "that reads the mask backwards: what it marks is what a token may look at.",
        wrong=(_W(masked=_inverted), _W(causal_mask=lambda n: ~_tril(n))),
        hint="in this course's masks, what does True mean?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_wrong_triangle",
        "causal mask on the wrong triangle (lets tokens see the future)",
        "your mask lets tokens see later tokens, which a decoder writing left to right does "
        "not have yet.",
        "that lets a token look at tokens after it, which do not exist yet when it is written.",
        wrong=(_W(causal_mask=lambda n: _tril(n).T),),
        hint="when token i is written, which tokens exist already?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_no_diagonal",
        "causal mask hides each token from itself",
        "your mask stops each token from attending to itself.",
        "that hides each token from itself, as if a token could only look at earlier ones.",
        wrong=(_W(causal_mask=lambda n: _tril(n, k=-1)),),
        hint="does a token already exist at the moment it attends?",
        lesson="lesson 04",
    ),
    Entry(
        "keys_as_values",
        "blended the keys instead of the values",
        "your output blends the key vectors.",
        "that hands back the keys, as if the labels a query is matched against were also what "
        "it receives.",
        wrong=(_W(blend=_keys_blended),),
        hint="in the library picture, do you take home the label or the book?",
        lesson="lesson 02",
    ),
    Entry(
        "sum_normalised",
        "divided by the sum instead of using softmax",
        "your weights are the scores divided by their sum, with no exponentials.",
        "that divides raw scores by their sum, as if any set of scores made usable shares.",
        (_W(softmax=_by_sum), _W(masked=_zero_masked, softmax=_by_sum)),
        hint="try it on three scores of your own, some of them below zero: are the results "
        "usable as shares of attention?",
        lesson="lesson 02",
    ),
    Entry(
        "hard_attention",
        "picked one value (v[argmax]) instead of blending all values",
        "your answer puts all the weight on the best-matching key (or shares it only among keys "
        "tied for best), as if attention picked the top match: attention gives every key it may "
        "look at some weight, however small.",
        "that is hard attention: only the best match (or the matches tied for best) counts, and "
        "the others get nothing.",
        (
            _W(softmax=_one_hot("first")),
            _W(softmax=_one_hot("last")),
            _W(softmax=_one_hot("all")),
            _W(softmax=_one_hot("split")),
        ),
        hint="what weight does softmax give a key whose score is only a little below the best?",
        lesson="lesson 05",
    ),
    Entry(
        "scores_not_weights",
        "gave the raw scores where weights were asked",
        "you used the raw scores as the weights.",
        "that uses the raw scores as weights: they can be negative and need not add up to 1.",
        wrong=(_W(softmax=_identity),),
        kinds=frozenset({"weights", "output", "attention"}),
        hint="can a weight be negative? What must a query's weights add up to?",
        lesson="lesson 02",
    ),
    Entry(
        "weights_not_normalised",
        "weights that do not sum to 1",
        "your weights do not add up to 1 for each query.",
        "that leaves the weights without a fixed total, as if exponentials alone were weights.",
        (_W(softmax=_exps_shifted), _W(softmax=_exps)),
        hint="which step of softmax makes the weights share one whole?",
        lesson="lesson 02",
    ),
    Entry(
        "used_library",
        "called a library instead of writing the code",
        "this exercise asks you to write the computation yourself with numpy, not to call a "
        "finished implementation.",
        hint="the lessons built every step from numpy's basic operations; reuse what you wrote "
        "there.",
    ),
    Entry(
        "importance_is_programmed",
        "thinks attention weights are hand-written rules",
        "nobody writes rules about which words matter: the weights come out of the numbers in "
        "the vectors.",
        "that assumes someone wrote rules about which words matter.",
        hint="in the toy examples, who chose the numbers, and what chooses them in a trained "
        "network?",
        lesson="lesson 05",
    ),
    Entry(
        "order_aware_self_attention",
        "thinks self-attention alone knows word order or distance",
        "self-attention's scores were taken to depend on where the words stand.",
        "that assumes self-attention, by itself, knows the order of the words or their distance.",
        hint="what did lesson 05's shuffle experiment show?",
        lesson="lesson 05",
    ),
    Entry(
        "values_change_weights",
        "thinks value vectors change the attention weights",
        "the values were taken to change the weights.",
        "that lets the values change how much weight a token gets.",
        hint="which of a token's three vectors does the formula of its weight use?",
        lesson="lesson 02",
    ),
    Entry(
        "one_fixed_vector",
        "thinks one fixed-size summary vector, made big enough, can hold any sentence",
        "one fixed-size summary was taken to be enough for any sentence.",
        "that keeps the squeeze: one summary vector of fixed size for sentences of any length.",
        hint="a five-word and a fifty-word sentence get the same room: where does the squeeze "
        "go away?",
        lesson="lesson 01",
    ),
    Entry(
        "cross_attention_sources",
        "mixes up where cross-attention's queries, keys and values come from",
        "the roles of the two sentences in cross-attention were swapped.",
        "that swaps the roles of the two sentences in cross-attention.",
        hint="who is asking (the sentence being written, or the one being read)?",
        lesson="lesson 04",
    ),
    # Ideas the concept inventory asks about: distractors a student could hold.
    Entry(
        "attention_is_sequential",
        "thinks self-attention reads the tokens one after another, like an RNN",
        "self-attention was taken to step through the tokens one at a time.",
        "that has self-attention step through the words one by one, as a recurrent network does.",
        hint="does any row of the weight matrix need another row to be finished first?",
        lesson="lesson 03",
    ),
    Entry(
        "attention_cost_linear",
        "thinks self-attention's cost grows only in step with the sentence length",
        "self-attention's cost was taken to grow only in step with the length.",
        "that has self-attention's work grow only in step with the length of the sentence.",
        hint="how many scores does a sentence of n tokens need?",
        lesson="lesson 03",
    ),
    Entry(
        "temperature_sharpens",
        "thinks dividing the scores by a larger number makes softmax sharper",
        "dividing the scores by a larger number was taken to sharpen the weights.",
        "that has the divisor work backwards: a larger one taken to sharpen, a smaller one to "
        "flatten.",
        hint="what happens to the gaps between scores when all of them are divided by a large "
        "number?",
        lesson="lesson 02",
    ),
    Entry(
        "qkv_are_the_token",
        "thinks a token's query, key and value are the token's own vector, unchanged",
        "a token's query, key and value were taken to be the token's own vector.",
        "that makes the query, key and value of a token one and the same vector, which "
        "training could not adjust.",
        hint="if all three were the same vector, what could training change to make a word "
        "look for something other than itself?",
        lesson="lesson 06",
    ),
    Entry(
        "heads_split_tokens",
        "thinks each head handles a different part of the sentence",
        "the heads were taken to share out the words of the sentence between them.",
        "that gives each head its own slice of the sentence, as if heads shared out the words.",
        hint="which tokens can one head's queries look at?",
        lesson="lesson 06",
    ),
    Entry(
        "heads_share_projection",
        "thinks the heads of a layer share one W_Q (and so compute the same pattern)",
        "your answer is what a head gives with another head's query projection.",
        "that makes the heads copies of each other, computing one pattern several times.",
        layer_wrong=(WrongLayer(queries=_first_head_queries),),
        hint="what would several heads add if each asked its question with the same W_Q?",
        lesson="lesson 06",
    ),
    Entry(
        "projection_after_softmax",
        "scored the raw word vectors and projected after the softmax",
        "your scores compare the word vectors themselves, as if the projections came after the "
        "softmax.",
        "that projects after the softmax, where it can no longer change which words match.",
        layer_wrong=(WrongLayer(scores=_unprojected_scores),),
        hint="which vectors does a head compare when it takes a score: X, or what W_Q and W_K "
        "made of X?",
        lesson="lesson 06",
    ),
    Entry(
        "positions_after_attention",
        "added the positions to the weights or output instead of the inputs",
        "your answer is what attention gives when the positions are left out of its inputs "
        "(added afterwards, or not at all).",
        "that puts word order into the attention weights (or the outputs) after they are made.",
        layer_wrong=(
            WrongLayer(inputs=_without_positions, output=_positions_on_output),
            WrongLayer(inputs=_without_positions),
        ),
        hint="where could a position change every score a word takes part in?",
        lesson="lesson 06",
    ),
    Entry(
        "one_matrix_no_transpose",
        "merged W_Q and W_K into one matrix without transposing W_K",
        "your scores use the product of W_Q and W_K as one matrix between the word vectors.",
        "that joins W_Q and W_K as a plain product, as if the key entered the dot product "
        "untransposed.",
        layer_wrong=(WrongLayer(scores=_one_matrix_scores),),
        hint="write q.k with q = x W_Q and k = y W_K: how does the key's matrix enter?",
        lesson="lesson 06",
    ),
    # Lesson 07, the Transformer block and generation. Their wrong computations are in
    # attention_lab.transformer.mistakes.BLOCK_WRONG, keyed by these ids
    # (tests/attention_lab/checks/test_block_checks.py keeps the two in step).
    Entry(
        "norm_wrong_axis",
        "layer-normalised over the positions instead of over each position's own numbers",
        "your answer normalises each feature across the positions, not each position's vector "
        "across its own numbers.",
        "that takes the mean and variance across the words, as if layer norm mixed positions.",
        hint="whose mean and variance does layer norm use: one word's d_model numbers, or one "
        "number across all the words?",
        lesson="lesson 07",
    ),
    Entry(
        "residual_after_norm",
        "added the residual after the norm instead of normalising the sum",
        "your answer normalises the sub-layer's output alone and adds the input afterwards.",
        "that adds the input back after the layer norm, so the sum itself is never normalised.",
        hint="in the original block, what is inside the layer norm: the sub-layer's output "
        "alone, or something added to it first?",
        lesson="lesson 07",
    ),
    Entry(
        "vocab_softmax_wrong_axis",
        "took the softmax of the logits across the positions instead of across the vocabulary",
        "your probabilities add up to 1 down each column (across positions), not along each row "
        "(across the vocabulary).",
        "that shares one token's probability out between the positions instead of between the "
        "tokens.",
        hint="at one position, which numbers must add up to 1: the chances of every possible "
        "next token, or one token's chances at every position?",
        lesson="lesson 07",
    ),
    Entry(
        "mask_left_out_at_generation",
        "thinks the causal mask is only needed in training, not while generating",
        "your weights let earlier positions look at later ones: the causal mask was left out.",
        "that drops the causal mask while the model writes, as if it were needed only in training.",
        hint="the model was trained with every position seeing only the past: what would its "
        "earlier positions see now if nothing hid the later ones?",
        lesson="lesson 07",
    ),
    Entry(
        "temperature_inverted",
        "multiplied the logits by the temperature instead of dividing by it",
        "your probabilities come from the logits multiplied by the temperature, not divided by it.",
        "that multiplies by the temperature, so a high temperature sharpens instead of flattening.",
        hint="the temperature is the inverse of lesson 2's sharpening factor: how does a "
        "larger temperature change the gaps between the logits?",
        lesson="lesson 07",
    ),
    Entry(
        "heads_full_width",
        "gave every head full-size projections (d_k = d_model) when counting parameters",
        "your count gives every head projections as wide as the model, h times too many.",
        "that gives each head d_model numbers instead of d_model / h.",
        hint="how many numbers does each of the h heads get when they share out d_model?",
        lesson="lesson 07",
    ),
]

#: id -> Entry, in matching order.
REGISTRY: dict[str, Entry] = {entry.id: entry for entry in _ENTRIES}


def get(id: str) -> Entry:
    """Return the entry of ``id``; KeyError names the registry when it is unknown."""
    try:
        return REGISTRY[id]
    except KeyError:
        raise KeyError(
            f"unknown misconception id {id!r}; add an Entry to attention_lab/misconceptions.py"
        ) from None


def titles() -> dict[str, str]:
    """Return each id's short title (id -> title), for the teacher's report."""
    return {entry.id: entry.title for entry in _ENTRIES}


def entries_for(kind: str) -> list[tuple[str, WrongComputation]]:
    """(id, wrong computation) for every entry that applies to an answer of ``kind``, in order."""
    return [(entry.id, w) for entry in _ENTRIES for w in entry.computations(kind)]


def layer_entries_for(kind: str) -> list[tuple[str, WrongLayer]]:
    """(id, wrong layer computation) for every entry that changes a layer answer of ``kind``.

    ``kind`` is one of ``"queries"``, ``"weights"``, ``"output"`` (one projected head).
    """
    return [(entry.id, w) for entry in _ENTRIES for w in entry.layer_wrong if w.reaches(kind)]


def diagnosis_text(id: str, name: str, message: str = "", detail: str = "") -> str:
    """Return what a student reads about a misconception: ``"name: message detail"``.

    ``message`` defaults to the entry's three levels (:meth:`Entry.feedback`).
    """
    text = message or get(id).feedback()
    return f"{name}: {text} {detail}".rstrip()


def format_diagnosis(id: str, name: str, message: str = "", detail: str = "") -> str:
    """Return the feedback line naming a misconception: ``"[id] name: message detail"``.

    The id in brackets is for the student's eyes. The grader carries the id as data (the
    check's exception has it, :class:`attention_lab.checks.Misconception`), never reads it back
    from this text.
    """
    return f"[{id}] {diagnosis_text(id, name, message, detail)}"
