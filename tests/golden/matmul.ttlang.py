"""TT-Lang program for the Loom schedule `x1x8_y8.mn.x:row.y:column` on wormhole_n150 (8x8 cores).

Emitted by Loom from the per-core program (loom emit --target ttlang). Run it with
`tt-lang-sim <this file>` (functional simulator) or on hardware with tt-lang.

Loom core (x, y) is TT-Lang node (cx, cy) = ttl.node(dims=2). Loom's reader, compute
and writer roles are the kernels `reader`, `compute` and `writer`; its circular buffers
and the compute role's local L1 buffers are dataflow buffers. Tensors are 2-D views
counted in 32x32 tiles (leading dims fold into rows: [B, H, L, D] is viewed as
[B*H*L, D]). Multicasts are ttl.Pipe copies: the sender reads the block from DRAM once
and copies it into its pipe; Loom's sender/receiver semaphore handshake is left to
TT-Lang's compiler, which allocates the semaphores of a pipe.

Schedule:
    kernel: matmul
    tile_k: 64 (--block-sizes)
    tile_m: 32 (--block-sizes)
    tile_n: 32 (--block-sizes)
    x: row multicast over 8x1 cores
    y: column multicast over 1x8 cores
    mem0: acc (matmul.py:17: acc = hl.zeros([tile_m, tile_n], dtype=torch.float32))
    x_tile: matmul.py:19: acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
    y_tile: matmul.py:19: acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
    acc_bf16: matmul.py:20: out[tile_m, tile_n] = acc.to(x.dtype)
"""

import torch

import ttl
import ttnn

GRID = (8, 8)  # (x, y) worker cores

# x_tile (x: row multicast over 8x1 cores): 8 senders
#   each reads a block from DRAM once and copies it into its pipe(s)
x_tile_pipes = [ttl.Pipe(src=(0, py), dst=(slice(1, 8), py)) for py in range(8)]
x_tile_net = ttl.PipeNet(x_tile_pipes)

# y_tile (y: column multicast over 1x8 cores): 8 senders
#   each reads a block from DRAM once and copies it into its pipe(s)
y_tile_pipes = [ttl.Pipe(src=(px, 0), dst=(px, slice(1, 8))) for px in range(8)]
y_tile_net = ttl.PipeNet(y_tile_pipes)


@ttl.operation(grid=GRID)
def matmul_ttl(x, y, out, like_float32):
    """Loom program `x1x8_y8.mn.x:row.y:column`."""
    # --- circular buffers of the schedule (block shape in tiles, block_count = slots)
    # x_tile: reader -> compute
    #   x: row multicast over 8x1 cores
    #   matmul.py:19: acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
    x_tile_dfb = ttl.make_dataflow_buffer_like(x, shape=(1, 2), block_count=2)
    # y_tile: writer -> compute
    #   y: column multicast over 1x8 cores
    #   matmul.py:19: acc = acc + x[tile_m, tile_k] @ y[tile_k, tile_n]
    y_tile_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 1), block_count=2)
    # acc_bf16: compute -> writer; matmul.py:20: out[tile_m, tile_n] = acc.to(x.dtype)
    acc_bf16_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1), block_count=1)
    # --- local L1 buffers of the compute role (the value is the one visible block)
    # mem0: float32, updated in place: old and new value
    #   acc (matmul.py:17: acc = hl.zeros([tile_m, tile_n], dtype=torch.float32))
    mem0_dfb = ttl.make_dataflow_buffer_like(like_float32, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def reader():
        cx, cy = ttl.node(dims=2)
        for t_tile_m in range(1):  # tile_m = 32 (--block-sizes)
            for t_tile_n in range(1):  # tile_n = 32 (--block-sizes)
                for tile_k_idx in range(2):  # tile_k = 64 (--block-sizes)
                    with x_tile_dfb.reserve() as x_tile:
                        if x_tile_net.is_src():
                            col = 2 * tile_k_idx
                            ttl.copy(x[t_tile_m + cy, col:col + 2], x_tile).wait()
                            ttl.copy(x_tile, x_tile_pipes[cy]).wait()  # multicast
                        else:
                            ttl.copy(x_tile_pipes[cy], x_tile).wait()  # multicast receive

    @ttl.compute()
    def compute():
        for t_tile_m in range(1):  # tile_m = 32 (--block-sizes)
            for t_tile_n in range(1):  # tile_n = 32 (--block-sizes)
                with mem0_dfb.reserve() as mem0_next:
                    mem0_next.store(ttl.block.fill(0.0, shape=(1, 1)))
                for tile_k_idx in range(2):  # tile_k = 64 (--block-sizes)
                    with (
                        x_tile_dfb.wait() as x_tile,
                        y_tile_dfb.wait() as y_tile,
                        mem0_dfb.wait() as mem0,
                        mem0_dfb.reserve() as mem0_next,
                    ):
                        mem0_next.store(mem0 + x_tile @ y_tile)
                with acc_bf16_dfb.reserve() as acc_bf16, mem0_dfb.wait() as mem0:
                    acc_bf16.store(mem0)

    @ttl.datamovement()
    def writer():
        cx, cy = ttl.node(dims=2)
        for t_tile_m in range(1):  # tile_m = 32 (--block-sizes)
            for t_tile_n in range(1):  # tile_n = 32 (--block-sizes)
                for tile_k_idx in range(2):  # tile_k = 64 (--block-sizes)
                    with y_tile_dfb.reserve() as y_tile:
                        if y_tile_net.is_src():
                            row = 2 * tile_k_idx
                            ttl.copy(y[row:row + 2, t_tile_n + cx], y_tile).wait()
                            ttl.copy(y_tile, y_tile_pipes[cx]).wait()  # multicast
                        else:
                            ttl.copy(y_tile_pipes[cx], y_tile).wait()  # multicast receive
                with acc_bf16_dfb.wait() as acc_bf16:
                    ttl.copy(acc_bf16, out[t_tile_m + cy, t_tile_n + cx]).wait()


def to_device(t, dtype, device):
    """A torch tensor as a 2-D tile-layout DRAM tensor (leading dims folded into rows)."""
    return ttnn.from_torch(t.reshape(-1, t.shape[-1]), dtype=dtype, layout=ttnn.TILE_LAYOUT, device=device,
                           memory_config=ttnn.DRAM_MEMORY_CONFIG)


def run(x, y):
    """Run the operation on torch tensors shaped like Loom's program (whole tiles); return the outputs."""
    device = ttnn.open_device(device_id=0)
    try:
        x_dev = to_device(x, ttnn.bfloat16, device)
        y_dev = to_device(y, ttnn.bfloat16, device)
        out_dev = to_device(torch.zeros((256, 256)), ttnn.bfloat16, device)
        like_float32 = to_device(torch.zeros(32, 32), ttnn.float32, device)  # dtype template, never read
        matmul_ttl(x_dev, y_dev, out_dev, like_float32)
        return {"out": ttnn.to_torch(out_dev).float().reshape((256, 256))}
    finally:
        ttnn.close_device(device)


# The kernel file's torch reference.
def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return (x.float() @ y.float()).to(x.dtype)


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn((256, 128)).to(torch.bfloat16)
    y = torch.randn((128, 256)).to(torch.bfloat16)
    outputs = run(x, y)
    got = outputs["out"][:256, :256]
    expected = reference(x, y).float()
    error = float((got - expected).abs().max())
    tolerance = 2 * 0.0078125 * max(float(expected.abs().max()), 1.0)
    print("out: max |error|", error, "tolerance", tolerance, "OK" if error <= tolerance else "MISMATCH")
    raise SystemExit(0 if error <= tolerance else 1)
