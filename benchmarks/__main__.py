"""Run every ``benchmarks/bench_*.py`` (or those named on the command line) and print one table."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import traceback

import benchmarks
from benchmarks import Row


def _modules(selected: list[str]) -> list[str]:
    names = sorted(
        m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_")
    )
    if selected:
        names = [n for n in names if n in selected or n.removeprefix("bench_") in selected]
    return names


def _table(rows: list[Row]) -> str:
    header = ("area", "case", "measured", "baseline (same run)", "ratio", "target", "met")
    cells = [header] + [
        (
            r.area,
            r.case,
            r.value,
            r.baseline,
            r.ratio,
            r.target,
            "" if r.ok is None else ("yes" if r.ok else "NO"),
        )
        for r in rows
    ]
    widths = [max(len(c[i]) for c in cells) for i in range(len(header))]
    lines = [" | ".join(c[i].ljust(widths[i]) for i in range(len(header))) for c in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Run the benchmarks named in ``argv`` (all by default) and print one table."""
    rows: list[Row] = []
    failed = []
    for name in _modules(argv):
        print(f"running {name} ...", file=sys.stderr, flush=True)
        try:
            rows.extend(importlib.import_module(f"benchmarks.{name}").rows())
        except Exception:
            traceback.print_exc()
            failed.append(name)
    print(_table(rows))
    if failed:
        print(f"\nbenchmarks that crashed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
