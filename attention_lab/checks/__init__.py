"""Misconception-aware checks for the auto-graded assignments.

A test cell in an nbgrader assignment makes one call per check, passing the student's answer and
the question's inputs as literals (never a name the student's notebook defines), or the names a
read-only cell drawing each student's numbers binds (:mod:`attention_lab.variants`; the grader
takes them from its own run of that cell)::

    checks.check_weights(launched_weights, [0, 1], [[1, 0], [0, 1], [1, 1]], scale=True,
                         name="launched_weights")

A check returns ``None`` when the answer is right. Otherwise it raises an ``AssertionError``
subclass, so nbgrader marks the cell as failed:

* :class:`Misconception` when the wrong answer equals a known buggy computation. ``str(err)``
  is ``"[<id>] <name>: <teaching message>"``; the ids, messages and wrong computations live in
  the registry, :mod:`attention_lab.misconceptions` (:data:`MISCONCEPTIONS` maps id -> title).
* :class:`AnswerFormatError` when the answer has the wrong type or shape (says what was expected).
* :class:`WrongAnswer` otherwise.

The expected values are computed here from the inputs the test cell passes, so this package
holds no answer key, and no message ever shows an expected value or a hidden input. Checks
write nothing to stderr (nbgrader gives 0 points to a test cell with stderr output).

The checks are split by question kind: :mod:`.hand` (numbers computed by hand), :mod:`.words`
(multiple choice, true/false, names) and :mod:`.functions` with :mod:`.attention_function`
(implement-it exercises, run on several inputs grouped by behaviour, behind library tripwires); :mod:`.layers` holds lesson 6's
(projections, one head of several, positions, the concatenated heads' shape); :mod:`.block`
lesson 7's (layer norm, add & norm, next-token probabilities, weights at generation, a block's
parameter count).
"""

from attention_lab.misconceptions import titles as _titles

from ._base import AnswerFormatError, CheckFailure, Misconception, WrongAnswer
from ._library import FORBIDDEN_ROOTS, check_function
from .attention_function import ATTENTION_BEHAVIOURS, check_attention_function
from .block import (
    block_tells_apart,
    check_add_and_norm,
    check_generation_weights,
    check_layer_norm,
    check_next_token_probabilities,
    check_parameter_count,
)
from .functions import (
    CAUSAL_MASK_BEHAVIOURS,
    SOFTMAX_BEHAVIOURS,
    check_causal_mask_function,
    check_softmax_function,
)
from .hand import (
    check_numbers,
    check_output,
    check_scores,
    check_weights,
    check_weights_format,
    tells_apart,
)
from .layers import (
    check_concat_shape,
    check_head_output,
    check_head_weights,
    check_projection,
    heads_tell_apart,
)
from .words import check_choice, check_names, check_true_false

#: id -> short human title (the teacher's class report counts these), from the registry.
MISCONCEPTIONS: dict[str, str] = _titles()

__all__ = [
    "FORBIDDEN_ROOTS",
    "MISCONCEPTIONS",
    "CheckFailure",
    "Misconception",
    "AnswerFormatError",
    "WrongAnswer",
    "ATTENTION_BEHAVIOURS",
    "CAUSAL_MASK_BEHAVIOURS",
    "SOFTMAX_BEHAVIOURS",
    "check_numbers",
    "check_weights_format",
    "tells_apart",
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
    "check_projection",
    "heads_tell_apart",
    "check_head_weights",
    "check_head_output",
    "check_concat_shape",
    "check_layer_norm",
    "block_tells_apart",
    "check_add_and_norm",
    "check_next_token_probabilities",
    "check_generation_weights",
    "check_parameter_count",
]
