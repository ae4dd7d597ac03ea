"""The live attention explorer: move a query and watch scores, weights and the output change.

``QueryExplorer`` is an ``ipywidgets.VBox``. Its figure is drawn kernel-side with Agg and sent
as a PNG to an ``ipywidgets.Image``; only the artists that change are redrawn (blitting), see
:mod:`attention_lab._render` for the measurements behind that choice. It needs no frontend
extension beyond ipywidgets, so it works in JupyterLab 4, Notebook 7, on a JupyterHub and
headless under nbclient; static exports (nbconvert HTML without widget state, GitHub) show the
figure as a PNG.

Redraws cannot pile up while a slider is dragged: ipywidgets' frontend keeps at most one
update message per widget in flight and merges the changes made meanwhile into the next one
("latest value wins"), and every handler here renders synchronously, so the kernel only ever
draws the most recent state. Changes made together (reset, picking another query token) are
batched into a single redraw with :meth:`QueryExplorer.batch_updates`.
"""

from __future__ import annotations

import base64
import html
from contextlib import contextmanager
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from traitlets import Unicode

from attention_lab import examples as _examples
from attention_lab._render import BlitRenderer, figure_png
from attention_lab.core import (
    _as_float_array,
    attention,
    causal_mask,
    dot_product_scores,
    hard_attention,
)
from attention_lab.plots import AttentionHeatmap, VectorPlot, WeightsBars

__all__ = ["CONTROLS", "ExplorerState", "compute_state", "QueryExplorer", "static_widget_html"]

# The explorer's controls, in the order they are laid out. A lesson shows only those it has
# taught so far (``QueryExplorer(..., controls=("query", "scale"))``); a hidden one stays at
# its neutral value, so it can never change what the student sees.
CONTROLS = ("query", "token", "scale", "mask", "mode", "beta", "predict", "reset")

SLIDER_STEP = 0.05
SLIDER_LIMIT = 3.0  # the chapters' query components are all within [0, 2]
SCORE_SCALE_MAX = 5.0
FIGURE_SIZE = (11.5, 3.8)  # inches: three panels side by side
FIGURE_DPI = 90  # about 1035 x 342 pixels: readable and quick to encode

SCORE_SCALE_HELP = (
    "Score scale β multiplies every score before the softmax: softmax(β·z). β is an inverse "
    "temperature (temperature T = 1/β), the same operation as the sampling temperature a "
    "language model applies to its logits, here applied to attention scores. β = 0 spreads "
    "the weight evenly; a large β gives nearly all of it to the best key, or shares it equally "
    "between keys whose scores tie for best. With ÷√d_k off, β = 1/√d_k is exactly that scaling."
)


# --------------------------------------------------------------------------------------------
# the numbers


@dataclass(frozen=True)
class ExplorerState:
    """Everything the explorer shows for one setting of its controls.

    Attributes
    ----------
    query_index : int
        Which token is the query.
    query : numpy.ndarray, shape (2,)
        Its query vector (as the sliders set it, before the score scale).
    scores : numpy.ndarray, shape (n,)
        The query's scores over the keys (scaled by 1/sqrt(d_k) if ``scale``, times ``beta``);
        ``-inf`` where masked.
    weights : numpy.ndarray, shape (n,)
        The query's attention weights.
    output : numpy.ndarray, shape (2,)
        ``weights @ V``.
    weight_matrix : numpy.ndarray, shape (n, n)
        Every token's weights (one row per query), for the heatmap.
    mask : numpy.ndarray of bool, shape (n, n), or None
        The causal mask when on (True = may attend).
    scale, causal, hard : bool
    beta : float
    """

    query_index: int
    query: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    output: np.ndarray
    weight_matrix: np.ndarray
    mask: np.ndarray | None
    scale: bool
    causal: bool
    hard: bool
    beta: float


def _hard_with_mask(Q, K, V, mask, scale):
    """Hard attention restricted to the allowed keys (``hard_attention`` takes no mask)."""
    scores = np.atleast_2d(dot_product_scores(Q, K, scale=scale))
    scores = np.where(np.atleast_2d(mask), scores, -np.inf)
    winners = np.argmax(scores, axis=-1)  # ties go to the first key, as in hard_attention
    weights = np.zeros_like(scores)
    weights[np.arange(len(winners)), winners] = 1.0
    output = np.asarray(V, dtype=float)[winners]
    single = np.ndim(Q) == 1
    return (output[0], weights[0]) if single else (output, weights)


def compute_state(
    Q, K, V, query_index: int, scale: bool, causal: bool = False, hard: bool = False, beta=1.0
) -> ExplorerState:
    """Compute what the explorer shows, with :func:`attention_lab.attention` itself.

    The selected query's row is computed with a 1-D call, exactly as a student would call
    ``attention(q, K, V, scale=...)``, so the readout matches it to the last bit.

    Parameters
    ----------
    Q, K, V : numpy.ndarray, shape (n, 2)
    query_index : int
    scale : bool
        Divide scores by sqrt(d_k).
    causal : bool
        Apply the causal mask (query i sees keys 0..i).
    hard : bool
        Hard (argmax) attention instead of softmax.
    beta : float
        Score scale (inverse temperature): the scores are multiplied by ``beta``, done by
        scaling the queries (``(beta q) . k = beta (q . k)``). ``beta == 1`` leaves Q untouched.

    Returns
    -------
    ExplorerState
    """
    n = len(K)
    queries = np.asarray(Q, dtype=float) if beta == 1 else beta * np.asarray(Q, dtype=float)
    mask = causal_mask(n) if causal else None
    q = queries[query_index]
    row_mask = None if mask is None else mask[query_index]
    scores = dot_product_scores(q, K, scale=scale)
    if row_mask is not None:
        scores = np.where(row_mask, scores, -np.inf)
    if hard:
        if mask is None:
            output, weights = hard_attention(q, K, V, scale=scale)
            _, matrix = hard_attention(queries, K, V, scale=scale)
        else:
            output, weights = _hard_with_mask(q, K, V, row_mask, scale)
            _, matrix = _hard_with_mask(queries, K, V, mask, scale)
    else:
        output, weights = attention(q, K, V, mask=row_mask, scale=scale)
        _, matrix = attention(queries, K, V, mask=mask, scale=scale)
    matrix = matrix.copy()
    matrix[query_index] = weights  # the heatmap row equals the readout exactly
    return ExplorerState(
        query_index=query_index,
        query=np.asarray(Q, dtype=float)[query_index].copy(),
        scores=scores,
        weights=weights,
        output=output,
        weight_matrix=matrix,
        mask=mask,
        scale=scale,
        causal=causal,
        hard=hard,
        beta=float(beta),
    )


# --------------------------------------------------------------------------------------------
# the figure


class _ExplorerFigure:
    """Heatmap, weights bars and vector plot on one Agg figure, updated in place."""

    def __init__(self, tokens, K, V, state: ExplorerState, limits):
        self.tokens = list(tokens)
        self.figure = Figure(figsize=FIGURE_SIZE, dpi=FIGURE_DPI, layout="constrained")
        ax_heat, ax_bars, ax_vec = self.figure.subplots(1, 3, width_ratios=[1.15, 1.0, 1.0])
        self.heatmap = AttentionHeatmap(
            ax_heat, state.weight_matrix, self.tokens, self.tokens, mask=state.mask
        )
        self.bars = WeightsBars(ax_bars, state.weights, self.tokens)
        self.vectors = VectorPlot(
            ax_vec, K, V, state.query, state.output, state.weights, labels=self.tokens,
            limits=limits, legend=False,
        )  # fmt: skip
        for ax in (ax_heat, ax_bars, ax_vec):
            ax.title.set_fontsize(10)  # three two-line titles side by side
        self.update(state)

    def titles(self, state: ExplorerState) -> tuple[str, str, str]:
        # Always two lines (the heatmap's second one is its masked-cells note when masked), so
        # the layout computed on the first draw fits every later title.
        mode = "hard (argmax)" if state.hard else "softmax"
        token = self.tokens[state.query_index]
        heat = f"every token's weights ({mode})"
        if state.mask is None:
            heat += "\none row per query, each sums to 1"
        bars = f"weights of the query “{token}”\n(its row in the heatmap)"
        vec = "keys → (blue), query q → (orange),\nvalues ■, output ★ (in their hull)"
        return heat, bars, vec

    def update(self, state: ExplorerState) -> None:
        self.heatmap.update(state.weight_matrix, mask=state.mask)
        self.heatmap.highlight_row(state.query_index)
        row_mask = None if state.mask is None else state.mask[state.query_index]
        self.bars.update(state.weights, mask=row_mask)
        self.vectors.update(state.query, state.output, state.weights)
        heat, bars, vec = self.titles(state)
        self.heatmap.set_title(heat)
        self.bars.set_title(bars)
        self.vectors.set_title(vec)

    def dynamic_artists(self) -> list:
        # Titles are left out on purpose: they change only with the token or a toggle, and the
        # explorer then redraws the background (text is the slowest thing Agg draws).
        heat = [a for a in self.heatmap.dynamic_artists() if a is not self.heatmap.ax.title]
        bars = [a for a in self.bars.dynamic_artists() if a is not self.bars.ax.title]
        vec = [a for a in self.vectors.dynamic_artists() if a is not self.vectors.ax.title]
        return heat + bars + vec


def _plot_limits(K, V, reach: float):
    """Fixed vector-plot limits: the sliders' square plus every key and value, with a margin."""
    pts = np.vstack([K, V, [[-reach, -reach], [reach, reach]]])
    low, high = pts.min(axis=0), pts.max(axis=0)
    low, high = low.min(), high.max()  # one range for both axes: the plot is square
    pad = 0.06 * (high - low)
    return (low - pad, high + pad), (low - pad, high + pad)


def render_naive(tokens, K, V, state: ExplorerState, limits) -> bytes:
    """Build the whole explorer figure from scratch and encode it (the benchmark's baseline)."""
    return figure_png(_ExplorerFigure(tokens, K, V, state, limits).figure)


# --------------------------------------------------------------------------------------------
# widgets


class _LabelledImage(widgets.Image):
    """An Image whose ``tooltip`` becomes the <img> title (its accessible name).

    ipywidgets' DOMWidgetView sets ``title`` from ``tooltip`` only when ``description`` is
    empty, and Image has no ``description`` trait (the view would read ``undefined.length``);
    an empty one makes the tooltip work.
    """

    description = Unicode("").tag(sync=True)


# Cell padding for the readout and feedback tables (the HTML widget renders it unsanitised).
_TABLE_STYLE = (
    "<style>.attention-explorer table th, .attention-explorer table td "
    "{padding: 0.1em 0.7em; font-variant-numeric: tabular-nums}</style>"
)


def static_widget_html(png: bytes, alt: str, below: str, css_class: str) -> str:
    """A widget as static HTML, for exporters without a widget manager (nbconvert, GitHub).

    Parameters
    ----------
    png : bytes
        The widget's picture as it is now.
    alt : str
        The picture's alt text (what it shows, in words).
    below : str
        HTML shown under the picture (the readout).
    css_class : str
        Class of the outer ``<div>``.
    """
    src = base64.b64encode(png).decode("ascii")
    return (
        f'<div class="{css_class}"><img src="data:image/png;base64,{src}" '
        f'alt="{html.escape(alt)}">{below}</div>'
    )


def _fmt(x: float) -> str:
    """Three decimals, without a confusing '-0.000'."""
    s = f"{x:.3f}"
    return "0.000" if s == "-0.000" else s


def _vec(v) -> str:
    return "(" + ", ".join(_fmt(x) for x in v) + ")"


def _token_options(tokens: list[str]) -> list[tuple[str, int]]:
    """Dropdown options (label, index); repeated tokens get their position appended."""
    counts = {t: tokens.count(t) for t in tokens}
    return [(t if counts[t] == 1 else f"{t} (#{i + 1})", i) for i, t in enumerate(tokens)]


def _matrix(x, name: str, n: int | None) -> np.ndarray:
    """``x`` as a float array of n 2-D vectors (core's checks, then the explorer's own)."""
    # a copy (the caller's array stays theirs); a wrong shape gets the explorer's message below
    arr = _as_float_array(x, name, (1, 2, 3)).copy()
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"{name} must have shape (n_tokens, 2): the explorer draws and slides 2-D vectors, "
            f"got shape {arr.shape}"
        )
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} rows but there are {n} tokens")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains infinity; give finite coordinates")
    return arr


class QueryExplorer(widgets.VBox):
    """Drag a query vector and watch scores, weights, the output and the heatmap change.

    Parameters
    ----------
    tokens : sequence of str, length n
    Q, K, V : array_like, shape (n, 2)
        Query, key and value vectors, one row per token (2-D so they can be drawn and slid).
    scale : bool, default True
        Start with the scores divided by sqrt(d_k).
    query_index : int, optional
        The token whose query is moved first (default: the last token).
    title : str, optional
        Shown above the controls.
    controls : sequence of str, optional
        Which controls to show, by name from :data:`CONTROLS`: ``"query"`` (the two
        sliders), ``"token"`` (which token asks), ``"scale"`` (÷√d_k), ``"mask"`` (causal),
        ``"mode"`` (soft/hard), ``"beta"`` (score scale), ``"predict"`` (prediction mode) and
        ``"reset"``. Default: all of them. A hidden control keeps its neutral value whatever
        its widget is set to: the opening query token and scaling, no mask, softmax, β = 1,
        no prediction mode.

    Attributes
    ----------
    query_sliders : tuple of two ipywidgets.FloatSlider
        The selected query's two components (step 0.05).
    token_dropdown : ipywidgets.Dropdown
        Which token is the query (value = its index).
    scale_checkbox, causal_checkbox : ipywidgets.Checkbox
    mode_buttons : ipywidgets.ToggleButtons
        ``"soft"`` (softmax) or ``"hard"`` (argmax).
    score_scale_slider : ipywidgets.FloatSlider
        Score scale β (inverse temperature), default 1.
    reset_button : ipywidgets.Button
        Back to the numbers the explorer opened with.
    readout : ipywidgets.HTML
        Table of scores, weights and output (3 decimals), CSS class
        ``attention-explorer-readout``.
    image : ipywidgets.Image
        The rendered figure (PNG), CSS class ``attention-explorer-figure``.
    prediction_checkbox : ipywidgets.Checkbox
        Prediction mode: hides the weights until the student has guessed them.
    prediction_inputs : tuple of ipywidgets.BoundedFloatText
        One guess per key.
    reveal_button : ipywidgets.Button
    prediction_feedback : ipywidgets.HTML
    figure : matplotlib.figure.Figure
        Not registered with pyplot (no figure leaks, nothing shown twice).
    state : ExplorerState
        The current numbers; ``weights``, ``output``, ``scores``, ``weight_matrix`` and
        ``query`` are shortcuts to it.
    render_count : int
        How many times the figure has been re-rendered (each is one PNG sent).

    Examples
    --------
    >>> ex = QueryExplorer.tiffin()
    >>> ex.weights.round(3)
    array([0.61 , 0.083, 0.225, 0.083])
    >>> ex.query_sliders[0].value = 2.0
    >>> ex.weights.round(3)
    array([0.831, 0.015, 0.112, 0.041])
    """

    def __init__(
        self,
        tokens,
        Q,
        K,
        V,
        scale: bool = True,
        query_index: int | None = None,
        title: str | None = None,
        controls=None,
    ):
        self.controls = _check_controls(controls)
        if isinstance(tokens, str):
            raise TypeError("tokens must be a list of strings (one per token), not one string")
        self.tokens = [str(t) for t in tokens]
        n = len(self.tokens)
        if n == 0:
            raise ValueError("tokens is empty; give at least one token")
        self._K = _matrix(K, "K", n)
        self._V = _matrix(V, "V", n)
        self._Q0 = _matrix(Q, "Q", n)
        self._Q = self._Q0.copy()
        if query_index is None:
            query_index = n - 1
        if not 0 <= int(query_index) < n:
            raise ValueError(f"query_index must be in 0..{n - 1}, got {query_index}")
        self._initial = {"query_index": int(query_index), "scale": bool(scale)}
        self._hold = 0
        self._dirty = False
        self._loading_sliders = False
        self._revealed = False
        self._static_key = None
        self.render_count = 0
        self.title = title

        reach = max(SLIDER_LIMIT, float(np.ceil(np.abs(self._Q0).max())))
        self._limits = _plot_limits(self._K, self._V, reach)
        self._build_controls(reach)
        self.state = self._compute()
        self._fig = _ExplorerFigure(self.tokens, self._K, self._V, self.state, self._limits)
        self._renderer = BlitRenderer(self._fig.figure, self._fig.dynamic_artists)

        super().__init__(children=self._layout_children())
        self.add_class("attention-explorer")
        self._observe_controls()
        self.refresh()

    # -- presets ------------------------------------------------------------------------------

    @classmethod
    def from_example(cls, example: _examples.WorkedExample, **kwargs) -> QueryExplorer:
        """Open on a chapter's worked example (its vectors, scaling and query token)."""
        scaled = "scores scaled by 1/√d_k" if example.scale else "scores not scaled"
        tokens = ", ".join(f"“{t}”" for t in example.tokens)
        kwargs.setdefault(
            "title", f"tokens {tokens} from the chapter “{example.chapter}” ({scaled})"
        )
        return cls(
            example.tokens,
            example.Q,
            example.K,
            example.V,
            scale=example.scale,
            query_index=example.query_index,
            **kwargs,
        )

    @classmethod
    def isro(cls, **kwargs) -> QueryExplorer:
        """'ISRO launched Chandrayaan' (chapter "Focus in the Noise"), scaled, query 'Chandrayaan'."""
        return cls.from_example(_examples.ISRO, **kwargs)

    @classmethod
    def tiffin(cls, **kwargs) -> QueryExplorer:
        """The tiffin sentence (chapter "Introduction"), unscaled, query 'it'."""
        return cls.from_example(_examples.TIFFIN, **kwargs)

    # -- controls -----------------------------------------------------------------------------

    def _build_controls(self, reach: float) -> None:
        wide = {"description_width": "initial"}
        qi = self._initial["query_index"]
        self.title_html = widgets.HTML(
            f"<b>Attention explorer</b>: {html.escape(self.title)}" if self.title else
            "<b>Attention explorer</b>"
        )  # fmt: skip
        self.token_dropdown = widgets.Dropdown(
            options=_token_options(self.tokens),
            value=qi,
            description="query token",
            tooltip="Which token asks the question (its row is outlined in the heatmap)",
            style=wide,
        )
        self.query_sliders = tuple(
            widgets.FloatSlider(
                value=float(np.clip(self._Q[qi, d], -reach, reach)),
                min=-reach,
                max=reach,
                step=SLIDER_STEP,
                readout_format=".2f",
                continuous_update=True,
                description=f"query dimension {d + 1}",
                tooltip=f"Component {d + 1} of the selected token's query vector",
                style=wide,
                layout=widgets.Layout(width="24em"),
            )
            for d in range(2)
        )
        self.scale_checkbox = widgets.Checkbox(
            value=self._initial["scale"],
            description="divide scores by √d_k",
            tooltip="Scaled dot-product attention divides every score by √d_k = √2",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        self.causal_checkbox = widgets.Checkbox(
            value=False,
            description="causal mask (no looking at later tokens)",
            tooltip="Token i may attend only to tokens 0..i, as in a decoder",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        self.mode_buttons = widgets.ToggleButtons(
            options=[("soft (softmax)", "soft"), ("hard (argmax)", "hard")],
            value="soft",
            description="attention",
            tooltips=["weights from softmax: a blend", "all weight to the best key: a pick"],
            style=wide,
        )
        self.score_scale_slider = widgets.FloatSlider(
            value=1.0,
            min=0.0,
            max=SCORE_SCALE_MAX,
            step=SLIDER_STEP,
            readout_format=".2f",
            description="score scale β (inverse temperature)",
            tooltip=SCORE_SCALE_HELP,
            style=wide,
            layout=widgets.Layout(width="30em"),
        )
        self.score_scale_help = widgets.HTML(
            "<div style='line-height:1.3;font-size:0.85em;max-width:34em'>"
            f"{html.escape(SCORE_SCALE_HELP)}</div>"
        )
        self.reset_button = widgets.Button(
            description="reset to the chapter's numbers",
            tooltip="Put every query, toggle and the score scale back to how the explorer opened",
            icon="undo",
            layout=widgets.Layout(width="auto"),
        )
        self.readout = widgets.HTML(layout=widgets.Layout(min_width="24em"))
        self.readout.add_class("attention-explorer-readout")
        self.image = _LabelledImage(
            format="png",
            layout=widgets.Layout(width="100%", max_width=f"{self._figure_px()[0]}px"),
        )
        self.image.add_class("attention-explorer-figure")

        self.prediction_checkbox = widgets.Checkbox(
            value=False,
            description="prediction mode: guess the weights before you see them",
            tooltip="Hides the weights until you press reveal",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        self.prediction_inputs = tuple(
            widgets.BoundedFloatText(
                value=round(1.0 / len(self.tokens), 2),
                min=0.0,
                max=1.0,
                step=0.01,
                description=f"your guess for “{label}”",
                style=wide,
                layout=widgets.Layout(width="auto"),
            )
            for label, _ in _token_options(self.tokens)
        )
        self.reveal_button = widgets.Button(
            description="reveal the weights",
            tooltip="Show the real weights and how far your guesses were",
            icon="eye",
            button_style="info",
        )
        self.prediction_feedback = widgets.HTML()
        self.prediction_hint = widgets.HTML(
            "<i>The weights are hidden. Type your guesses (they should add up to 1), then press "
            "“reveal the weights”.</i>"
        )
        self.prediction_box = widgets.VBox(
            [
                self.prediction_hint,
                *self.prediction_inputs,
                self.reveal_button,
                self.prediction_feedback,
            ],
            layout=widgets.Layout(display="none"),
        )

    def _figure_px(self) -> tuple[int, int]:
        return round(FIGURE_SIZE[0] * FIGURE_DPI), round(FIGURE_SIZE[1] * FIGURE_DPI)

    def _layout_children(self) -> list[widgets.Widget]:
        shown = set(self.controls)
        query_box = widgets.VBox(
            [
                *([self.token_dropdown] if "token" in shown else []),
                *(self.query_sliders if "query" in shown else ()),
                *([self.reset_button] if "reset" in shown else []),
            ],
            layout=widgets.Layout(margin="0 2em 0 0"),
        )
        toggles = {
            "scale": [self.scale_checkbox],
            "mask": [self.causal_checkbox],
            "mode": [self.mode_buttons],
            "beta": [self.score_scale_slider, self.score_scale_help],
        }
        toggle_box = widgets.VBox(
            [w for name, group in toggles.items() if name in shown for w in group],
            layout=widgets.Layout(max_width="32em"),
        )
        prediction = widgets.VBox(
            [self.prediction_checkbox, self.prediction_box] if "predict" in shown else [],
            layout=widgets.Layout(margin="0 0 0 2em"),
        )
        return [
            self.title_html,
            widgets.HBox([query_box, toggle_box], layout=widgets.Layout(flex_flow="row wrap")),
            self.image,
            widgets.HBox([self.readout, prediction], layout=widgets.Layout(flex_flow="row wrap")),
        ]

    def _shown(self, name: str) -> bool:
        return name in self.controls

    def _query_index(self) -> int:
        """The asking token: the dropdown's, or the opening one while the dropdown is hidden."""
        if self._shown("token"):
            return self.token_dropdown.value
        return self._initial["query_index"]

    def _predicting(self) -> bool:
        return self._shown("predict") and self.prediction_checkbox.value

    def _observe_controls(self) -> None:
        self.token_dropdown.observe(self._on_token, names="value")
        for slider in self.query_sliders:
            slider.observe(self._on_slider, names="value")
        for control in (
            self.scale_checkbox,
            self.causal_checkbox,
            self.mode_buttons,
            self.score_scale_slider,
        ):
            control.observe(self._on_control, names="value")
        self.reset_button.on_click(lambda _button: self.reset())
        self.prediction_checkbox.observe(self._on_prediction_mode, names="value")
        self.reveal_button.on_click(lambda _button: self.reveal())

    # -- test surface -------------------------------------------------------------------------

    @property
    def figure(self) -> Figure:
        """The matplotlib Figure (Agg, not registered with pyplot)."""
        return self._fig.figure

    @property
    def heatmap(self) -> AttentionHeatmap:
        return self._fig.heatmap

    @property
    def bars(self) -> WeightsBars:
        return self._fig.bars

    @property
    def vectors(self) -> VectorPlot:
        return self._fig.vectors

    @property
    def weights(self) -> np.ndarray:
        """The selected query's attention weights, shape (n,)."""
        return self.state.weights

    @property
    def output(self) -> np.ndarray:
        """The selected query's output, shape (2,)."""
        return self.state.output

    @property
    def scores(self) -> np.ndarray:
        """The selected query's scores, shape (n,) (``-inf`` where masked)."""
        return self.state.scores

    @property
    def weight_matrix(self) -> np.ndarray:
        """Every token's weights (the heatmap), shape (n, n)."""
        return self.state.weight_matrix

    @property
    def query(self) -> np.ndarray:
        """The selected query vector, shape (2,)."""
        return self.state.query

    @property
    def Q(self) -> np.ndarray:
        """All current query vectors (the sliders edit the selected row), shape (n, 2)."""
        return self._Q.copy()

    # -- updating -----------------------------------------------------------------------------

    @contextmanager
    def batch_updates(self):
        """Change several controls and redraw once at the end.

        Examples
        --------
        >>> ex = QueryExplorer.isro()
        >>> with ex.batch_updates():
        ...     ex.query_sliders[0].value = 0.5
        ...     ex.query_sliders[1].value = 1.5
        """
        self._hold += 1
        try:
            yield self
        finally:
            self._hold -= 1
            if self._hold == 0 and self._dirty:
                self.refresh()

    def _compute(self) -> ExplorerState:
        # A hidden control never changes the state: its neutral value is used instead.
        shown = self._shown
        return compute_state(
            self._Q,
            self._K,
            self._V,
            query_index=self._query_index(),
            scale=self.scale_checkbox.value if shown("scale") else self._initial["scale"],
            causal=shown("mask") and self.causal_checkbox.value,
            hard=shown("mode") and self.mode_buttons.value == "hard",
            beta=self.score_scale_slider.value if shown("beta") else 1.0,
        )

    def _request_refresh(self) -> None:
        self._dirty = True
        if self._revealed and self._predicting():
            self._revealed = False  # a new situation: guess again before seeing it
        if self._hold == 0:
            self.refresh()

    def _on_slider(self, change) -> None:
        if self._loading_sliders or not self._shown("query"):
            return  # set from self._Q, not by the student, or hidden (the query stays put)
        qi = self._query_index()
        self._Q[qi] = [s.value for s in self.query_sliders]
        self._request_refresh()

    def _load_sliders(self, qi: int) -> None:
        """Show token ``qi``'s query on the sliders without editing any query."""
        self._loading_sliders = True
        try:
            for d, slider in enumerate(self.query_sliders):
                slider.value = float(np.clip(self._Q[qi, d], slider.min, slider.max))
        finally:
            self._loading_sliders = False

    def _on_token(self, change) -> None:
        if not self._shown("token"):
            return
        with self.batch_updates():
            self._load_sliders(change["new"])
            self._request_refresh()

    def _on_control(self, change) -> None:
        self._request_refresh()

    def refresh(self) -> None:
        """Recompute the numbers, update the plots in place, and send one new PNG."""
        self._dirty = False
        self.state = state = self._compute()
        self._fig.update(state)
        # Titles and the masked-cells note are drawn in the background: redraw it when they
        # change (token, toggles), and only blit while a slider moves.
        static_key = (state.query_index, state.causal, state.hard, state.scale)
        if static_key != self._static_key:
            self._renderer.invalidate()
            self._static_key = static_key
        png = self._renderer.render()
        if isinstance(self.figure.get_layout_engine(), ConstrainedLayoutEngine):
            # Freeze the constrained layout found on the first draw: re-running it on every
            # background redraw (a toggle) would cost more than the draw itself.
            self.figure.set_layout_engine("none")
        self.render_count += 1
        # One comm message for the picture and its alt text, not two: the browser repaints once
        with self.image.hold_sync():
            self.image.value = png
            self.image.tooltip = self._alt_text()
        self.readout.value = self._readout_html()
        self._show_results(not self._predicting() or self._revealed)

    def reset(self) -> None:
        """Back to the opening numbers: the chapter's queries, toggles and score scale 1."""
        with self.batch_updates():
            self._Q = self._Q0.copy()
            self.scale_checkbox.value = self._initial["scale"]
            self.causal_checkbox.value = False
            self.mode_buttons.value = "soft"
            self.score_scale_slider.value = 1.0
            self.token_dropdown.value = self._initial["query_index"]
            self._load_sliders(self._query_index())
            self._request_refresh()

    # -- text ---------------------------------------------------------------------------------

    def _alt_text(self) -> str:
        s = self.state
        token = self.tokens[s.query_index]
        weights = ", ".join(f"{t} {_fmt(w)}" for t, w in zip(self.tokens, s.weights, strict=True))
        return (
            f"Attention heatmap, weights bar chart and vector plot for the query “{token}” "
            f"{_vec(s.query)}: weights {weights}; output {_vec(s.output)}."
        )

    def _readout_html(self) -> str:
        s = self.state
        token = html.escape(self.tokens[s.query_index])
        d_k = self._K.shape[1]
        formula = "q·k"
        if s.scale:
            formula += f" / √{d_k}"
        if s.beta != 1:
            formula = f"β × {formula} (β = {_fmt(s.beta)})"
        mode = "hard: all weight to the best key" if s.hard else "softmax of the scores"
        rows = []
        for j, tok in enumerate(self.tokens):
            allowed = s.mask is None or s.mask[s.query_index, j]
            score = _fmt(s.scores[j]) if allowed else "masked (−∞)"
            weight = _fmt(s.weights[j]) + ("" if allowed else " (masked)")
            rows.append(
                f"<tr><th scope='row'>{html.escape(tok)}</th><td>{_vec(self._K[j])}</td>"
                f"<td>{score}</td><td>{weight}</td><td>{_vec(self._V[j])}</td></tr>"
            )
        return (
            _TABLE_STYLE + "<table style='border-collapse:collapse;text-align:right'>"
            f"<caption style='text-align:left'>Query “{token}” q = {_vec(s.query)}; "
            f"score = {formula}; weight = {mode}</caption>"
            "<thead><tr><th scope='col'>key token</th><th scope='col'>key k</th>"
            "<th scope='col'>score</th><th scope='col'>weight</th><th scope='col'>value v</th>"
            "</tr></thead><tbody>" + "".join(rows) + "</tbody>"
            f"<tfoot><tr><th scope='row'>output</th><td colspan='4'>{_vec(s.output)} "
            "= Σ weight × v</td></tr></tfoot></table>"
        )

    # -- prediction mode ----------------------------------------------------------------------

    def _show_results(self, visible: bool) -> None:
        display = None if visible else "none"
        self.image.layout.display = display
        self.readout.layout.display = display
        self.prediction_hint.layout.display = "none" if visible else None

    def _on_prediction_mode(self, change) -> None:
        if not self._shown("predict"):
            return
        self._revealed = False
        self.prediction_box.layout.display = None if change["new"] else "none"
        self.prediction_feedback.value = ""
        self._show_results(not change["new"])

    @property
    def predictions(self) -> np.ndarray:
        """The student's guesses, shape (n,)."""
        return np.array([w.value for w in self.prediction_inputs], dtype=float)

    def reveal(self) -> np.ndarray:
        """Show the weights and how far the guesses were; returns guess minus actual, (n,)."""
        guesses = self.predictions
        errors = guesses - self.weights
        self._revealed = True
        self._show_results(True)
        self.prediction_feedback.value = self._feedback_html(guesses, errors)
        return errors

    def _feedback_html(self, guesses: np.ndarray, errors: np.ndarray) -> str:
        rows = "".join(
            f"<tr><th scope='row'>{html.escape(t)}</th><td>{_fmt(g)}</td><td>{_fmt(w)}</td>"
            f"<td>{'+' if e > 0.0005 else ''}{_fmt(e)}</td></tr>"
            for t, g, w, e in zip(self.tokens, guesses, self.weights, errors, strict=True)
        )
        worst = int(np.argmax(np.abs(errors)))
        mean_abs = float(np.mean(np.abs(errors)))
        verdict = (
            "Very close: every guess within 0.05."
            if np.abs(errors).max() <= 0.05
            else f"Largest miss: “{html.escape(self.tokens[worst])}”, off by "
            f"{_fmt(abs(errors[worst]))}."
        )
        total = guesses.sum()
        sum_note = (
            ""
            if abs(total - 1) < 0.015
            else f" Your guesses add up to {_fmt(total)}, but softmax weights always add up to 1."
        )
        return (
            _TABLE_STYLE + "<table style='border-collapse:collapse;text-align:right'>"
            "<caption style='text-align:left'>Your guesses against the real weights</caption>"
            "<thead><tr><th scope='col'>key</th><th scope='col'>guess</th>"
            "<th scope='col'>weight</th><th scope='col'>guess − weight</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            f"<p>Mean absolute error {_fmt(mean_abs)}. {verdict}{sum_note}</p>"
        )

    # -- display and lifetime -----------------------------------------------------------------

    def to_png(self) -> bytes:
        """The figure as it is now, as PNG bytes."""
        return bytes(self.image.value) or self._renderer.render()

    def __repr__(self) -> str:
        s = self.state
        token = self.tokens[s.query_index]
        return (
            f"QueryExplorer(query “{token}” = {_vec(s.query)}, weights "
            f"{_vec(s.weights)}, output {_vec(s.output)})"
        )

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        """The live widget, plus a PNG and text for places without a widget manager.

        nbconvert skips the widget view when no widget state was saved and GitHub never
        renders it; both then show the PNG of the state the explorer was displayed in.
        """
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        bundle["image/png"] = base64.b64encode(self.to_png()).decode("ascii")
        bundle["text/html"] = self._static_html()
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        return bundle

    def _static_html(self) -> str:
        """The figure (with its alt text) and the readout table, as a static page shows them.

        In prediction mode before the reveal the live widget hides both (they give the weights
        away), and so does this: only the hint is shown.
        """
        if self.readout.layout.display == "none":
            return f'<div class="attention-explorer">{self.prediction_hint.value}</div>'
        readout = f'<div class="attention-explorer-readout">{self.readout.value}</div>'
        return static_widget_html(self.to_png(), self._alt_text(), readout, "attention-explorer")

    def close(self) -> None:
        """Close every widget of the explorer and free its figure."""
        # The figure is not cleared: it is freed with the explorer, and clearing can run
        # during interpreter shutdown (ipywidgets calls close() from __del__).
        for widget in _descendants(self):
            widget.close()
        super().close()


def _check_controls(controls) -> tuple[str, ...]:
    """The controls to show, in layout order; a clear error for a name that is not one."""
    if controls is None:
        return CONTROLS
    names = (controls,) if isinstance(controls, str) else tuple(controls)
    unknown = [name for name in names if name not in CONTROLS]
    if unknown:
        raise ValueError(
            f"unknown explorer control(s) {', '.join(map(repr, unknown))}; "
            f"choose from {', '.join(map(repr, CONTROLS))}"
        )
    return tuple(name for name in CONTROLS if name in names)


def _descendants(box: widgets.Box) -> list[widgets.Widget]:
    out = []
    for child in box.children:
        if isinstance(child, widgets.Box):
            out.extend(_descendants(child))
        out.append(child)
    return out
