"""How good is the solver's pick, measured on loom.sim (the paper's Figs. 10-11)?

- top-5: simulate the solver's five best candidates; regret of top-1 = its simulated time over
  the best simulated time among them, minus one;
- neighbourhood: the chosen candidate at every block-size assignment one domain step away from
  the chosen one (a 3 x 3 x 3 cube for GEMM), simulated; regret likewise;
- TileLoom-style tuning: a fixed menu of block sizes per candidate (powers of two in the domain),
  ranked by the model, the model's top-k simulated and the best kept (profile-based anchor),
  with its compile + "profile" time.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from loom.pipeline import compile as compile_kernel
from loom.run import run
from loom.solve.select import evaluate_fixed


@dataclass
class Regret:
    chosen_cycles: float
    best_cycles: float
    best_label: str
    simulated: int

    @property
    def regret(self) -> float:
        return self.chosen_cycles / self.best_cycles - 1


def _sim(compilation, ranked, args) -> float:
    compilation.ranked = [ranked]
    return run(compilation, args).sim.cycles


def top_k_regret(kernel, args, arch, shape, k: int = 5) -> Regret:
    result = compile_kernel(kernel, args, arch, shape=shape, top_k=k)
    ranked = list(result.ranked)
    cycles = [(_sim(result, r, args), r.name) for r in ranked]
    best = min(cycles)
    return Regret(cycles[0][0], best[0], best[1], len(cycles))


def neighbourhood_regret(kernel, args, arch, shape) -> Regret:
    result = compile_kernel(kernel, args, arch, shape=shape, top_k=0)
    chosen = result.ranked[0]
    domains = chosen.model.problem.domains
    labels = sorted(domains)
    axes = []
    for label in labels:
        values = domains[label]
        i = values.index(chosen.values[label])
        axes.append(values[max(i - 1, 0): i + 2])
    chosen_cycles = _sim(result, chosen, args)
    best = (chosen_cycles, "chosen")
    count = 1
    for combo in itertools.product(*axes):
        sizes = dict(zip(labels, combo))
        if all(sizes[key] == chosen.values[key] for key in labels):
            continue
        ranked, _ = evaluate_fixed([chosen.model], sizes)
        if not ranked:
            continue  # infeasible at these block sizes (L1)
        cycles = _sim(result, ranked[0], args)
        count += 1
        best = min(best, (cycles, ",".join(f"{k}={v}" for k, v in sizes.items())))
    return Regret(chosen_cycles, best[0], best[1], count)


def tileloom_tuning(kernel, args, arch, shape, k: int = 5) -> tuple[float, float, str]:
    """(best simulated cycles, seconds spent, label) of menu enumeration + simulating the model's top-k."""
    start = time.perf_counter()
    base = compile_kernel(kernel, args, arch, shape=shape, top_k=0)
    models = [r.model for r in base.ranked]
    domains = base.ranked[0].model.problem.domains
    menu = {label: [v for v in values if v & (v - 1) == 0] or values for label, values in domains.items()}
    pool = []
    for combo in itertools.product(*[menu[label] for label in sorted(menu)]):
        ranked, _ = evaluate_fixed(models, dict(zip(sorted(menu), combo)))
        pool.extend((r.cycles, r.name, r) for r in ranked)
    pool.sort(key=lambda item: (item[0], item[1]))
    best = None
    for _, name, ranked in pool[:k]:
        cycles = _sim(base, ranked, args)
        label = f"{name} " + ",".join(f"{key}={v}" for key, v in ranked.values.items() if key in domains)
        best = min(best, (cycles, label)) if best else (cycles, label)
    return best[0], time.perf_counter() - start, best[1]
