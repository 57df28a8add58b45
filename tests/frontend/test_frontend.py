"""Stage 1: golden IR for the three kernels, print/parse round trip, structure of the symbolic IR."""

from __future__ import annotations

import pytest
from xdsl.dialects import affine, scf
from xdsl.dialects.linalg.ops import MatmulOp

import loom
from loom.ir.dialect import ReadOp, SymOp, WriteOp
from loom.ir.text import parse, to_text
from loom.kernel_file import load_kernel_file
from tests.conftest import EXAMPLES, GOLDEN_SHAPES, KERNELS, check_golden


def lowered(name: str, arch: str = "wormhole_n150", **sizes):
    source = load_kernel_file(EXAMPLES / f"{name}.py")
    return loom.lower(source.kernel, source.example_args(sizes or GOLDEN_SHAPES[name]), arch=arch, stage="frontend")


@pytest.fixture(scope="module")
def modules():
    return {name: lowered(name).module for name in KERNELS}


@pytest.mark.parametrize("name", KERNELS)
def test_golden_ir(modules, name):
    check_golden(f"{name}.00_frontend.mlir", to_text(modules[name]))


@pytest.mark.parametrize("name", KERNELS)
def test_print_parse_round_trip(modules, name):
    text = to_text(modules[name])
    assert to_text(parse(text)) == text


def syms(module) -> dict[str, SymOp]:
    return {op.label: op for op in module.walk() if isinstance(op, SymOp)}


def test_gemm_block_sizes_are_symbols_named_after_the_source(modules):
    labels = syms(modules["matmul"])
    assert set(labels) == {"tile_m", "tile_n", "tile_k"}
    assert labels["tile_m"].upper_bound.value.data == GOLDEN_SHAPES["matmul"]["M"]
    assert labels["tile_k"].reduction is not None and labels["tile_m"].reduction is None


def test_gemm_structure(modules):
    module = modules["matmul"]
    grids = [op for op in module.walk() if isinstance(op, affine.ParallelOp)]
    assert len(grids) == 1 and len(grids[0].body.block.args) == 2
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert len(loops) == 1
    # acc + x @ y is one accumulating matmul on the loop-carried tile
    (matmul,) = [op for op in module.walk() if isinstance(op, MatmulOp)]
    assert matmul.outputs[0] is loops[0].body.block.args[1]
    assert sum(isinstance(op, ReadOp) for op in module.walk()) == 2
    assert sum(isinstance(op, WriteOp) for op in module.walk()) == 1


def test_offsets_are_tile_index_times_symbol(modules):
    """Each tiled offset is `tile index × loom.sym`: what reuse analysis reads."""
    from xdsl.dialects import arith, memref

    module = modules["matmul"]
    (x_view,) = [op for op in module.walk() if isinstance(op, memref.SubviewOp) and op.source.name_hint == "x"]
    row = x_view.offsets[0].owner
    assert isinstance(row, arith.MuliOp)
    assert row.lhs.name_hint == "tile_m_idx" and isinstance(row.rhs.owner, SymOp)


def test_attention_grid_and_loop(modules):
    module = modules["flash_attention"]
    (grid,) = [op for op in module.walk() if isinstance(op, affine.ParallelOp)]
    assert [a.data for a in grid.attributes["loom.grid"].data] == ["b", "h", "tile_m"]
    assert set(syms(module)) == {"tile_m", "tile_n"}
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert len(loop.iter_args) == 3  # running max, running sum, accumulator
    assert sum(isinstance(op, MatmulOp) for op in module.walk()) == 2


def test_decode_has_only_the_kv_block_symbolic(modules):
    assert set(syms(modules["flash_decode"])) == {"tile_n"}


def test_every_compute_op_names_its_source_line(modules):
    text = to_text(modules["matmul"])
    assert 'linalg.matmul {loom.loc = "matmul.py:19"}' in text
    assert 'loom.write %acc_bf16' in text and '{loom.loc = "matmul.py:20"}' in text


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_lowers_for_every_architecture(arch):
    assert lowered("matmul", arch=arch).module is not None


def test_dump_ir_writes_stage_files(tmp_path):
    written = lowered("matmul").dump(tmp_path)
    assert [p.name for p in written] == ["00_frontend.mlir"]
    assert "loom.sym @tile_k" in written[0].read_text()


@pytest.mark.parametrize("entry, extent, expected", [
    (slice(None), 64, (0, 64)), (slice(None, 32), 64, (0, 32)), (slice(32, None), 64, (32, 64)),
    (slice(-32, None), 96, (64, 96)), (slice(0, 1000), 64, (0, 64)),
])
def test_a_static_slice_is_its_clamped_range(entry, extent, expected):
    from loom.frontend.access import static_slice

    assert static_slice(entry, extent) == expected


@pytest.mark.parametrize("entry, message", [
    (slice(0, 64, 2), "step 2"), (slice(40, 8), "empty"), (slice(object(), None), "not known when compiling"),
])
def test_a_slice_loom_cannot_read_says_why(entry, message):
    from loom.frontend.access import static_slice

    with pytest.raises(ValueError, match=message):
        static_slice(entry, 64)
