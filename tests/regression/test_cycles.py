"""Process replay for the cost model: modelled and simulated cycles of the chosen schedule.

`cycles.json` holds, keyed `arch|kernel|shape`, the schedule Loom picks for each example at a small
and a medium shape on every architecture (candidate, block sizes and knobs), the cycles the model
predicts for it and the cycles `loom.sim` measures (timing only, no data). A refactor must leave the
table unchanged, exactly; a change to the model or the simulator shows here as a table of what moved,
and `LOOM_ACCEPT=1` rewrites the file once the change is understood (as Helion's EXPECTTEST_ACCEPT).

`python -m tests.regression.test_cycles` prints the current table."""

from __future__ import annotations

import json
import os
from pathlib import Path

from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES

TABLE = Path(__file__).with_name("cycles.json")
ARCHS = ("wormhole_n150", "blackhole_p150", "ring32")
# One small and one medium shape per example: the whole table compiles and simulates in about 30 s.
SHAPES = {
    "matmul": ({"M": 256, "N": 256, "K": 256}, {"M": 1024, "N": 1024, "K": 512}),
    "flash_attention": ({"B": 1, "H": 2, "L": 128, "D": 64}, {"B": 1, "H": 4, "L": 512, "D": 64}),
    "flash_decode": ({"B": 2, "H": 2, "L": 256, "D": 64}, {"B": 4, "H": 8, "L": 1024, "D": 64}),
}
FIELDS = ("candidate", "values", "optimal", "model_cycles", "sim_cycles")


def key(arch: str, kernel: str, shape: dict[str, int]) -> str:
    return f"{arch}|{kernel}|" + ",".join(f"{k}={v}" for k, v in shape.items())


def measure(arch: str, kernel: str, shape: dict[str, int]) -> dict:
    """Compile with the defaults (the solver, one job) and simulate the top-1 schedule's timing."""
    source = load_kernel_file(EXAMPLES / f"{kernel}.py")
    args = source.example_args(shape, meta=True)
    compilation = compile_kernel(source.kernel, args, arch, shape=shape)
    best = compilation.ranked[0]
    outcome = run(compilation, args)
    return {"candidate": best.name, "values": dict(sorted(best.values.items())),
            "optimal": best.proven_optimal, "model_cycles": best.cycles, "sim_cycles": outcome.sim.cycles}


def current_table() -> dict[str, dict]:
    return {key(a, k, s): measure(a, k, s) for a in ARCHS for k, shapes in SHAPES.items() for s in shapes}


def to_json(table: dict[str, dict]) -> str:
    """One line per entry, so that a change reads as a one-line diff."""
    lines = [f"  {json.dumps(k)}: {json.dumps(row)}" for k, row in table.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _cell(row: dict | None, name: str) -> str:
    if row is None:
        return "-"
    value = row[name]
    if name == "values":
        return ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:,.1f}"
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _change(old: dict | None, new: dict | None, name: str) -> str:
    if old is None or new is None or not isinstance(old[name], (int, float)) or isinstance(old[name], bool):
        return ""
    return f"{(new[name] - old[name]) / old[name]:+.2%}" if old[name] else ""


def diff_table(expected: dict[str, dict], got: dict[str, dict]) -> str:
    """One line per changed field: key, field, expected, got, relative change; then missing/extra keys."""
    rows = [("key", "field", "expected", "got", "change")]
    for k in sorted(set(expected) | set(got)):
        old, new = expected.get(k), got.get(k)
        for name in FIELDS:
            if old is None or new is None or old.get(name) != new.get(name):
                rows.append((k, name, _cell(old, name), _cell(new, name), _change(old, new, name)))
                if old is None or new is None:
                    break
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def summary(table: dict[str, dict]) -> str:
    """The table as text: the model's error against the simulator beside each chosen schedule."""
    lines = []
    for k, row in table.items():
        error = row["model_cycles"] / row["sim_cycles"] - 1
        lines.append(f"{k:<50} {row['candidate']:<52} model {row['model_cycles']:>9,} "
                     f"sim {row['sim_cycles']:>11,.1f} ({error:+.1%})")
    return "\n".join(lines)


def test_modelled_and_simulated_cycles_match_the_table():
    got = current_table()
    if os.environ.get("LOOM_ACCEPT") == "1":
        TABLE.write_text(to_json(got))
        return
    assert TABLE.exists(), f"missing {TABLE}; run with LOOM_ACCEPT=1 to create it"
    expected = json.loads(TABLE.read_text())
    assert got == expected, (
        "modelled or simulated cycles changed (LOOM_ACCEPT=1 rewrites tests/regression/cycles.json "
        "once the change is understood):\n" + diff_table(expected, got))


if __name__ == "__main__":
    print(summary(current_table()))
