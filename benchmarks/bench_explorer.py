"""Live widget latency: from a slider change to the figure fully re-rendered, kernel side.

Measured for every live widget of the lessons: ``slider.value = x`` on a
:class:`~attention_lab.explorer.query_explorer.QueryExplorer`, a :class:`~attention_lab.explorer.slider_widgets.QueryRotation`
and a :class:`~attention_lab.explorer.slider_widgets.HardSoftSlider`, which runs the same observer a
browser's message runs: recompute, update the artists, blit, encode the PNG and hand it to the
Image widget (and the readout). Beside each, in the same run, the naive way: compute, build the
whole figure again and ``savefig`` it to PNG.
Targets (issues 3 and 17): <= 25 ms median for <= 4 tokens, and >= 4x faster than the naive
rebuild.
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np

from benchmarks import Row, format_ms, median_p90, timings_ms

TARGET_MS = 25.0
TARGET_RATIO = 4.0


def _cases():
    from attention_lab import examples
    from attention_lab.explorer.query_explorer import QueryExplorer

    rng = np.random.default_rng(0)
    n = 32
    tokens = [f"t{i}" for i in range(n)]
    Q, K, V = (np.round(rng.normal(size=(n, 2)), 2) for _ in range(3))
    return [
        ("ISRO, 3 tokens", lambda: QueryExplorer.isro(), examples.ISRO.scale, 3),
        ("tiffin, 4 tokens", lambda: QueryExplorer.tiffin(), examples.TIFFIN.scale, 4),
        (f"random, {n} tokens", lambda: QueryExplorer(tokens, Q, K, V), True, n),
    ]


def _slider_values():
    """Yield an endless drag back and forth in the slider's 0.05 steps (each value differs)."""
    values = np.round(np.concatenate([np.arange(-2, 2, 0.05), np.arange(2, -2, -0.05)]), 2)
    while True:
        yield from values.tolist()


def _cpu_ms(fn, repeat: int) -> float:
    """Median CPU time of ``fn`` in this process (what the kernel spends, whatever the load)."""
    samples = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        samples.append((time.process_time() - t0) * 1e3)
    return statistics.median(samples)


def _measure(make, repeat: int, naive_repeat: int):
    from attention_lab.explorer.figure import render_naive
    from attention_lab.explorer.model import compute_state

    explorer = make()
    try:
        slider = explorer.query_sliders[0]
        values = _slider_values()

        def live():
            slider.value = next(values)

        def naive():
            # The same work without keeping anything: numbers, a new figure, savefig to PNG.
            explorer.model.Q[explorer.token_dropdown.value, 0] = next(values)
            state = compute_state(
                explorer.model.Q, explorer.model.K, explorer.model.V, explorer.token_dropdown.value,
                scale=explorer.scale_checkbox.value,
            )  # fmt: skip
            png = render_naive(
                explorer.tokens, explorer.model.K, explorer.model.V, state, explorer._limits
            )
            explorer.image.value = png

        fast = median_p90(timings_ms(live, repeat=repeat, warmup=3))
        slow = median_p90(timings_ms(naive, repeat=naive_repeat, warmup=1))
        cpu = (_cpu_ms(live, repeat), _cpu_ms(naive, max(3, naive_repeat // 2)))

        def toggle():
            explorer.causal_checkbox.value = not explorer.causal_checkbox.value

        background = median_p90(timings_ms(toggle, repeat=max(4, repeat // 5), warmup=1))
        return fast, slow, background, cpu
    finally:
        explorer.close()


def _slider_widget_cases():
    """(name, make the widget, naive rebuild for a value, the values a drag goes through)."""
    from attention_lab import demos
    from attention_lab._render import figure_png
    from attention_lab.examples import ISRO, TIFFIN
    from attention_lab.explorer.generation_figures import NextCharacterFigure
    from attention_lab.explorer.generation_widgets import TemperatureSlider
    from attention_lab.explorer.slider_widgets import HardSoftSlider, QueryRotation
    from attention_lab.transformer import init_model

    def rotation_naive(widget, angle):
        widget.image.value = figure_png(demos.RotationFigure(widget.example, angle).figure)

    def hard_soft_naive(widget, angle):
        fig = demos.HardSoftFigure(widget.sweep, component=0, at_deg=angle).figure
        widget.image.value = figure_png(fig)

    def temperature_naive(widget, t):
        fig = NextCharacterFigure(widget.logits, widget.chars, "how i wonder what you a")
        fig.update(t)
        widget.image.value = figure_png(fig.figure)

    def temperature_slider():
        return TemperatureSlider(init_model(seed=0), "how i wonder what you a")

    return [
        ("QueryRotation (lesson 0, 2), tiffin", lambda: QueryRotation(TIFFIN), rotation_naive,
         _angles),
        ("HardSoftSlider (lesson 5), ISRO", lambda: HardSoftSlider(ISRO), hard_soft_naive,
         _angles),
        ("TemperatureSlider (lesson 7)", temperature_slider, temperature_naive, _temperatures),
    ]  # fmt: skip


def _angles():
    """Yield an endless back-and-forth drag in 1-degree steps between 0 and 90 degrees."""
    values = [float(a) for a in [*range(0, 90), *range(90, 0, -1)]]
    while True:
        yield from values


def _temperatures():
    """Yield an endless back-and-forth drag of the temperature in the slider's steps, 0.1 to 3."""
    up = [round(0.1 + 0.05 * i, 2) for i in range(59)]
    while True:
        yield from up
        yield from up[::-1]


def _slider_widget_rows(repeat: int, naive_repeat: int) -> list[Row]:
    out = []
    for name, make, naive_render, drag in _slider_widget_cases():
        widget = make()
        try:
            angles = drag()

            def live(widget=widget, angles=angles):
                widget.slider.value = next(angles)

            def naive(widget=widget, angles=angles, naive_render=naive_render):
                naive_render(widget, next(angles))

            fast, fast90 = median_p90(timings_ms(live, repeat=repeat, warmup=3))
            slow, slow90 = median_p90(timings_ms(naive, repeat=naive_repeat, warmup=1))
        finally:
            widget.close()
        ratio = slow / fast
        out.append(
            Row(
                area="widgets",
                case=f"slider -> figure re-rendered (blit + PNG), {name}",
                value=format_ms(fast, fast90),
                baseline=f"naive rebuild: {format_ms(slow, slow90)}",
                ratio=f"{ratio:.1f}x faster",
                target=f"<= {TARGET_MS:.0f} ms, >= {TARGET_RATIO:.0f}x",
                ok=fast <= TARGET_MS and ratio >= TARGET_RATIO,
            )
        )
    return out


def rows(repeat: int = 60, naive_repeat: int = 12) -> list[Row]:
    """Benchmark rows for every live widget (see the module docstring)."""
    out = _slider_widget_rows(repeat, naive_repeat)
    for name, make, _scale, n in _cases():
        (fast, fast90), (slow, slow90), (bg, bg90), (cpu, cpu_naive) = _measure(
            make, repeat, naive_repeat
        )
        ratio = slow / fast
        small = n <= 4
        out.append(
            Row(
                area="explorer",
                case=f"slider -> figure re-rendered (blit + PNG), {name}",
                value=f"{format_ms(fast, fast90)} (CPU {cpu:.1f} ms)",
                baseline=f"naive rebuild: {format_ms(slow, slow90)} (CPU {cpu_naive:.0f} ms)",
                ratio=f"{ratio:.1f}x faster",
                target=f"<= {TARGET_MS:.0f} ms, >= {TARGET_RATIO:.0f}x"
                if small
                else f">= {TARGET_RATIO:.0f}x",
                ok=(fast <= TARGET_MS if small else True) and ratio >= TARGET_RATIO,
            )
        )
        out.append(
            Row(
                area="explorer",
                case=f"toggle -> full redraw (new background + PNG), {name}",
                value=format_ms(bg, bg90),
            )
        )
    load = os.getloadavg()[0]
    out.append(
        Row(
            area="explorer",
            case="machine load while measuring (1-min load average / CPUs)",
            value=f"{load:.1f} / {os.cpu_count()}",
        )
    )
    return out


if __name__ == "__main__":
    for row in rows():
        print(row)
