"""Running the points: plan each one, simulate every distinct program once (in worker processes
with `jobs > 1`), and turn the figures into rows."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor

from loom.calibrate.common import Plan, Row, SimSpec, Skip
from loom.calibrate.points import Point

KERNELS = {"gemm": ("gemm",), "sdpa": ("sdpa_prefill", "sdpa_decode"), "data_movement": ("data_movement",)}
"""`--kernel` choices -> the `kernel` values of points they select."""


def plan_point(point: Point) -> Plan | Row:
    """A point's plan, or its row when it is skipped (with the reason)."""
    from loom.calibrate.data_movement import plan_data_movement
    from loom.calibrate.gemm import plan_gemm
    from loom.calibrate.sdpa import plan_sdpa

    planners = {"gemm": plan_gemm, "sdpa_prefill": plan_sdpa, "sdpa_decode": plan_sdpa,
                "data_movement": plan_data_movement}
    planner = planners.get(point.kernel)
    try:
        if planner is None:
            raise Skip(f"unknown kernel '{point.kernel}'")
        return planner(point)
    except Skip as skip:
        return Row(point.id, point.chip, point.kernel, skipped=skip.reason, note=skip.detail, file=point.file)
    except Exception as exc:  # noqa: BLE001 - one bad point must not stop the others
        return Row(point.id, point.chip, point.kernel, skipped=f"internal error: {type(exc).__name__}",
                   note=f"{exc}", file=point.file)


def _run_spec(spec: SimSpec) -> dict:
    try:
        return spec.run()
    except Exception as exc:  # noqa: BLE001 - reported per point as a skip
        return {"error": f"{type(exc).__name__}: {exc}".splitlines()[0][:200],
                "trace": traceback.format_exc(limit=3)}


def calibrate(points: Iterable[Point], jobs: int = 1,
              progress: Callable[[int, int], None] | None = None) -> list[Row]:
    """One row per point, in input order."""
    items = [plan_point(p) for p in points]
    specs: dict[SimSpec, dict | None] = {}
    for item in items:
        if isinstance(item, Plan):
            for s in item.specs:
                specs.setdefault(s, None)
    todo = list(specs)
    # Longest first (by the work it simulates) keeps the workers busy to the end.
    todo.sort(key=_weight, reverse=True)
    total = len(todo)
    if progress:
        progress(0, total)
    if jobs > 1 and total > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for i, (spec, figures) in enumerate(zip(todo, pool.map(_run_spec, todo, chunksize=1)), 1):
                specs[spec] = figures
                if progress:
                    progress(i, total)
    else:
        for i, spec in enumerate(todo, 1):
            specs[spec] = _run_spec(spec)
            if progress:
                progress(i, total)
    rows = []
    for item in items:
        if isinstance(item, Row):
            rows.append(item)
            continue
        results = [specs[s] for s in item.specs]
        ok = [r if r is not None and "error" not in r else None for r in results]
        if all(r is None for r in ok):
            first = next((r["error"] for r in results if r and "error" in r), "no result")
            rows.append(Row(item.point.id, item.point.chip, item.point.kernel,
                            skipped=f"simulation failed: {first[:120]}", note=first, file=item.point.file))
            continue
        row = item.finish(ok)
        row.file = item.point.file
        rows.append(row)
    return rows


def _weight(spec: SimSpec) -> float:
    cfg = spec.args[0] if spec.args else None
    return float(getattr(cfg, "flops", 0.0) or 0.0)
