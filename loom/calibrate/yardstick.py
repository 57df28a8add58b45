"""The yardstick's standing: how far loom.sim is from the published device measurements
(`../shared/reference/ground_truth/`), per architecture and kind of kernel, as `loom calibrate` last measured
it. Every speed figure Loom prints rests on the simulator, so `loom run` and `loom bench` print this beside it.

`yardstick.json` (next to this file) is written by `benchmarks/yardstick.py --tag TAG` from the rows that
`benchmarks/calibrate_all.py --tag TAG` wrote: only points compared on device-side time (host wall-clock rows
include dispatch the simulator does not run), grouped by the architecture description each point ran on.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

STANDING = Path(__file__).with_name("yardstick.json")

KINDS = {"gemm": "GEMM", "attention": "attention (SDPA)", "data_movement": "data movement"}
"""Kind of kernel -> how a line names it, in the order a line lists them."""

KERNEL_KIND = {"gemm": "gemm", "sdpa_prefill": "attention", "sdpa_decode": "attention",
               "data_movement": "data_movement"}
"""A ground-truth point's `kernel` -> its kind."""


def standing_from_rows(rows: list[dict]) -> list[dict]:
    """Per (architecture, kind): n, geomean |error|, signed mean and range, over the rows compared on
    device-side time (`loom calibrate --json` rows; error = predicted / measured - 1)."""
    groups: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        kind = KERNEL_KIND.get(row.get("kernel"))
        if row.get("skipped") or row.get("predicted") is None or kind is None or not row.get("measured") \
                or str(row.get("metric", "")).startswith("host"):
            continue
        groups.setdefault((row["arch"], kind), []).append(row["predicted"] / row["measured"] - 1)
    return [{"arch": arch, "kind": kind, "n": len(errors),
             "geomean_abs_error": math.exp(sum(math.log(max(abs(e), 1e-9)) for e in errors) / len(errors)),
             "signed_mean_error": sum(errors) / len(errors), "min_error": min(errors), "max_error": max(errors)}
            for (arch, kind), errors in sorted(groups.items())]


@cache
def _standing() -> dict:
    return json.loads(STANDING.read_text()) if STANDING.exists() else {"classes": [], "measured": "never"}


def kind_of(module) -> str:
    """The kind of published measurement nearest a compiled kernel: attention where a matmul meets an
    exponential, GEMM where a matmul does not, data movement otherwise (the published points time DRAM
    and NoC transfers; no point times elementwise compute alone)."""
    names = {op.name for op in module.walk()}
    if "linalg.matmul" not in names:
        return "data_movement"
    return "attention" if names & {"math.exp", "math.exp2"} else "gemm"


def yardstick_line(arch: str, kind: str | None = None) -> str:
    """One line: loom.sim's error against the published measurements of `arch`, the kernel's own kind
    first (all kinds when None)."""
    from loom.calibrate.common import CHIP_FAMILIES

    standing = _standing()
    # the same chip's other descriptions (Blackhole's 11x10 grid) stand in where this one has no points
    family = next((names for names in CHIP_FAMILIES.values() if arch in names), (arch,))
    classes: dict[str, dict] = {}
    for name in sorted(family, key=lambda n: n != arch):
        for c in standing["classes"]:
            if c["arch"] == name:
                classes.setdefault(c["kind"], c)
    if not classes:
        return f"no published measurement runs on {arch}: its simulated figures are unchecked"
    order = [kind] + [k for k in KINDS if k != kind] if kind else list(KINDS)
    parts = []
    for k in order:
        c = classes.get(k)
        if c is not None:
            parts.append(f"{KINDS[k]} {_figures(c)}" + (f" on {c['arch']}" if c["arch"] != arch else ""))
            continue
        elsewhere = next((c for c in standing["classes"] if c["kind"] == k), None)
        parts.append(f"{KINDS[k]} none published" + (f" (on {elsewhere['arch']}: {_figures(elsewhere)})"
                                                     if elsewhere else ""))
    return f"loom.sim vs published {arch} device times: " + "; ".join(parts) + f" [{standing['measured']}]"


def _figures(c: dict) -> str:
    return (f"{c['geomean_abs_error']:.1%} geomean |error|, n {c['n']}, signed {c['signed_mean_error']:+.0%} "
            f"({c['min_error']:+.0%} to {c['max_error']:+.0%})")
