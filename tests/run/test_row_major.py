"""Loom's own schedules on a virtual grid placed row-major (`loom.pipeline.row_major_grid`): where no
rectangle of the grid holds the largest power-of-two number of cores (128 of Blackhole's 13 x 10), the
solver also maps the kernel onto a 16 x 8 virtual grid with unicast and forwarding only, and keeps it
when the model says it is faster; its programs run on the real grid, core i on core i."""

from __future__ import annotations

from loom.arch import load_arch
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.pipeline import row_major_grid
from loom.run import run
from loom.schedule import Schedule
from tests.conftest import EXAMPLES


def test_a_virtual_grid_only_where_no_rectangle_holds_the_cores():
    assert row_major_grid(load_arch("blackhole_p150")).grid.dims == [16, 8]
    for name in ("blackhole_p150_11x10", "wormhole_n150", "ring32"):  # 64 = 8 x 8 fits; a ring has no rectangles
        assert row_major_grid(load_arch(name)) is None


def test_causal_attention_on_blackhole_takes_128_cores_row_major(tmp_path):
    """32 heads x 4 query parts: 128 cores, which only a row-major layout gives on 13 x 10."""
    source = load_kernel_file(EXAMPLES / "causal_attention.py")
    shape = {"B": 1, "H": 32, "KV": 8, "L": 1024, "D": 64}
    compiled = compile_kernel(source.kernel, source.example_args(shape, meta=True), "blackhole_p150", shape=shape)
    bh = load_arch("blackhole_p150")
    assert compiled.placed_on == bh and compiled.schedule.arch == "blackhole_p150@16x8"
    assert all(t["mode"] == "unicast" or t["mode"].startswith("forward") for t in compiled.schedule.transfers.values())
    assert "placed row-major on the 13x10 grid" in compiled.schedule.notes[-1]
    result = run(compiled, source.example_args(shape))
    assert result.program.arch == bh.name and len(result.program.cores) == 128
    # the schedule replays on the real architecture's name, placed the same way
    path = tmp_path / "schedule.json"
    path.write_text(compiled.schedule.to_json())
    replayed = compile_kernel(source.kernel, source.example_args(shape, meta=True), bh, shape=shape,
                              schedule=Schedule.load(path))
    assert replayed.placed_on == bh and replayed.ranked[0].cycles == compiled.ranked[0].cycles
