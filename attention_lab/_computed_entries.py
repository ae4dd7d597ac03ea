"""The misconception registry's entries that a wrong computation shows (data: one entry each).

Each :class:`attention_lab._entry.Entry` here names its wrong computation(s) as stage
replacements of the attention computation (:class:`attention_lab._steps.WrongComputation`) or
of one projected head (:class:`attention_lab._layer_steps.WrongLayer`); the wrong stages they
share live in :mod:`attention_lab._wrong_stages`. :mod:`attention_lab.misconceptions` puts them
first in the registry, in this order.
"""

from __future__ import annotations

from attention_lab import _wrong_stages as stages
from attention_lab._entry import Entry
from attention_lab._layer_steps import WrongLayer
from attention_lab._steps import WrongComputation

__all__ = ["COMPUTED_ENTRIES"]

_W = WrongComputation

# ---------------------------------------------------------------------------------------------
# The entries. Order matters: when one wrong answer matches several computations equally well,
# the first entry wins, so specific mistakes come before general ones. Dividing by the sum comes
# before hard attention: on scores (0, s, s) dividing by the sum and splitting the tie between
# the two best keys give the same weights (0, 1/2, 1/2), so no answer can tell them apart there;
# the tie split is named wherever the numbers differ (scores (1, 2, 2), a matrix of queries).
# ---------------------------------------------------------------------------------------------

COMPUTED_ENTRIES: tuple[Entry, ...] = (
    Entry(
        "forgot_scaling",
        "forgot to divide the scores by sqrt(d_k)",
        "your answer matches scores that were never scaled, but this question asks for scaled "
        "dot-product attention.",
        "that treats the scaling as unimportant.",
        (_W(scores=stages.unscaled),),
        hint="think back to lesson 02's experiment with keys of many numbers (large d_k) and no "
        "division: what did the weights look like?",
        lesson="lesson 02",
    ),
    Entry(
        "scaled_when_not_asked",
        "divided by sqrt(d_k) when the question said not to scale",
        "your answer was divided by sqrt(d_k), but this question works with plain dot products "
        "as the scores, with no scaling anywhere.",
        wrong=(_W(scores=stages.scaled_anyway),),
        hint="reread what the question says about scaling; which of your steps changed the scores?",
        lesson="lesson 02",
    ),
    Entry(
        "divided_by_dk",
        "divided the scores by d_k instead of sqrt(d_k)",
        "your answer divides the scores by d_k itself, not by its square root.",
        "that divides by d_k, which shrinks the scores too much: softmax then flattens towards "
        "equal weights.",
        (_W(scores=stages.by_dk),),
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
        (_W(scores=stages.by_tokens), _W(scores=stages.by_sqrt_tokens)),
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
        wrong=(_W(scores=stages.query_dot_values),),
        hint="in the library picture, is the search compared with the books themselves or with "
        "their labels?",
        lesson="lesson 02",
    ),
    Entry(
        "weights_not_scores",
        "applied softmax where raw scores were asked",
        "your answer already went through softmax, but this part asks for the scores.",
        wrong=(_W(scores=stages.softmax_of_scores),),
        kinds=frozenset({"scores"}),
        hint="which step of attention comes before the softmax?",
        lesson="lesson 02",
    ),
    Entry(
        "softmax_wrong_axis",
        "took the softmax along the wrong axis",
        "your weights add up to 1 down each column (over the queries), not across each row.",
        "that shares out each word's attention over the queries that look at it, not each "
        "query's attention over the words.",
        wrong=(_W(softmax=stages.other_axis),),
        hint="one query shares out its attention among all the keys: which of its weights must "
        "add up to 1?",
        lesson="lesson 03",
        layer_wrong=(WrongLayer(softmax=stages.columns),),
    ),
    Entry(
        "attention_symmetric",
        "thinks attention is symmetric (i gives j what j gives i)",
        "your weights are what the other words give this word (a column of the weight matrix), "
        "as if every word attended back to another exactly as much as it is attended to.",
        "that makes attention go both ways equally: if one word attends to another, the other "
        "attends back just as much.",
        wrong=(_W(softmax=stages.transposed),),
        kinds=frozenset({"weights", "output"}),
        hint="each row of weights is shared out on its own: does one word's row know what "
        "another word's row holds?",
        lesson="lesson 03",
        layer_wrong=(WrongLayer(softmax=stages.transposed_rows),),
    ),
    Entry(
        "softmax_whole_matrix",
        "took one softmax over the whole score matrix",
        "your weights add up to 1 over the whole matrix at once, so the queries share one "
        "budget of attention.",
        "that gives the whole matrix one budget of attention instead of one per query.",
        wrong=(_W(softmax=stages.whole_array), _W(softmax=stages.row_shift_whole_sum)),
        hint="does one query's attention depend on how much another query attends?",
        lesson="lesson 03",
    ),
    Entry(
        "global_max_softmax",
        "subtracted one global maximum instead of each row's maximum",
        "your softmax shifts every row by the same number, the largest score of the whole "
        "array, so a row far below it underflows to 0/0.",
        wrong=(_W(softmax=stages.global_max),),
        hint="the shift is there so that each row's largest exponential is exactly 1; which "
        "largest score is that for a row far below the others?",
        lesson="lesson 04",
    ),
    Entry(
        "uniform_average",
        "averaged the values equally, ignoring the scores",
        "your answer gives every key the same weight, a plain average of the values.",
        "that gives every word an equal share, whatever its score, as if matching did not matter.",
        wrong=(_W(softmax=stages.uniform),),
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
            *(_W(softmax=stages.clipped(c)) for c in stages.CAPS),
            *(_W(softmax=stages.capped(c)) for c in stages.CAPS),
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
        wrong=(_W(softmax=stages.naive),),
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
        wrong=(_W(masked=stages.identity, after=lambda w, m: w * m),),
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
        wrong=(_W(masked=stages.zero_masked), _W(softmax=stages.minus_inf_to_zero)),
        hint="what is e to the power 0? Is a token with that exponential hidden?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_inverted",
        "read the mask backwards (True taken as 'blocked')",
        "you read the mask backwards: the tokens you hid are the ones allowed, and the ones "
        "you kept are the masked ones.",
        "that reads the mask backwards: what it marks is what a token may look at.",
        wrong=(_W(masked=stages.inverted),),
        hint="in this course's masks, what does True mean?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_convention",
        "built a mask whose True means 'blocked' (another library's convention)",
        "your mask marks the tokens to hide, where this course's masks mark the tokens a query "
        "may look at.",
        "that takes True in a mask to mean the same thing in every library.",
        wrong=(_W(causal_mask=lambda n: ~stages.tril(n)),),
        hint="some libraries' masks mark what is blocked, others what is allowed: which does "
        "this course's code expect?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_wrong_triangle",
        "causal mask on the wrong triangle (lets tokens see the future)",
        "your mask lets tokens see later tokens, which a decoder writing left to right does "
        "not have yet.",
        "that lets a token look at tokens after it, which do not exist yet when it is written.",
        wrong=(_W(causal_mask=lambda n: stages.tril(n).T),),
        hint="when token i is written, which tokens exist already?",
        lesson="lesson 04",
    ),
    Entry(
        "mask_no_diagonal",
        "causal mask hides each token from itself",
        "your mask stops each token from attending to itself.",
        "that hides each token from itself, as if a token could only look at earlier ones.",
        wrong=(_W(causal_mask=lambda n: stages.tril(n, k=-1)),),
        hint="does a token already exist at the moment it attends?",
        lesson="lesson 04",
    ),
    Entry(
        "keys_as_values",
        "blended the keys instead of the values",
        "your output blends the key vectors.",
        "that hands back the keys, as if the labels a query is matched against were also what "
        "it receives.",
        wrong=(_W(blend=stages.keys_blended),),
        hint="in the library picture, do you take home the label or the book?",
        lesson="lesson 02",
    ),
    Entry(
        "sum_normalised",
        "divided by the sum instead of using softmax",
        "your weights are the scores divided by their sum, with no exponentials.",
        "that divides raw scores by their sum, as if any set of scores made usable shares.",
        (_W(softmax=stages.by_sum), _W(masked=stages.zero_masked, softmax=stages.by_sum)),
        hint="try it on three scores of your own, some of them below zero: are the results "
        "usable as shares of attention?",
        lesson="lesson 02",
    ),
    Entry(
        "hard_attention",
        "picked one value (v[argmax]) instead of blending all values",
        "your answer puts all the weight on the best-matching key (or shares it only among keys "
        "tied for best), as if attention picked the top match.",
        "that is hard attention: only the best match (or the matches tied for best) counts, and "
        "the others get nothing.",
        (
            _W(softmax=stages.hard_pick("first")),
            _W(softmax=stages.hard_pick("last")),
            _W(softmax=stages.hard_pick("all")),
            _W(softmax=stages.hard_pick("split")),
        ),
        hint="what weight does softmax give a key whose score is only a little below the best?",
        lesson="lesson 02",
    ),
    Entry(
        "scores_not_weights",
        "gave the raw scores where weights were asked",
        "you used the raw scores as the weights.",
        "that uses the raw scores as weights: they can be negative and need not add up to 1.",
        wrong=(_W(softmax=stages.identity),),
        kinds=frozenset({"weights", "output", "attention"}),
        hint="can a weight be negative? What must a query's weights add up to?",
        lesson="lesson 02",
    ),
    Entry(
        "weights_not_normalised",
        "weights that do not sum to 1",
        "your weights do not add up to 1 for each query.",
        "that leaves the weights without a fixed total, as if exponentials alone were weights.",
        (_W(softmax=stages.exps_shifted), _W(softmax=stages.exps)),
        hint="which step of softmax makes the weights share one whole?",
        lesson="lesson 02",
    ),
    Entry(
        "heads_share_projection",
        "thinks the heads of a layer share one W_Q",
        "your answer is what a head gives with another head's query projection.",
        "that ties every head to one query matrix, so all heads ask the same question and "
        "differ only in what they match it against.",
        layer_wrong=(WrongLayer(queries=stages.first_head_queries),),
        hint="what would several heads add if each asked its question with the same W_Q?",
        lesson="lesson 06",
    ),
    Entry(
        "unprojected_scores",
        "scored the raw word vectors (forgot W_Q and W_K)",
        "your scores compare the word vectors themselves, as if no W_Q and W_K came before "
        "the scores.",
        "that compares the word vectors themselves, so W_Q and W_K never shape which words match.",
        layer_wrong=(WrongLayer(scores=stages.unprojected_scores),),
        hint="which vectors does a head compare when it takes a score: X, or what W_Q and W_K "
        "made of X?",
        lesson="lesson 06",
    ),
    Entry(
        "positions_after_attention",
        "added the positions only after the weights were made (or not at all)",
        "your answer is what attention gives when the positions are left out of what its scores "
        "are made from (added afterwards, or not at all).",
        "that adds word order only after the softmax, so the scores, and the weights they make, "
        "never see where the words stand.",
        layer_wrong=(
            WrongLayer(inputs=stages.without_positions, output=stages.positions_on_output),
            WrongLayer(inputs=stages.without_positions),
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
        layer_wrong=(WrongLayer(scores=stages.one_matrix_scores),),
        hint="write q.k with q = x W_Q and k = y W_K: how does the key's matrix enter?",
        lesson="lesson 06",
    ),
)
