"""A matplotlib figure or Axes from a student's kernel, as a read-only snapshot of its data.

The student's figure never leaves their kernel; ``_kernel_side.py`` (``_figure_data``) reads
what a test usually checks: each Axes' lines (data, label, colour, style), bars (rectangles),
scatter offsets, texts, title, axis labels, limits, scales and legend entries. Here they are
rebuilt as plain objects with the getters matplotlib has (``ax.lines[0].get_data()``,
``ax.get_title()``), so an ordinary test reads them unchanged. Anything else raises
``AttributeError`` and is recorded (the cell then needs a teacher, never a silent zero).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["AxesSnapshot", "FigureSnapshot", "figure_from", "axes_from"]


class _Snapshot:
    _kind = "snapshot"

    def __init__(self, data: dict[str, Any], missing: list[str]):
        self._data = data
        self._missing = missing

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self._missing.append(
            f"the test reads `{name}` of a matplotlib {self._kind}, which the grader's read-only "
            "snapshot does not hold"
        )
        raise AttributeError(f"{self._kind} snapshot has no {name}")

    def _get(self, key: str, default: object = None) -> Any:
        # Any: decoded plain data from the kernel, whatever shape it arrived in; each getter
        # reads it as matplotlib's getter would (a wrong shape raises, as it would there)
        return self._data.get(key, default)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


class _Text(_Snapshot):
    _kind = "Text"

    def get_text(self) -> str:
        return _text(self._get("text"))


class _Line(_Snapshot):
    _kind = "Line2D"

    def get_xdata(self, orig: bool = True) -> np.ndarray:
        return np.asarray(self._get("x", []))

    def get_ydata(self, orig: bool = True) -> np.ndarray:
        return np.asarray(self._get("y", []))

    def get_data(self, orig: bool = True) -> tuple[np.ndarray, np.ndarray]:
        return self.get_xdata(), self.get_ydata()

    def get_xydata(self) -> np.ndarray:
        return np.column_stack([self.get_xdata(), self.get_ydata()]).astype(float)

    def get_label(self) -> str:
        return _text(self._get("label"))

    def get_color(self) -> str:
        return _text(self._get("color"))

    def get_linestyle(self) -> str:
        return _text(self._get("linestyle"))

    def get_marker(self) -> str:
        return _text(self._get("marker"))

    def get_linewidth(self) -> float:
        return float(self._get("linewidth", 0.0))


class _Rectangle(_Snapshot):
    _kind = "Rectangle"

    def get_x(self) -> Any:
        return self._get("x")

    def get_y(self) -> Any:
        return self._get("y")

    def get_width(self) -> Any:
        return self._get("width")

    def get_height(self) -> Any:
        return self._get("height")

    def get_xy(self) -> tuple[Any, Any]:
        return (self.get_x(), self.get_y())

    def get_label(self) -> str:
        return _text(self._get("label"))


class _Collection(_Snapshot):
    _kind = "Collection"

    def get_offsets(self) -> np.ndarray:
        return np.asarray(self._get("offsets", []), dtype=float).reshape(-1, 2)

    def get_label(self) -> str:
        return _text(self._get("label"))


class _Legend(_Snapshot):
    _kind = "Legend"

    def get_texts(self) -> list[_Text]:
        return [_Text({"text": t}, self._missing) for t in self._get("texts", [])]


class AxesSnapshot(_Snapshot):
    """What a test reads of one ``matplotlib.axes.Axes``."""

    _kind = "Axes"

    def __init__(self, data: dict[str, Any], missing: list[str]):
        super().__init__(data, missing)
        self.lines = [_Line(d, missing) for d in self._get("lines", [])]
        self.patches = [_Rectangle(d, missing) for d in self._get("patches", [])]
        self.collections = [_Collection(d, missing) for d in self._get("collections", [])]
        self.texts = [_Text({"text": t}, missing) for t in self._get("texts", [])]

    def get_lines(self) -> list[_Line]:
        return list(self.lines)

    def get_title(self, loc: str = "center") -> str:
        return _text(self._get("title", {}).get(loc, ""))

    def get_xlabel(self) -> str:
        return _text(self._get("xlabel"))

    def get_ylabel(self) -> str:
        return _text(self._get("ylabel"))

    def get_xlim(self) -> tuple[Any, ...]:
        return tuple(self._get("xlim", ()))

    def get_ylim(self) -> tuple[Any, ...]:
        return tuple(self._get("ylim", ()))

    def get_xscale(self) -> str:
        return _text(self._get("xscale"))

    def get_yscale(self) -> str:
        return _text(self._get("yscale"))

    def get_legend(self) -> _Legend | None:
        texts = self._get("legend")
        return None if texts is None else _Legend({"texts": texts}, self._missing)

    def get_legend_handles_labels(self) -> tuple[list[_Line], list[str]]:
        labels = [line.get_label() for line in self.lines if not line.get_label().startswith("_")]
        return [line for line in self.lines if not line.get_label().startswith("_")], labels


class FigureSnapshot(_Snapshot):
    """What a test reads of a ``matplotlib.figure.Figure``: its Axes and suptitle."""

    _kind = "Figure"

    def __init__(self, data: dict[str, Any], missing: list[str]):
        super().__init__(data, missing)
        self.axes = [AxesSnapshot(d, missing) for d in self._get("axes", [])]

    def get_axes(self) -> list[AxesSnapshot]:
        return list(self.axes)

    def get_suptitle(self) -> str:
        return _text(self._get("suptitle"))


def _plain(value: object) -> dict[str, Any]:
    """Return snapshot data if it is a mapping (the decoder made it plain dicts, lists, str)."""
    if not isinstance(value, dict):
        raise ValueError("a figure snapshot that is not a mapping")
    return value


def axes_from(data: object, missing: list[str]) -> AxesSnapshot:
    """Return the snapshot of one Axes from decoded data; reads it lacks go to ``missing``."""
    return AxesSnapshot(_plain(data), missing)


def figure_from(data: object, missing: list[str]) -> FigureSnapshot:
    """Return the snapshot of a figure from decoded data; reads it lacks go to ``missing``."""
    return FigureSnapshot(_plain(data), missing)
