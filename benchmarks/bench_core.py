"""Core numerics: vectorised attention against a plain-Python loop over the same inputs."""

from __future__ import annotations

import math

import numpy as np

from attention_lab import attention
from benchmarks import Row, median_p90, timings_ms


def _loop_attention(Q, K, V):
    d_k = len(K[0])
    out = []
    for q in Q:
        scores = [sum(a * b for a, b in zip(q, k, strict=True)) / math.sqrt(d_k) for k in K]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        out.append(
            [sum(e / total * v[c] for e, v in zip(exps, V, strict=True)) for c in range(len(V[0]))]
        )
    return out


def rows() -> list[Row]:
    """Measure the numerics' rows: softmax and attention at lesson sizes."""
    rng = np.random.default_rng(0)
    n, d = 64, 32
    Q, K, V = (rng.normal(size=(n, d)) for _ in range(3))
    fast = median_p90(timings_ms(lambda: attention(Q, K, V), repeat=50))
    lists = Q.tolist(), K.tolist(), V.tolist()
    slow = median_p90(timings_ms(lambda: _loop_attention(*lists), repeat=5, warmup=1))
    return [
        Row(
            area="core",
            case=f"attention(), {n} tokens, d_k={d}",
            value=f"{fast[0]:.3f} ms median",
            baseline=f"python loops {slow[0]:.1f} ms",
            ratio=f"{slow[0] / fast[0]:.0f}x faster",
        )
    ]
