"""The chapters' worked examples, defined once for lessons, assignments and tests.

Only *inputs* live here (tokens and their query, key and value vectors). The numbers the
chapters derive from them are recomputed by :func:`attention_lab.attention` wherever they are
shown, and the answers to assignment questions never appear in this package.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["WorkedExample", "ISRO", "TIFFIN"]


def _frozen(rows: ArrayLike) -> np.ndarray:
    arr = np.array(rows, dtype=float)
    arr.flags.writeable = False  # shared by every lesson: nobody may change the chapter's data
    return arr


@dataclass(frozen=True, eq=False)
class WorkedExample:
    """A sentence with a 2-D query, key and value vector per token.

    Attributes
    ----------
    name : str
        Short identifier (``"isro"``, ``"tiffin"``).
    chapter : str
        The chapter the example comes from.
    tokens : tuple of str, length n
    Q, K, V : numpy.ndarray, shape (n, 2)
        Read-only query, key and value vectors, one row per token.
    scale : bool
        Whether the chapter divides the scores by sqrt(d_k).
    query_token : str
        The token whose query the chapter works through.
    """

    name: str
    chapter: str
    tokens: tuple[str, ...]
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scale: bool
    query_token: str

    @property
    def query_index(self) -> int:
        """Row of :attr:`query_token` in ``Q``, ``K`` and ``V``."""
        return self.tokens.index(self.query_token)

    def query(self) -> np.ndarray:
        """Return the chapter's query vector, shape (2,) (a writable copy)."""
        query: np.ndarray = self.Q[self.query_index].copy()
        return query


ISRO = WorkedExample(
    name="isro",
    chapter="Attention Mechanisms: Focus in the Noise",
    tokens=("ISRO", "launched", "Chandrayaan"),
    Q=_frozen([[1, 0], [0, 1], [1, 1]]),
    K=_frozen([[1, 0], [0, 1], [1, 1]]),
    V=_frozen([[1, 2], [3, 0], [0, 4]]),
    scale=True,
    query_token="Chandrayaan",
)
"""'ISRO launched Chandrayaan': three tokens, scaled by 1/sqrt(2); the query is 'Chandrayaan'."""

# The chapter gives only the query of "it", (1, 1), which equals its key. To let every token
# ask its own question in the explorer, the other tokens' queries are taken equal to their keys.
TIFFIN = WorkedExample(
    name="tiffin",
    chapter="Introduction to Attention Mechanisms",
    tokens=("tiffin", "bag", "it", "big"),
    Q=_frozen([[2, 1], [0, 1], [1, 1], [1, 0]]),
    K=_frozen([[2, 1], [0, 1], [1, 1], [1, 0]]),
    V=_frozen([[5, 2], [5, 6], [2, 2], [0, 8]]),
    scale=False,
    query_token="it",
)
"""'The tiffin didn't fit in the bag because it was too big': unscaled; the query is 'it'."""
