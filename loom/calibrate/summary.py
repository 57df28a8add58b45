"""Summaries and printing: per point, per (chip, kernel, config type, dtype, size class), skips.

Error of a point: predicted / measured - 1 (positive: the simulator predicts a longer time, or a
larger figure for rates). Groups: (chip, kernel, config type, dtype, size class) and the metric
compared (device time and host time are never mixed). Per group: n; geomean |error| (geometric
mean of |error|, each floored at 0.01 %, as `loom.bench.paper` computes it); max |error|; signed
mean of the errors.
"""

from __future__ import annotations

import math
from collections import Counter

from loom.calibrate.common import Row

SIZE_CLASSES = ((1.0, "<1 GFLOP"), (100.0, "1-100 GFLOP"), (math.inf, ">100 GFLOP"))


def size_class(row: Row) -> str:
    if row.gflop is None:
        return "-"
    return next(label for bound, label in SIZE_CLASSES if row.gflop < bound)


def group_key(row: Row) -> tuple[str, str, str, str, str, str]:
    return (row.chip, row.kernel, row.config_type or "-", row.dtype or "-", size_class(row), row.metric or "-")


def summarise(rows: list[Row]) -> list[dict]:
    """One entry per group of compared points (skipped points are counted by `skips`)."""
    groups: dict[tuple, list[Row]] = {}
    for r in rows:
        if r.skipped is None and r.error is not None and r.predicted and r.predicted > 0:
            groups.setdefault(group_key(r), []).append(r)
    out = []
    for key in sorted(groups):
        rs = groups[key]
        errs = [r.error for r in rs]
        logs = [math.log(max(abs(e), 1e-4)) for e in errs]
        worst = max(rs, key=lambda r: abs(r.error))
        out.append({"chip": key[0], "kernel": key[1], "config_type": key[2], "dtype": key[3],
                    "size_class": key[4], "metric": key[5], "n": len(rs),
                    "geomean_abs_error": math.exp(sum(logs) / len(logs)),
                    "max_abs_error": abs(worst.error), "max_error_id": worst.id,
                    "signed_mean_error": sum(errs) / len(errs)})
    return out


def rollup(rows: list[Row]) -> list[dict]:
    """The same statistics per (chip, kernel, config type, dtype, metric), all size classes together."""
    merged = [Row(r.id, r.chip, r.kernel, r.metric, r.measured, r.predicted, r.skipped, r.arch, r.config_type,
                  r.dtype, None) for r in rows]
    return summarise(merged)


def skips(rows: list[Row]) -> list[tuple[str, int, list[str]]]:
    """(reason, count, ids) of skipped points, most frequent first."""
    ids: dict[str, list[str]] = {}
    for r in rows:
        if r.skipped is not None:
            ids.setdefault(r.skipped, []).append(r.id)
    return sorted(((k, len(v), v) for k, v in ids.items()), key=lambda t: (-t[1], t[0]))


def _pct(x: float) -> str:
    return f"{100 * x:+.1f}%"


def point_table(rows: list[Row]) -> str:
    """Text table, one line per point (skipped points with their reason)."""
    lines = [(f"{'id':8s} {'chip':15s} {'kernel':13s} {'config':22s} {'dtype':8s} {'metric':18s} "
              f"{'measured':>11s} {'predicted':>11s} {'error':>8s}  note")]
    for r in rows:
        if r.skipped is not None:
            lines.append(f"{r.id:8s} {r.chip[:15]:15s} {r.kernel[:13]:13s} {'-':22s} {'-':8s} {'-':18s} "
                         f"{'':>11s} {'':>11s} {'skip':>8s}  {r.skipped}")
            continue
        lines.append(f"{r.id:8s} {r.chip[:15]:15s} {r.kernel[:13]:13s} {(r.config_type or '-')[:22]:22s} "
                     f"{(r.dtype or '-')[:8]:8s} {(r.metric or '-')[:18]:18s} {r.measured:11.4g} "
                     f"{r.predicted:11.4g} {_pct(r.error):>8s}  {r.note}")
    return "\n".join(lines)


def summary_table(summary: list[dict], rows: list[Row]) -> str:
    """The per-group table and the skip counts."""
    lines = [(f"{'chip':15s} {'kernel':13s} {'config type':22s} {'dtype':9s} {'size':12s} {'metric':16s} "
              f"{'n':>4s} {'geomean|e|':>10s} {'max|e|':>8s} {'signed':>8s}  worst")]
    for s in summary:
        lines.append(f"{s['chip'][:15]:15s} {s['kernel'][:13]:13s} {s['config_type'][:22]:22s} {s['dtype'][:9]:9s} "
                     f"{s['size_class']:12s} {s['metric'][:16]:16s} {s['n']:4d} "
                     f"{100 * s['geomean_abs_error']:9.1f}% {100 * s['max_abs_error']:7.1f}% "
                     f"{_pct(s['signed_mean_error']):>8s}  {s['max_error_id']}")
    lines.append("\nall size classes together:")
    for s in rollup(rows):
        lines.append(f"{s['chip'][:15]:15s} {s['kernel'][:13]:13s} {s['config_type'][:22]:22s} {s['dtype'][:9]:9s} "
                     f"{'all':12s} {s['metric'][:16]:16s} {s['n']:4d} "
                     f"{100 * s['geomean_abs_error']:9.1f}% {100 * s['max_abs_error']:7.1f}% "
                     f"{_pct(s['signed_mean_error']):>8s}  {s['max_error_id']}")
    compared = sum(s["n"] for s in summary)
    skipped = skips(rows)
    lines.append(f"\n{len(rows)} points: {compared} compared, {sum(n for _, n, _ in skipped)} skipped")
    for reason, n, ids in skipped:
        shown = ", ".join(ids[:6]) + (", ..." if len(ids) > 6 else "")
        lines.append(f"  {n:4d}  {reason}  [{shown}]")
    return "\n".join(lines)


def counts_by_kernel(rows: list[Row]) -> Counter:
    return Counter((r.chip, r.kernel, r.skipped is None) for r in rows)
