"""Functional data: numbers stored the way the hardware stores them, tiles, and tile blocks.

Values are carried as float32 numpy arrays whose entries are representable in the storage
dtype: `quantize` rounds float32 to bfloat16 (round to nearest even), float16, or the block
floating-point formats (`bfp8_b`, `bfp4_b`, `bfp2_b`: 16 consecutive values of a row share the
largest exponent and keep a sign plus 7, 3 or 1 mantissa bits). Compute happens in float32;
results are quantized when stored. Math fidelity is a timing matter only here.

Tiles are stored as arrays of shape `(n, tile_rows, tile_cols)`; a block of `rows x cols` tiles
converts to and from a `(rows*tile_rows, cols*tile_cols)` matrix with `block_to_matrix` and
`matrix_to_block`.
"""

from __future__ import annotations

import numpy as np

_BFP_MANTISSA = {"bfp8_b": 7, "bfp4_b": 3, "bfp2_b": 1}


def quantize(x: np.ndarray, dtype: str) -> np.ndarray:
    """`x` (float32) rounded to the values `dtype` can hold, still as float32."""
    x = np.asarray(x, dtype=np.float32)
    if dtype == "float32":
        return x
    if dtype == "bfloat16":
        return round_bf16(x)
    if dtype == "float16":
        return x.astype(np.float16).astype(np.float32)
    if dtype in _BFP_MANTISSA:
        return _round_bfp(x, _BFP_MANTISSA[dtype])
    if dtype == "int8":
        return np.clip(np.rint(x), -128, 127).astype(np.float32)
    if dtype == "int32":  # a float packed to int32 truncates, as torch's `.to(torch.int32)`
        return np.clip(np.trunc(x), -(2.0 ** 31), 2.0 ** 31 - 1).astype(np.float32)
    raise ValueError(f"expected a known dtype, found '{dtype}'")


def round_bf16(x: np.ndarray) -> np.ndarray:
    """Round float32 to bfloat16 (nearest, ties to even); NaN and inf pass through."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = bits + (np.uint32(0x7FFF) + ((bits >> 16) & 1))
    out = np.where(np.isfinite(x), rounded & np.uint32(0xFFFF0000), bits)
    return out.astype(np.uint32).view(np.float32)


def _round_bfp(x: np.ndarray, mantissa_bits: int) -> np.ndarray:
    """Block floating point: groups of 16 along the last axis share the largest exponent."""
    shape = x.shape
    groups = x.reshape(-1, 16) if x.size % 16 == 0 and shape[-1] % 16 == 0 else x.reshape(-1, 1)
    peak = np.max(np.abs(groups), axis=1, keepdims=True)
    _, exp = np.frexp(peak)  # peak = m * 2**exp with 0.5 <= m < 1
    step = np.ldexp(np.float32(1.0), exp - mantissa_bits).astype(np.float32)
    limit = (2.0 ** mantissa_bits - 1) * step
    q = np.clip(np.rint(groups / np.where(step > 0, step, 1)) * step, -limit, limit)
    return np.where(peak > 0, q, 0).astype(np.float32).reshape(shape)


def to_tiles(x: np.ndarray, tile_rows: int, tile_cols: int) -> np.ndarray:
    """A tensor of shape `(..., R, C)` as its tiles `(n, tile_rows, tile_cols)`, row-major tile order."""
    lead = x.shape[:-2]
    r, c = x.shape[-2] // tile_rows, x.shape[-1] // tile_cols
    t = x.reshape(*lead, r, tile_rows, c, tile_cols)
    t = np.moveaxis(t, -3, -2)  # (..., r, c, tile_rows, tile_cols)
    return np.ascontiguousarray(t.reshape(-1, tile_rows, tile_cols), dtype=np.float32)


def from_tiles(tiles: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Inverse of `to_tiles` for a tensor of `shape`."""
    tr, tc = tiles.shape[-2:]
    lead = shape[:-2]
    r, c = shape[-2] // tr, shape[-1] // tc
    t = tiles.reshape(*lead, r, c, tr, tc)
    return np.moveaxis(t, -2, -3).reshape(shape)


def block_to_matrix(tiles: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """`rows*cols` tiles (row-major) as one `(rows*tr, cols*tc)` matrix."""
    tr, tc = tiles.shape[-2:]
    return tiles.reshape(rows, cols, tr, tc).transpose(0, 2, 1, 3).reshape(rows * tr, cols * tc)


def matrix_to_block(m: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Inverse of `block_to_matrix`: `(rows*cols, tr, tc)` tiles."""
    tr, tc = m.shape[0] // rows, m.shape[1] // cols
    return m.reshape(rows, tr, cols, tc).transpose(0, 2, 1, 3).reshape(rows * cols, tr, tc)
