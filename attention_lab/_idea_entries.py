"""The registry's entries about ideas: no wrong computation, shown by a wrong option or answer.

A multiple-choice option or a true/false answer names one of these (``check_choice``'s
``misconceptions``, ``check_true_false``'s ``misconception``), or a check raises it by its id.
They come after the computed entries of :mod:`attention_lab.misconceptions`, whose order
decides which computation a wrong answer is named after; these have none.
"""

from __future__ import annotations

from attention_lab._entry import Entry

IDEA_ENTRIES = [
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
        lesson="lesson 02",
    ),
    Entry(
        "order_aware_self_attention",
        "thinks self-attention alone knows word order or distance",
        "self-attention's scores were taken to depend on where the words stand.",
        "that assumes self-attention, by itself, knows the order of the words or their distance.",
        hint="what did lesson 03's shuffle experiment show?",
        lesson="lesson 03",
    ),
    Entry(
        "mask_keeps_order_blind",
        "thinks a causal mask leaves self-attention blind to word order",
        "a causal mask was taken to leave self-attention blind to word order.",
        "that keeps self-attention blind to word order even with a causal mask, as if hiding "
        "the later words could not depend on the order.",
        hint="with a causal mask, which words can the middle word see in each of the two orders?",
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
        "softmax_only_ranks",
        "thinks softmax depends only on which score is largest",
        "softmax was taken to depend only on the order of the scores.",
        "that takes softmax to care only about which score is largest, so dividing every score "
        "by the same number would change nothing.",
        hint="take the scores 2 and 0, then both divided by 10: does the top word get the same "
        "share in both?",
        lesson="lesson 02",
    ),
    Entry(
        "normalising_step_confused",
        "credits the wrong step with making the weights add up to 1",
        "the wrong step was taken to make the weights add up to 1.",
        "that credits the wrong step with making the weights add up to 1 (or with breaking it).",
        hint="divide 2, 1, 1 by their sum: what do they add up to? Which step did that?",
        lesson="lesson 02",
    ),
    Entry(
        "dot_is_direction_only",
        "thinks a dot product measures only the angle between two arrows",
        "your choice is the key that points most the same way as the query, as if a dot product "
        "measured only the angle.",
        "that takes a dot product to measure only the angle between the arrows, as if their "
        "lengths did not count.",
        hint="what happens to q.k when a key keeps its direction and gets twice as long?",
        lesson="lesson 02",
    ),
    Entry(
        "self_attends_most",
        "thinks a token always attends most to itself",
        "a token was taken to attend most to itself.",
        "that has every token give itself the largest weight, whatever the other keys are.",
        hint="in lesson 03's self-attention matrix, does every word's largest weight sit on "
        "the diagonal?",
        lesson="lesson 03",
    ),
    Entry(
        "mask_everywhere",
        "thinks every attention layer uses a causal mask",
        "a causal mask was taken to belong in every attention layer.",
        "that puts a causal mask on every attention layer, even where the whole sentence is "
        "already there to be read.",
        hint="when the decoder writes its third word, which words of the sentence it "
        "translates exist already?",
        lesson="lesson 04",
    ),
    Entry(
        "parallel_generation",
        "thinks a Transformer writes its whole answer at once",
        "a Transformer was taken to write its whole answer in one step.",
        "that has a Transformer write every word of its answer together, as if the later words "
        "did not need the earlier ones.",
        hint="to write its fifth word, what must a decoder already have written?",
        lesson="lesson 04",
    ),
    Entry(
        "argmax_trains_fine",
        "thinks picking the top key trains as well as the soft blend",
        "picking the top key was taken to train as well as a blend.",
        "that takes picking the top key to train just as well as a soft blend.",
        hint="training moves the numbers by small amounts: how would the output respond when a "
        "losing key's number moves a little?",
        lesson="lesson 05",
    ),
    Entry(
        "attention_is_explanation",
        "thinks the most-weighted word is what the model relied on",
        "the largest attention weight was taken to show what the output relied on.",
        "that reads the most-weighted word as what the model's output relied on most.",
        hint="in lesson 05 much of the weight moved from tiffin to bag: what happened to the "
        "output, and why?",
        lesson="lesson 05",
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
        "heads_split_features",
        "thinks each head reads its own slice of every word vector",
        "each head was taken to read only its own slice of the word vector.",
        "that gives each head its own slice of the numbers in every word vector, as if a head "
        "could not read the rest.",
        hint="what does a head's W_Q multiply: a few numbers of the word vector, or all of them?",
        lesson="lesson 06",
    ),
    Entry(
        "heads_are_copies",
        "thinks the heads of a layer all compute one pattern",
        "the heads were taken to be copies computing one pattern.",
        "that makes the heads copies of each other, computing one pattern several times.",
        hint="what would a second head add if it always found the same pattern as the first?",
        lesson="lesson 06",
    ),
    Entry(
        "positions_destroy_meaning",
        "thinks adding a position vector wipes out the word's meaning",
        "adding a position vector was taken to wipe out what the word means.",
        "that takes adding a position vector to a word vector to wipe out what the word means.",
        hint="add a small vector to a word vector: is the sum still nearer its own word than "
        "to the others?",
        lesson="lesson 06",
    ),
]
