"""Measured demonstrations for the lessons: small numpy experiments that run in seconds.

Each function returns plain numbers/arrays (a frozen dataclass) so that the lessons can plot them
and the tests can check the claim each one demonstrates. Every random draw goes through a
``numpy.random.Generator`` built from an explicit ``seed``, so a lesson shows the same figure on
every run.

The demonstrations, in the order of the course:

a. :func:`bottleneck_recall` - one fixed-size memory vector versus attention over all states.
b. :func:`score_variance`, :func:`softmax_saturation` - why scores are divided by ``sqrt(d_k)``.
c. :func:`word_order_test`, :func:`shuffled_self_attention` - self-attention ignores word order
   until positions are added.
d. :func:`hard_vs_soft_sweep` - ``v[argmax]`` is a step function; soft attention is smooth.
e. :func:`cross_attention_alignment` - English -> Hindi alignment with hand-set vectors.
f. :func:`rnn_vs_attention_steps` - an RNN steps word by word; attention is one matrix product.
g. :func:`order_change` - lesson 6: the same measurement on a projected head, positions added.
h. :func:`train_previous_token` - lesson 6: a head learns "copy the previous token" in numpy.

plus :func:`additive_vs_dot` (Bahdanau's additive score next to Luong's dot product),
:func:`dot_geometry` (a score is ``||q|| ||k|| cos(theta)``: length counts, not direction alone)
and :func:`swap_keys` (moving weight between tokens with equal values moves no output).
"""

from __future__ import annotations

from attention_lab.experiments.alignment import (
    CROSS_SOURCE,
    CROSS_TARGET,
    AdditiveVsDot,
    CrossAttentionResult,
    additive_vs_dot,
    cross_attention_alignment,
)
from attention_lab.experiments.bottleneck import (
    BAHDANAU_TABLE1_BLEU,
    BottleneckResult,
    StepsResult,
    bottleneck_recall,
    rnn_vs_attention_steps,
)
from attention_lab.experiments.geometry import DotGeometry, WeightSwap, dot_geometry, swap_keys
from attention_lab.experiments.hard_soft import HardSoftSweep, hard_vs_soft_sweep
from attention_lab.experiments.learning import (
    TRAINING_SEEDS,
    TrainingRun,
    previous_token_pattern,
    train_previous_token,
)
from attention_lab.experiments.positions import OrderChange, order_change
from attention_lab.experiments.scaling import (
    SCALINGS,
    SaturationResult,
    VarianceResult,
    scale_factor,
    score_variance,
    softmax_saturation,
)
from attention_lab.experiments.word_order import (
    ShuffleResult,
    WordOrderResult,
    shuffled_self_attention,
    word_order_test,
)

__all__ = [
    "BAHDANAU_TABLE1_BLEU",
    "CROSS_SOURCE",
    "CROSS_TARGET",
    "SCALINGS",
    "TRAINING_SEEDS",
    "AdditiveVsDot",
    "BottleneckResult",
    "CrossAttentionResult",
    "DotGeometry",
    "HardSoftSweep",
    "OrderChange",
    "SaturationResult",
    "ShuffleResult",
    "StepsResult",
    "TrainingRun",
    "VarianceResult",
    "WeightSwap",
    "WordOrderResult",
    "additive_vs_dot",
    "bottleneck_recall",
    "cross_attention_alignment",
    "dot_geometry",
    "hard_vs_soft_sweep",
    "order_change",
    "previous_token_pattern",
    "rnn_vs_attention_steps",
    "scale_factor",
    "shuffled_self_attention",
    "score_variance",
    "softmax_saturation",
    "swap_keys",
    "train_previous_token",
    "word_order_test",
]
