"""Kernel-side rendering for the live widgets: Agg, blitting, and a fast PNG encode.

Each choice below keeps a slider step short enough to feel live in the browser; the figures
that decided them are in docs/design.md ("Benchmarks", dated), where ``make bench`` re-measures
them.

Why Agg + PNG rather than ipympl: swapping the PNG of an ``ipywidgets.Image`` costs the browser
much less than moving an ipympl figure in place, and it needs no frontend extension, so it works
the same in JupyterLab 4, Notebook 7, on a JupyterHub and headless under nbclient (nothing waits
for a browser).

Why blitting: only a few artists change when the query moves (the heatmap image and its texts,
the bars, the query arrow, the output point), so the static rest (axes, ticks, labels, colour
bar, key arrows) is drawn once into a saved background; each update restores that background
and draws just the changing artists over it (``Figure.draw_artist``), as matplotlib's blitting
tutorial does. A full ``canvas.draw()`` would redo all of it on every step.

Why a glyph cache: matplotlib lays out and rasterises every string through FreeType and libraqm
on every draw, and a widget redraws a score of labels per frame. :class:`CachingRendererAgg`
records the glyph bitmaps matplotlib produces for a string the first time and replays them
afterwards; text is placed on whole pixels so a recorded string is pixel-identical wherever it
is drawn again.

Why our own PNG writer (:func:`png_bytes`): Pillow (which ``savefig`` uses) picks a PNG filter
for every row adaptively, and that costs more than the compression; one numpy subtraction (the
'Up' filter) and a level-1 deflate encode the same pixels faster, for a file of the same size.
Level 1: the PNG goes to a browser once, on the same machine or network, where a smaller file
is not worth a slower encode.

Why ISA-L (``isal``) for the deflate: it writes the same standard zlib stream several times
faster than zlib, and the deflate is a visible share of a slider step. Without ``isal``
installed, zlib does the same job, slower.
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable, Iterable
from typing import Any, Literal

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backend_bases import GraphicsContextBase
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.text import Text
from numpy.typing import ArrayLike

__all__ = [
    "LayoutCachedText",
    "BlitRenderer",
    "CachingCanvasAgg",
    "CachingRendererAgg",
    "encode_png",
    "figure_png",
    "png_bytes",
]

try:  # ISA-L's deflate: same zlib stream, ~7x faster at level 1 (a dependency; see above)
    from isal.isal_zlib import compress as _deflate
except ImportError:  # pragma: no cover - an environment made before isal was pinned
    from zlib import compress as _deflate

_GLYPH_CACHE_SIZE = 2048  # strings; the explorer uses a few hundred ("0.00" .. "1.00", labels)


class _GlyphRecorder:
    """Stands in for the C renderer while matplotlib draws a string; records the glyphs."""

    # the C renderer (matplotlib's _backend_agg, whose stub declares nothing)
    def __init__(self, renderer: Any, x: int, y: int) -> None:
        self._renderer = renderer
        self._x, self._y = x, y
        self.glyphs: list[tuple[np.ndarray, int, int]] = []
        self.other_calls = 0

    def draw_text_image(
        self, image: ArrayLike, x: float, y: float, angle: float, gc: GraphicsContextBase
    ) -> None:
        self.glyphs.append((np.array(image, copy=True), int(x) - self._x, int(y) - self._y))
        self._renderer.draw_text_image(image, x, y, angle, gc)

    def __getattr__(self, name: str) -> Any:  # whatever the C renderer holds
        self.other_calls += 1  # e.g. boxes drawn as paths: not a plain run of glyphs
        return getattr(self._renderer, name)


class CachingRendererAgg(RendererAgg):
    """``RendererAgg`` that caches the glyph bitmaps of plain (non-math) text.

    Text is drawn at whole-pixel positions (at most half a pixel from where matplotlib would
    put it); the first time a string is drawn with given font properties and angle,
    matplotlib's own ``draw_text`` renders it and the glyph images it composites are recorded;
    later draws composite the recorded images with the current colour. Math text and anything
    that draws more than glyph images falls back to ``RendererAgg.draw_text``.
    """

    def __init__(self, width: int, height: int, dpi: float) -> None:
        super().__init__(width, height, dpi)  # type: ignore[no-untyped-call]  # backend_agg has no annotations
        self._glyph_cache: dict[tuple[object, ...], list[tuple[np.ndarray, int, int]] | None] = {}

    def draw_text(
        self,
        gc: GraphicsContextBase,
        x: float,
        y: float,
        s: str,
        prop: FontProperties,
        angle: float,
        ismath: bool | Literal["TeX"] = False,
        mtext: Text | None = None,
    ) -> None:
        if ismath:
            super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)  # type: ignore[no-untyped-call]  # as above
            return
        x, y = round(x), round(y)
        key = (
            s,
            hash(prop),
            prop.get_size_in_points(),
            angle,
            gc.get_antialiased(),
            None if mtext is None else (mtext.get_fontfeatures(), mtext.get_language()),
        )
        glyphs = self._glyph_cache.get(key, False)
        if glyphs is False:
            recorder = _GlyphRecorder(self._renderer, x, y)
            self._renderer = recorder
            try:
                super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)  # type: ignore[no-untyped-call]  # as above
            finally:
                self._renderer = recorder._renderer
            if len(self._glyph_cache) >= _GLYPH_CACHE_SIZE:
                self._glyph_cache.clear()
            self._glyph_cache[key] = None if recorder.other_calls else recorder.glyphs
            return None
        if glyphs is None:  # not cacheable
            super().draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)  # type: ignore[no-untyped-call]  # as above
            return
        assert isinstance(glyphs, list)  # False (not cached yet) was handled above
        for image, dx, dy in glyphs:
            self._renderer.draw_text_image(image, x + dx, y + dy, 0, gc)
        return None


_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")
_TABULAR: dict[tuple[object, ...], bool] = {}


def _tabular_digits(prop: FontProperties, renderer: RendererAgg) -> bool:
    """Whether every digit of this font has the same advance width (true of DejaVu Sans)."""
    key = (hash(prop), prop.get_size_in_points(), renderer.dpi, type(renderer))
    if key not in _TABULAR:
        widths = {renderer.get_text_width_height_descent(d, prop, False) for d in "0123456789"}
        _TABULAR[key] = len(widths) == 1
    return _TABULAR[key]


class LayoutCachedText(Text):
    """A ``Text`` that remembers its layout for each string it has shown.

    ``Text.draw`` measures the string (a FreeType layout) and works out line offsets on every
    draw; for a cell label redrawn on every frame that costs more than drawing the glyphs. The layout (offsets relative to the anchor) depends only on the string,
    font, alignment, rotation and dpi, which make the cache key. When the font's digits all
    have the same width, digits are replaced by 0 in the key, so "0.613" reuses the layout of
    "0.248": a slider drag then measures no new strings at all. Wrapped and multi-line text,
    whose layout depends on more, is not cached.
    """

    _layouts: dict[tuple[object, ...], tuple[Any, ...]] = {}  # Text._get_layout's (private) results

    # Text._get_layout, _fontproperties and _linespacing are matplotlib's private API, which its
    # stubs leave out: the ignores below say so, they hide no error of ours.
    def _get_layout(self, renderer: RendererAgg) -> tuple[Any, ...]:  # drawn on Agg canvases
        text = self.get_text()
        if self.get_wrap() or self.get_usetex() or "\n" in text or "$" in text:
            whole: tuple[Any, ...] = super()._get_layout(renderer)  # type: ignore[misc]
            return whole
        font = self._fontproperties  # type: ignore[attr-defined]
        shape = text
        if _tabular_digits(font, renderer):
            shape = text.translate(_DIGITS_TO_ZERO)
        figure = self.get_figure(root=True)
        assert figure is not None  # a text being drawn is in a figure
        key = (
            shape,
            hash(font),
            font.get_size_in_points(),
            self.get_rotation(),
            self.get_rotation_mode(),
            self.get_horizontalalignment(),
            self.get_verticalalignment(),
            self._linespacing,  # type: ignore[attr-defined]
            figure.dpi,
            type(renderer),
        )
        layout = self._layouts.get(key)
        if layout is None:
            if len(self._layouts) >= _GLYPH_CACHE_SIZE:
                self._layouts.clear()
            self._text = shape  # measure the digit shape, which stands for all such strings
            try:
                layout = self._layouts[key] = super()._get_layout(renderer)  # type: ignore[misc]
            finally:
                self._text = text
        bbox, info, box = layout
        return bbox, [(text, wad, xy) for _line, wad, xy in info], box


class CachingCanvasAgg(FigureCanvasAgg):
    """An Agg canvas whose renderer is a :class:`CachingRendererAgg`."""

    def get_renderer(self) -> RendererAgg:
        w, h = self.get_width_height(physical=True)
        key = w, h, self.figure.dpi
        if self._lastKey != key:
            self.renderer = CachingRendererAgg(w, h, self.figure.dpi)
            self._lastKey = key
        renderer: RendererAgg = self.renderer
        return renderer


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(image: np.ndarray, compress_level: int = 1) -> bytes:
    """Encode an (height, width, 3 or 4) uint8 image as PNG, with the 'Up' filter on every row.

    Pillow and matplotlib's ``savefig`` choose a PNG filter per row adaptively, which costs
    more than the compression itself on a 1000 x 340 plot; the 'Up' filter (each row minus the
    row above, one numpy subtraction) suits plots, whose rows mostly repeat the one above.

    Parameters
    ----------
    image : numpy.ndarray of uint8, shape (height, width, 3) or (height, width, 4)
        RGB or RGBA pixels, top row first.
    compress_level : int, default 1
        Deflate level: 0-3 with ISA-L (``isal``), 0-9 with zlib.

    Returns
    -------
    bytes
        A complete PNG file (8 bits per channel, no interlacing).
    """
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(
            f"expected a uint8 (height, width, 3 or 4) image, got {image.dtype} {image.shape}"
        )
    height, width, channels = image.shape
    rows = np.ascontiguousarray(image).reshape(height, width * channels)
    filtered = np.empty((height, width * channels + 1), dtype=np.uint8)
    filtered[:, 0] = 2  # filter type 'Up'; the row above the first one counts as zeros
    filtered[0, 1:] = rows[0]
    np.subtract(rows[1:], rows[:-1], out=filtered[1:, 1:])  # uint8 wraps modulo 256, as PNG wants
    colour_type = 6 if channels == 4 else 2  # RGBA or RGB
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", _deflate(filtered, compress_level)),
            _png_chunk(b"IEND", b""),
        )
    )


def encode_png(canvas: FigureCanvasAgg, compress_level: int = 1) -> bytes:
    """Encode the canvas's current pixels (whatever was last drawn) as a PNG.

    Parameters
    ----------
    canvas : FigureCanvasAgg
        A canvas that has been drawn (``draw()`` or blitted).
    compress_level : int, default 1
        zlib level 0-9; 1 is fast and still small for flat-colour plots.

    Returns
    -------
    bytes
        The PNG file (RGBA: dropping the opaque alpha would need a strided copy that costs
        more than compressing it; after the 'Up' filter it is all zeros).
    """
    return png_bytes(np.asarray(canvas.buffer_rgba()), compress_level)


def figure_png(figure: Figure, dpi: float | None = None) -> bytes:
    """Draw ``figure`` from scratch and return PNG bytes (the slow, naive path)."""
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=dpi)
    return out.getvalue()


class BlitRenderer:
    """Render a figure to PNG, redrawing only its dynamic artists after the first time.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        Made with ``Figure()`` (not pyplot), so it is never registered with pyplot, never shown
        by the inline backend, and is garbage-collected with its owner. An Agg canvas is
        attached if it has none.
    dynamic_artists : callable returning an iterable of Artist
        The artists that may change between renders, in drawing order. Called on every render,
        so the list may change (e.g. texts that appear).
    cache_text : bool, default True
        Attach a :class:`CachingCanvasAgg` (glyph cache) instead of a plain Agg canvas.

    Notes
    -----
    Call :meth:`invalidate` after changing anything *static* (limits, tick labels, a legend):
    the next :meth:`render` then redraws everything and saves a new background.
    """

    def __init__(
        self,
        figure: Figure,
        dynamic_artists: Callable[[], Iterable[Artist]],
        cache_text: bool = True,
    ):
        if cache_text and not isinstance(figure.canvas, CachingCanvasAgg):
            CachingCanvasAgg(figure)
        elif not isinstance(figure.canvas, FigureCanvasAgg):
            FigureCanvasAgg(figure)
        self.figure = figure
        assert isinstance(figure.canvas, FigureCanvasAgg)  # made so just above
        self.canvas: FigureCanvasAgg = figure.canvas
        self._dynamic = dynamic_artists
        self._background = None
        self.full_draws = 0
        self.blits = 0

    def invalidate(self) -> None:
        """Forget the saved background; the next render redraws the whole figure."""
        self._background = None

    def _draw_background(self, artists: list[Artist]) -> None:
        """Full draw without the dynamic artists, then save those pixels as the background."""
        visible = [a.get_visible() for a in artists]
        for artist in artists:
            artist.set_visible(False)
        try:
            self.canvas.draw()
            self._background = self.canvas.copy_from_bbox(self.figure.bbox)
        finally:
            for artist, was_visible in zip(artists, visible, strict=True):
                artist.set_visible(was_visible)
        self.full_draws += 1

    def draw(self) -> None:
        """Bring the canvas's pixels up to date (full draw if needed, otherwise a blit)."""
        artists = list(self._dynamic())
        if self._background is None:
            self._draw_background(artists)
        else:
            self.canvas.restore_region(self._background)
            self.blits += 1
        for artist in artists:
            if artist.get_visible():
                self.figure.draw_artist(artist)

    def render(self) -> bytes:
        """Draw (see :meth:`draw`) and return the figure as PNG bytes."""
        self.draw()
        return encode_png(self.canvas)
