"""The readable `loom compile` report (rich): the decision in source-level names and why it won."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from loom.calibrate.yardstick import kind_of, yardstick_line
from loom.solve.select import CATEGORIES


def _mapping(ranked) -> str:
    parts = []
    for axis in ranked.model.candidate.axes:
        cores = axis.spatial
        where = " x ".join(f"{'xyz'[d]}{lvl}:{s}" for d, lvl, s in axis.levels) or "-"
        parts.append(f"{axis.axis} on {cores} core(s) ({where})")
    return "; ".join(parts)


def print_compile_report(result, console: Console | None = None) -> None:
    console = console or (Console() if Console().is_terminal else Console(width=160))
    best, schedule, arch = result.ranked[0], result.schedule, result.lowering.arch
    candidate = best.model.candidate
    console.print(f"[bold]{schedule.kernel}[/] on [bold]{arch.name}[/] {schedule.shape or ''} "
                  f"(decided by {schedule.source})", highlight=False)
    console.print(f"  candidate      {candidate.name}  (view {candidate.view.name}, "
                  f"{candidate.view.cores} cores, axis order {' > '.join(candidate.order)})", highlight=False)
    console.print(f"  mapping        {_mapping(best)}", highlight=False)
    for line in _held(result):
        console.print(f"  held           {line}", highlight=False)
    split = candidate.split
    if split is not None:
        console.print(f"  split          {split.describe()}", highlight=False)
    elif schedule.split_note:
        console.print(f"  split          none ({schedule.split_note})", highlight=False)
    for t in candidate.transfers:
        if t.direction == "load":
            group = "x".join(str(g) for g in t.group)
            console.print(f"  transfer       {t.tensor}: {t.mode}" + (f" to {group} cores" if t.receivers > 1 else ""),
                          highlight=False)
    sizes = ", ".join(f"{k}={v}" for k, v in schedule.block_sizes.items())
    console.print(f"  block sizes    {sizes or '(all fixed in the source)'}", highlight=False)
    knobs = ", ".join(f"{k}={'on' if v else 'off'}" for k, v in schedule.knobs.items())
    console.print(f"  pipeline knobs {knobs or '-'}", highlight=False)
    optimal = "proven optimal" if best.proven_optimal else f"best found, not proven optimal (gap {best.gap:.1%})"
    unsolved = [r for r in result.rejected if getattr(r, "kind", "infeasible") == "not solved"]
    if unsolved:
        optimal += f"; best of the solved candidates only, {len(unsolved)} not solved"
    console.print(f"  modelled       {best.cycles:,} cycles = {schedule.predicted_us:,.1f} us ({optimal})",
                  highlight=False)
    work = best.breakdown()
    total = sum(work.values()) or 1
    shares = ", ".join(f"{c} {work.get(c, 0) / total:.0%}" for c in CATEGORIES)
    console.print(f"  dominant term  {schedule.dominant} ({schedule.dominant_share:.0%} of the work: {shares})",
                  highlight=False)
    if len(result.ranked) > 1:
        table = Table(title="runner-up candidates")
        for column in ("#", "candidate", "cycles", "vs best", "block sizes", "dominant"):
            table.add_column(column)
        for i, r in enumerate(result.ranked[1:], 2):
            dom, share = r.dominant()
            sizes = ", ".join(f"{k}={v}" for k, v in r.values.items() if k in r.model.problem.domains)
            table.add_row(str(i), r.name, f"{r.cycles:,}", f"+{(r.cycles / best.cycles - 1):.1%}", sizes,
                          f"{dom} {share:.0%}")
        console.print(table)
    cs = result.candidates
    pruned = [r for r in result.rejected if getattr(r, "kind", "") == "pruned"]
    infeasible = [r for r in result.rejected if r not in unsolved and r not in pruned]
    counts = getattr(result, "counts", None)
    every = " (every one: exhaustive)" if counts is not None and counts.exhaustive else ""
    solved = "" if counts is None else f"{counts.solved} solved{every}, "
    console.print(f"  candidates     {cs.full_space:,} in the full space, {len(cs.candidates)} retained "
                  f"({cs.pruned_fraction:.1%} pruned); {solved}{len(pruned)} pruned by bound, {len(infeasible)} "
                  "infeasible" + (f", {len(unsolved)} not solved" if unsolved else ""), highlight=False)
    if pruned:  # the first one pruned says by how much the bound missed
        console.print(f"    {pruned[0].reason} ({pruned[0].name}"
                      + (f" and {len(pruned) - 1} more)" if len(pruned) > 1 else ")"), highlight=False)
    for label, group in (("infeasible", infeasible), ("not solved", unsolved)):
        reasons = {}
        for r in group:
            reasons.setdefault(r.reason, []).append(r.name)
        for reason, names in list(reasons.items())[:3]:
            text = reason.removeprefix("not solved: ")
            console.print(f"    {label} ({len(names)}): {text}", highlight=False)
    times = ", ".join(f"{stage} {sec * 1000:.0f} ms" for stage, sec in result.seconds.items())
    console.print(f"  compile time   {sum(result.seconds.values()):.2f} s: {times}", highlight=False)


def _held(result) -> list[str]:
    """One line per argument the device holds in a wider tile format than its dtype (`tiles.HELD_AS`)."""
    from xdsl.dialects import func

    fn = next(op for op in result.lowering.stages["concrete"].walk() if isinstance(op, func.FuncOp))
    held = fn.attributes.get("loom.held")
    if held is None:
        return []
    types = {arg.name_hint: arg.type.element_type for arg in fn.body.block.args}
    return [f"{name}: {dtype.data} arguments as {types.get(name, '?')} tiles (converted by the host; "
            f"DRAM traffic priced at that width)" for name, dtype in held.data.items()]


def print_run_report(outcome, console: Console | None = None) -> None:
    console = console or (Console() if Console().is_terminal else Console(width=160))
    sim = outcome.sim
    model = outcome.compilation.ranked[0].cycles
    error = (model - sim.cycles) / sim.cycles if sim.cycles else 0.0
    console.print(f"[bold]simulated[/] {sim.cycles:,.0f} cycles = {sim.us:,.1f} us on loom.sim "
                  f"(model {model:,} cycles, {error:+.1%} vs simulated)"
                  + (f", {sim.tflops():.1f} TFLOPS" if sim.flops else "")
                  + (" [steady-state extrapolation]" if sim.extrapolated else ""), highlight=False)
    compiled = outcome.compilation
    arch = (compiled.placed_on or compiled.lowering.arch).name
    console.print(f"  yardstick      {yardstick_line(arch, kind_of(compiled.lowering.stages['concrete']))}",
                  highlight=False)
    engines = ", ".join(f"{k} {v:.0%}" for k, v in sim.utilisation.items())
    console.print(f"  utilisation    {engines}", highlight=False)
    low, high = sim.compute_busy_range
    if high:
        console.print(f"  compute/core   {low:,.0f} to {high:,.0f} busy cycles (least over most busy core: "
                      f"{sim.compute_balance:.0%})", highlight=False)
    reads = ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in sim.dram_read_bytes_by_tensor.items() if v)
    writes = ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in sim.dram_write_bytes_by_tensor.items() if v)
    console.print(f"  DRAM           read {reads}; written {writes}", highlight=False)
    console.print(f"  busiest link   {sim.busiest_link} ({sim.busiest_link_utilisation:.0%})", highlight=False)
    if outcome.check is not None:
        console.print(outcome.check.report_line(), highlight=False)
