"""Forms a user writes that a probe of Loom found broken (internal errors or wrong pairing): column sums,
outputs the caller passes in, and clear refusals for an in-place update and for Inductor-lowered ops."""

from __future__ import annotations

import pytest
import torch

from loom.backend import program as P
from loom.errors import UnsupportedError
from loom.kernel_file import load_kernel_file
from tests.conftest import run_kernel_text

_HEADER = '''
import torch, helion, helion.language as hl

def inputs(M: int = 200, N: int = 96):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(M, N, generator=g), torch.empty(M, N))
'''

_COLUMN_SUM = _HEADER + '''
@helion.kernel(static_shapes=True)
def k(x: torch.Tensor, unused: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([n], dtype=torch.float32, device=x.device)
    for tile_n in hl.tile(n):
        acc = hl.zeros([tile_n], dtype=torch.float32)
        for tile_m in hl.tile(m):
            acc = acc + x[tile_m, tile_n].sum(0)
        out[tile_n] = acc
    return out

def reference(x, unused):
    return x.sum(0)
'''

_OUTPUT_ARGUMENT = _HEADER + '''
@helion.kernel(static_shapes=True)
def k(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    for tile_m, tile_n in hl.tile(x.size()):
        out[tile_m, tile_n] = torch.exp(x[tile_m, tile_n])
    return out

def reference(x, out):
    return torch.exp(x)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_a_sum_over_a_tiles_rows_is_a_column_sum(tmp_path, arch):
    """`x[tile_m, tile_n].sum(0)` (a tail of 200 rows, accumulated over row blocks): transposed, a row sum."""
    outcome = run_kernel_text(tmp_path, _COLUMN_SUM, arch)
    assert outcome.check.ok, outcome.check


def test_an_output_the_caller_passes_in_is_written_and_checked(tmp_path):
    outcome = run_kernel_text(tmp_path, _OUTPUT_ARGUMENT)
    assert outcome.check.ok and outcome.check.tensor == "out", outcome.check
    assert [t.kind for t in outcome.program.tensors] == ["input", "output"]


def test_an_in_place_update_of_an_argument_is_refused_at_its_store(tmp_path):
    text = _OUTPUT_ARGUMENT.replace("torch.exp(x[tile_m, tile_n])", "out[tile_m, tile_n] + x[tile_m, tile_n]")
    with pytest.raises(UnsupportedError, match="loads and stores its argument `out`") as err:
        run_kernel_text(tmp_path, text)
    assert "out[tile_m, tile_n] = out[tile_m, tile_n] + x[tile_m, tile_n]" in str(err.value)


def test_an_op_helion_lowers_through_inductor_is_refused_by_name(tmp_path):
    text = _COLUMN_SUM.replace("acc = acc + x[tile_m, tile_n].sum(0)",
                               "acc = acc + torch.var(x[tile_m, tile_n], dim=0, unbiased=False)")
    with pytest.raises(UnsupportedError, match="`aten.var.correction` is not supported by Loom yet"):
        run_kernel_text(tmp_path, text)


def test_a_column_sum_keeping_its_dimension_is_refused(tmp_path):
    text = _COLUMN_SUM.replace("acc = acc + x[tile_m, tile_n].sum(0)",
                               "acc = acc + x[tile_m, tile_n].sum(0, keepdim=True).squeeze(0)")
    with pytest.raises(UnsupportedError, match="over a tile's rows with `keepdim=True`"):
        run_kernel_text(tmp_path, text)


_GRID_ROWS = '''
import torch, helion, helion.language as hl

@helion.kernel(static_shapes=True)
def k(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for i in hl.grid(x.size(0)):
        for tile_n in hl.tile(x.size(1)):
            out[i, tile_n] = x[i, tile_n] * 2
    return out

def inputs(M: int = 8, N: int = 100):
    return (torch.randn(M, N, generator=torch.Generator().manual_seed(0)),)

def reference(x):
    return x * 2
'''

_GRID_INNER = '''
import torch, helion, helion.language as hl

@helion.kernel(static_shapes=True)
def k(x: torch.Tensor) -> torch.Tensor:
    b, m, n = x.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for i in hl.grid(b):
            acc = acc + x[i, tile_m, tile_n]
        out[tile_m, tile_n] = acc
    return out

def inputs(B: int = 3, M: int = 64, N: int = 96):
    return (torch.randn(B, M, N, generator=torch.Generator().manual_seed(0)),)

def reference(x):
    return x.sum(0)
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("text", [_GRID_ROWS, _GRID_INNER], ids=["grid_of_rows", "grid_inside_tiles"])
def test_an_hl_grid_index_is_a_scalar_like_a_tiles_begin(tmp_path, text, arch):
    """`for i in hl.grid(n)`: `x[i, tile_n]` is one row (a batch of row vectors) and `x[i, tile_m, tile_n]`
    one batch slice, as `x[tile_b.begin, …]` with a block of one."""
    outcome = run_kernel_text(tmp_path, text, arch)
    assert outcome.check.ok, outcome.check


_ROWS = '''
import torch, helion, helion.language as hl

@helion.kernel(static_shapes=True)
def k(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    out = torch.empty([a.size(0), b.size(0)], dtype=torch.float32, device=a.device)
    for tile_m, tile_n in hl.tile([a.size(0), b.size(0)]):
        out[tile_m, tile_n] = EXPR
    return out

def inputs(M: int = 64, N: int = 96):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(M, generator=g), torch.randn(N, generator=g), torch.randn(M, N, generator=g))

def reference(a, b, x):
    return REF
'''


@pytest.mark.parametrize("expr, ref", [
    ("a[tile_m][:, None] * b[tile_n][None, :]", "a[:, None] * b[None, :]"),  # both operands broadcast
    ("x[tile_m, tile_n] ** 3", "x ** 3"),
    ("torch.max(x[tile_m, tile_n], x[tile_m, tile_n] * 0.5)", "torch.max(x, x * 0.5)"),
])
def test_outer_products_cubes_and_maxima(tmp_path, expr, ref):
    outcome = run_kernel_text(tmp_path, _ROWS.replace("EXPR", expr).replace("REF", ref))
    assert outcome.check.ok, outcome.check


def test_the_values_of_torch_max_over_a_dimension_are_its_amax(tmp_path):
    text = _ROWS.replace("out = torch.empty([a.size(0), b.size(0)]", "out = torch.empty([a.size(0)]").replace(
        "for tile_m, tile_n in hl.tile([a.size(0), b.size(0)]):\n        out[tile_m, tile_n] = EXPR",
        "for tile_m in hl.tile(a.size(0)):\n        out[tile_m] = torch.max(x[tile_m, :], dim=-1).values").replace(
        "REF", "x.max(-1).values")
    outcome = run_kernel_text(tmp_path, text)
    assert outcome.check.ok, outcome.check


@pytest.mark.parametrize("sizes", [{"M": 1, "N": 1}, {"M": 64, "N": 1}])
def test_a_softmax_over_rows_of_one_element_masks_the_tile_padding(sizes):
    """Helion masks no dimension of size 1 (`_mask_to`), but Loom pads it to a whole tile: the row max and
    sum must not see the 31 padding columns (the fuzzer found softmax_rows at N = 1 off by 0.87)."""
    from loom.kernel_file import load_kernel_file
    from loom.pipeline import compile as compile_kernel
    from loom.run import run
    from tests.conftest import EXAMPLES

    source = load_kernel_file(EXAMPLES / "softmax_rows.py")
    args = source.example_args(sizes)
    outcome = run(compile_kernel(source.kernel, args, "blackhole_p150"), args, reference=source.reference)
    assert outcome.check.ok, outcome.check



_LAST_COLUMNS = _HEADER + '''
@helion.kernel(static_shapes=True)
def k(x: torch.Tensor, unused: torch.Tensor) -> torch.Tensor:
    out = torch.empty([x.size(0)], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(x.size(0)):
        out[tile_m] = x[tile_m, -32] * 2
    return out

def reference(x, unused):
    return x[:, -32] * 2
'''


def test_a_negative_index_counts_from_the_end_as_in_torch(tmp_path):
    """`x[tile_m, -32]` is column 64 of 96 (an internal error before: a read at tile column -1)."""
    outcome = run_kernel_text(tmp_path, _LAST_COLUMNS)
    assert outcome.check.ok and outcome.check.max_abs_error == 0, outcome.check


_ROW_READ = _HEADER + '''
@helion.kernel(static_shapes=True)
def k(x: torch.Tensor, unused: torch.Tensor) -> torch.Tensor:
    out = torch.empty([x.size(1)], dtype=torch.float32, device=x.device)
    for tile_n in hl.tile(x.size(1)):
        out[tile_n] = x[160, tile_n] * 2
    return out

def reference(x, unused):
    return x[160] * 2
'''

_ROW_BROADCAST = _HEADER + '''
@helion.kernel(static_shapes=True)
def k(x: torch.Tensor, unused: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        out[tile_m, tile_n] = x[tile_m, tile_n] - x[-40, tile_n]
    return out

def reference(x, unused):
    return x - x[-40][None, :]
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
@pytest.mark.parametrize("text", [_ROW_READ, _ROW_BROADCAST], ids=["row_stored", "row_broadcast"])
def test_one_row_of_a_matrix_is_a_row_tile(tmp_path, text, arch):
    """`x[160, tile_n]` lies along a row of its tiles: it is read as a 1 x n row (it was taken for a column,
    and `out[tile_n] = x[0, tile_n] * 2` was wrong), stored into a vector laid out as a row, and broadcast
    down the rows of a block (`x[-40, tile_n]`, row 160 of 200). A row inside a tile (`x[3, tile_n]`) is
    refused at the user's line, as any offset that is not whole tiles."""
    outcome = run_kernel_text(tmp_path, text, arch)
    assert outcome.check.ok and outcome.check.max_abs_error == 0, outcome.check


def test_storing_one_row_of_a_matrix_is_refused_not_written_over_its_neighbours(tmp_path):
    """Writing whole tiles, `out[0, tile_n] = …` would overwrite rows 1-31 of `out` (an internal error
    before, then a silent one while row reads were being fixed)."""
    text = _ROW_READ.replace("out = torch.empty([x.size(1)], dtype=torch.float32, device=x.device)",
                             "out = torch.zeros([32, x.size(1)], dtype=torch.float32, device=x.device)").replace(
        "out[tile_n] = x[160, tile_n] * 2", "out[0, tile_n] = x[160, tile_n] * 2").replace(
        "return x[160] * 2", "return torch.cat([x[160:161] * 2, torch.zeros(31, x.size(1))])")
    with pytest.raises(UnsupportedError, match="storing one row of a matrix") as err:
        run_kernel_text(tmp_path, text)
    assert "out[0, tile_n] = x[160, tile_n] * 2" in str(err.value)


_RESHAPED_RETURN = '''
import torch, helion, helion.language as hl

def inputs(B: int = 2, M: int = 64, N: int = 96):
    return (torch.randn(B, M, N, generator=torch.Generator().manual_seed(0)),)

@helion.kernel(static_shapes=True)
def k(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    flat = x.reshape(-1, x.size(-1))
    out = torch.empty_like(flat)
    for tile_m, tile_n in hl.tile(flat.size()):
        out[tile_m, tile_n] = flat[tile_m, tile_n] * 2.0
    return out.view(x.size()), out.sum()

def reference(x):
    return x * 2.0, (x * 2.0).sum()
'''


def test_loom_stands_for_a_kernel_in_its_callers_code_with_the_views_it_returns(tmp_path):
    """`kernel_values`: what the kernel returns, its host code (a view back to the input's shape, a host-side
    sum) run in torch on the simulated outputs, each in its element type."""
    from loom.run import kernel_values

    outcome = run_kernel_text(tmp_path, _RESHAPED_RETURN)
    assert outcome.check.ok, outcome.check
    x = load_kernel_file(tmp_path / "kernel.py").example_args()[0]
    out, total = kernel_values(outcome.compilation, outcome.program, outcome.sim.outputs, (x,))
    assert out.shape == x.shape and out.dtype == x.dtype
    torch.testing.assert_close(out, x * 2.0, rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(total, (x * 2.0).sum(), rtol=1e-2, atol=1e-1)


_EPILOGUE_CLOSURE = '''
import torch, helion, helion.language as hl

def inputs(M: int = 64, N: int = 96, K: int = 64):
    g = torch.Generator().manual_seed(0)
    x, y, bias = torch.randn(M, K, generator=g), torch.randn(K, N, generator=g), torch.randn(N, generator=g)
    return (x, y, lambda acc, tile: torch.relu(acc + bias[tile[1]]))

@helion.kernel(static_shapes=True)
def k(x: torch.Tensor, y: torch.Tensor, epilogue) -> torch.Tensor:
    out = torch.empty([x.size(0), y.size(1)], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile(out.size()):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(x.size(1)):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = epilogue(acc, (tile_m, tile_n))
    return out

def reference(x, y, epilogue):
    bias = epilogue.__closure__[0].cell_contents
    return torch.relu(x @ y + bias)
'''


def test_a_tensor_an_epilogue_argument_closes_over_is_an_input(tmp_path):
    """Helion's matmul example passes `lambda acc, tile: acc + bias[tile[1]]`: the bias reaches the kernel
    through the closure (`epilogue.__closure__[0].cell_contents` in the Device IR), read like an argument."""
    outcome = run_kernel_text(tmp_path, _EPILOGUE_CLOSURE)
    assert outcome.check.ok, outcome.check
    assert any("closure" in t.name for t in outcome.program.tensors if t.kind == "input")



SCALE = 3.0


def _global_scaled(acc, tile):
    return SCALE * acc


@pytest.mark.parametrize("form", ["closure", "global"])
def test_numbers_an_epilogue_closes_over_are_known_when_compiling(tmp_path, form):
    """helion's addmm_autograd passes `lambda acc, tile: alpha * acc + beta * bias[tile]` with `alpha`, `beta`
    closed over (Helion names them `epilogue.__closure__[i]`), or an epilogue reads its own module's globals
    (Helion imports that module as `_global_source0`): both were refused as scalars not known when compiling."""
    from loom.pipeline import compile as compile_kernel
    from loom.run import run

    x, y, bias = torch.randn(128, 64), torch.randn(64, 96), torch.randn(128, 96)
    alpha, beta = 2.0, 0.5

    def closure(acc, tile):
        return alpha * acc + beta * bias[tile[0], tile[1]]

    epilogue, expected = {"closure": (closure, alpha * (x @ y) + beta * bias),
                          "global": (_global_scaled, SCALE * (x @ y))}[form]
    (tmp_path / "kernel.py").write_text(_EPILOGUE_CLOSURE)
    kernel = load_kernel_file(tmp_path / "kernel.py").kernel
    args = (x, y, epilogue)
    outcome = run(compile_kernel(kernel, args, "wormhole_n150"), args, reference=lambda *_: expected)
    assert outcome.check.ok, outcome.check

_READ_BACK = '''
import torch, helion, helion.language as hl

def inputs(M: int = 96, N: int = 128, K: int = 64):
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(*s, generator=g) * 0.1 for s in ((M, N), (N, K), (K, N)))

@helion.kernel(static_shapes=True)
def se_net(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    m, n = x.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    c = torch.empty([m, a.size(1)], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        for tile_k in hl.tile(a.size(1)):
            c[tile_m, tile_k] = torch.relu(x[tile_m, :] @ a[:, tile_k])
        for tile_n in hl.tile(n):
            acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
            for tile_k in hl.tile(a.size(1)):
                acc = torch.addmm(acc, c[tile_m, tile_k], b[tile_k, tile_n])
            out[tile_m, tile_n] = x[tile_m, tile_n] * torch.sigmoid(acc)
    return out, c

def reference(x, a, b):
    c = torch.relu(x @ a)
    return x * torch.sigmoid(c @ b), c
'''


@pytest.mark.parametrize("arch", ["wormhole_n150", "blackhole_p150", "ring32"])
def test_a_core_reads_back_what_it_stored_after_its_stores_land(tmp_path, arch):
    """Helion's squeeze_and_excitation_net: `c[tile_m, tile_k]` stored in one loop and loaded in the next by the
    same core. The load goes to the writer, behind a barrier on its writes."""
    outcome = run_kernel_text(tmp_path, _READ_BACK, arch=arch)
    assert outcome.check.ok, outcome.check
    writer = outcome.program.groups[0].writer
    reads = [i for i in P.walk(writer) if isinstance(i, P.DramRead) and i.tensor == "c"]
    assert reads
    flat = list(P.walk(writer))
    for read in reads:  # a block's reads (one per NoC it is spread over) follow the barrier
        before = next(i for i in reversed(flat[:flat.index(read)]) if not isinstance(i, P.DramRead))
        assert isinstance(before, P.Barrier) and before.kind == "writes"
    assert not outcome.compilation.ranked[0].model.candidate.split
