"""How many numbers one block learns, counted part by part (what a student counts by hand).

With ``h`` heads of ``d_k = d_model / h`` numbers each (Vaswani et al. 2017, §3.2.2):

* attention: ``W_Q``, ``W_K``, ``W_V`` are ``h`` matrices of ``d_model x d_k``, i.e.
  ``d_model x d_model`` numbers each, and ``W_O`` is ``(h d_k) x d_model``: ``4 d_model^2``,
  whatever ``h`` is (the equations of §3.2.2 have no bias terms; PyTorch's
  ``nn.MultiheadAttention`` adds ``4 d_model`` of them by default);
* feed-forward (§3.3): ``W_1`` (``d_model x d_ff``) and ``b_1`` (``d_ff``), ``W_2``
  (``d_ff x d_model``) and ``b_2`` (``d_model``);
* two layer norms, each a gain and a bias of ``d_model`` numbers (Ba et al. 2016).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BASE_MODEL", "ParameterCount", "count_parameters"]


@dataclass(frozen=True)
class ParameterCount:
    """The learned numbers of one block, by part.

    Attributes
    ----------
    d_model, h, d_ff, d_k : int
    attention, feed_forward, norms : int
    """

    d_model: int
    h: int
    d_ff: int
    d_k: int
    attention: int
    feed_forward: int
    norms: int

    @property
    def total(self) -> int:
        """The whole block."""
        return self.attention + self.feed_forward + self.norms

    @property
    def attention_biases(self) -> int:
        """What a bias on each of the four attention projections adds (PyTorch's default)."""
        return 4 * self.d_model


def count_parameters(d_model: int, h: int, d_ff: int) -> ParameterCount:
    """Count one block's parameters (see the module docstring for the formulas).

    Raises
    ------
    ValueError
        If ``h`` does not divide ``d_model``.
    """
    if min(d_model, h, d_ff) < 1 or d_model % h:
        raise ValueError(
            f"need whole positive sizes with d_model a multiple of h (got d_model = {d_model}, "
            f"h = {h}, d_ff = {d_ff}): each head gets d_k = d_model / h numbers"
        )
    d_k = d_model // h
    attention = 3 * h * d_model * d_k + h * d_k * d_model
    feed_forward = d_model * d_ff + d_ff + d_ff * d_model + d_model
    return ParameterCount(d_model, h, d_ff, d_k, attention, feed_forward, 2 * 2 * d_model)


#: The base model of Vaswani et al. (2017, Table 3): d_model = 512, h = 8, d_ff = 2048.
BASE_MODEL = count_parameters(512, 8, 2048)
