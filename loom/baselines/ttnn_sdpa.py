"""TTNN's default SDPA (FlashAttention prefill) and SDPA-decode (FlashDecode) configs in Python.

Specification: shared/reference/tenstorrent.md §4. Where the summary is terse the upstream
sources it cites settle the detail (tt-metal `transformer/sdpa/device/sdpa_program_factory.cpp`,
`sdpa_subblock_utils.hpp`, `sdpa_decode/sdpa_decode.cpp`, `sdpa_decode_program_factory.cpp`),
and the comment says so. Hardware numbers come from the architecture description; the constants
here are TTNN's algorithm constants, each citing its section.
"""

from __future__ import annotations

from dataclasses import dataclass

from loom.arch import Arch
from loom.baselines.ttnn_matmul import ceil_div, grid_xy, resolve_arch, tile_bytes

# --- TTNN algorithm constants (not hardware numbers) -------------------------------------------
DEFAULT_CHUNK = 32
"""tenstorrent.md §4 Prefill Defaults: without an SDPAProgramConfig, q_chunk = k_chunk = 32."""
SDPA_FIDELITY = "HiFi2"
"""tenstorrent.md §4: prefill and decode compute defaults are HiFi2 (TTNN's default, not per arch)."""
DST_TILES = 8
DST_TILES_FP32 = 4
"""tenstorrent.md §4 Per-core matmuls: subblocks fit dst = 8 tiles (4 with FP32 accumulation)."""
SDPA_SUBBLOCKS = (
    (2, 4), (4, 2), (1, 8), (8, 1), (1, 7), (7, 1), (2, 3), (3, 2), (1, 6), (6, 1),
    (1, 5), (5, 1), (2, 2), (1, 4), (4, 1), (1, 3), (3, 1), (1, 2), (2, 1), (1, 1),
)
"""tenstorrent.md §4 "largest fitting" subblock; order (h, w) from upstream
`determine_largest_subblock_size`: by h·w descending, the wider of each pair first."""
MASK_DTYPE = "bfp4_b"
"""tenstorrent.md §4 CBs: the mask CB is BFP4."""
INTERMEDIATE_DTYPE = "bfloat16"
"""tenstorrent.md §4 CBs: intermediates in BF16."""
DECODE_K_CHUNK_CAP = 512
"""tenstorrent.md §4 Decode k_chunk_size: largest power-of-2 divisor of the KV length, capped at 512."""
PROGRAM_CONFIG_MAX_CORES_PER_HEAD = 16
"""tenstorrent.md §4 Config fields: SDPAProgramConfig.max_cores_per_head_batch defaults to 16."""


def sdpa_subblock(block_h: int, block_w: int, dst_tiles: int) -> tuple[int, int]:
    """The largest (h, w) with h·w <= dst_tiles dividing the block (tenstorrent.md §4)."""
    for h, w in SDPA_SUBBLOCKS:
        if h * w <= dst_tiles and block_h % h == 0 and block_w % w == 0:
            return h, w
    return 1, 1


@dataclass(frozen=True)
class SdpaConfig:
    """TTNN's SDPA prefill program: chunking, parallelization, per-core matmuls and CBs (tiles).

    `cb_tiles` lists (circular buffer, tiles); `cb_bytes` is their L1 total per core.
    """

    grid: tuple[int, int]
    q_chunk_size: int
    k_chunk_size: int
    Sq_chunk_t: int
    Sk_chunk_t: int
    DHt: int
    padded_Sq: int
    padded_Sk: int
    q_num_chunks: int
    k_num_chunks: int
    batch_parallel: int
    nh_parallel: int
    q_parallel: int
    batch_per_core: int
    nh_per_core: int
    q_per_core: int
    num_active_cores: int
    balanced_q_parallel: bool
    qk_in0_block_w: int
    qk_subblock: tuple[int, int]
    pv_in0_block_w: int
    pv_subblock: tuple[int, int]
    cb_tiles: tuple[tuple[str, int], ...]
    cb_bytes: int
    fidelity: str
    fp32_dest_acc: bool
    exp_approx_mode: bool
    notes: tuple[str, ...]


@dataclass(frozen=True)
class SdpaDecodeConfig:
    """TTNN's SDPA decode (FlashDecode) program: K chunking, core allocation, tree reduction."""

    grid: tuple[int, int]
    k_chunk_size: int
    Sk_chunk_t: int
    num_k_chunks: int
    k_chunks_per_core: int
    q_heads_per_kv_head: int
    padded_q_heads: int
    cores_per_batch: int
    cores_per_head: int
    heads_per_core: int
    num_active_cores: int
    num_reducer_cores: int
    tree_reduction_rounds: int
    fidelity: str
    fp32_dest_acc: bool
    exp_approx_mode: bool
    notes: tuple[str, ...]


def _check_heads(NQH: int, NKH: int) -> None:
    if NKH < 1 or NQH % NKH:
        raise ValueError(f"expected the number of KV heads to divide the number of Q heads; "
                         f"found NQH = {NQH}, NKH = {NKH}")


def sdpa_prefill_config(B: int, NQH: int, NKH: int, Sq: int, Sk: int, DH: int, *, arch: Arch | str,
                        q_chunk: int | None = None, k_chunk: int | None = None, causal: bool = True,
                        dtype: str = "bfloat16") -> SdpaConfig:
    """The program `ttnn.transformer.scaled_dot_product_attention` runs (tenstorrent.md §4 Prefill).

    Q is [B, NQH, Sq, DH], K and V [B, NKH, Sk, DH]. With no chunk sizes given this is TTNN's
    no-program-config default (q_chunk = k_chunk = 32, full grid); giving them models an
    SDPAProgramConfig with those chunk sizes on the full grid. `causal` decides the mask CB and
    the balanced causal split. Q, K, V and the output are `dtype`.
    """
    a = resolve_arch(arch)
    gx, gy = grid_xy(a)
    cores = gx * gy
    _check_heads(NQH, NKH)
    tr, tc = a.tiling.tile_rows, a.tiling.tile_cols
    if DH % tc:
        raise ValueError(f"expected DH to be a multiple of the tile width {tc}, found {DH}")
    qc = DEFAULT_CHUNK if q_chunk is None else q_chunk
    kc = DEFAULT_CHUNK if k_chunk is None else k_chunk
    for name, chunk in (("q_chunk", qc), ("k_chunk", kc)):
        if chunk < 1 or chunk % tr:
            raise ValueError(f"expected {name} to be a positive multiple of the tile height {tr}, "
                             f"found {chunk}")
    default = q_chunk is None and k_chunk is None
    notes = [("no program config: q_chunk = k_chunk = 32 on the full grid" if default
              else f"q_chunk = {qc}, k_chunk = {kc} on the full grid") + f" ({gx}x{gy} = {cores} cores)"]

    # Sequences are padded up to whole chunks (upstream padded_Sq / padded_Sk).
    padded_Sq, padded_Sk = ceil_div(Sq, qc) * qc, ceil_div(Sk, kc) * kc
    Sq_chunk_t, Sk_chunk_t, DHt = qc // tr, kc // tr, DH // tc
    vDHt = DHt
    q_num_chunks, k_num_chunks = padded_Sq // qc, padded_Sk // kc
    notes.append(f"chunks: Sq {Sq} → {q_num_chunks} Q chunks of {Sq_chunk_t} tiles, Sk {Sk} → "
                 f"{k_num_chunks} K chunks of {Sk_chunk_t} tiles; DHt = {DHt}")

    # Parallelization: batch, then heads, then Q chunks (tenstorrent.md §4 Parallelization).
    batch_pf = min(B, cores)
    nh_pf = min(cores // batch_pf, NQH)
    q_pf = min(cores // (batch_pf * nh_pf), q_num_chunks)
    batch_per_core, nh_per_core = ceil_div(B, batch_pf), ceil_div(NQH, nh_pf)
    q_per_core = ceil_div(q_num_chunks, q_pf)
    notes.append(f"parallel: batch_pf = min(B={B}, {cores}) = {batch_pf}; nh_pf = min({cores}/{batch_pf}, "
                 f"NQH={NQH}) = {nh_pf}; q_pf = min({cores}/({batch_pf}·{nh_pf}), {q_num_chunks}) = {q_pf} "
                 f"→ {batch_pf * nh_pf * q_pf} active cores")
    notes.append(f"per core: {batch_per_core} batch x {nh_per_core} head(s) x {q_per_core} Q chunk(s)"
                 + (f"; GQA: {NQH // NKH} Q heads share each of {NKH} KV heads (no effect on the split)"
                    if NKH != NQH else ""))
    balanced = causal and q_per_core * q_pf == q_num_chunks and q_per_core % 2 == 0
    if causal:
        notes.append("causal: BALANCED_Q_PARALLEL " + (
            f"on: q_per_core = {q_per_core} is even and divides the {q_num_chunks} chunks; each core takes "
            f"chunk pairs Q_i, Q_(n-1-i)" if balanced else
            f"off: q_per_core = {q_per_core} odd or not dividing the {q_num_chunks} chunks evenly"))
    else:
        notes.append("non-causal: K/V chains between the cores that share a (batch, head), where any do (`kv_chains`)")

    # Per-core matmuls (tenstorrent.md §4): QKᵀ over DHt, PV over Sk_chunk_t; fp32 accumulation off.
    dst = DST_TILES
    qk_sub = sdpa_subblock(Sq_chunk_t, Sk_chunk_t, dst)
    pv_sub = sdpa_subblock(Sq_chunk_t, vDHt, dst)
    notes.append(f"QKᵀ: in0_block_w = DHt = {DHt}, subblock {qk_sub[0]}x{qk_sub[1]} of the "
                 f"{Sq_chunk_t}x{Sk_chunk_t} scores block (dst {dst} tiles); PV: in0_block_w = "
                 f"Sk_chunk_t = {Sk_chunk_t}, subblock {pv_sub[0]}x{pv_sub[1]} of {Sq_chunk_t}x{vDHt}")

    # Circular buffers in tiles (tenstorrent.md §4 CBs), with the dtype each is stored in.
    q_factor = 2 if q_per_core > 1 else 1
    use_mask = causal or padded_Sq != Sq or padded_Sk != Sk
    cbs: list[tuple[str, int, str]] = [
        ("q", Sq_chunk_t * DHt * q_factor, dtype),
        ("k", 2 * Sk_chunk_t * DHt, dtype),
        ("v", 2 * Sk_chunk_t * vDHt, dtype),
    ]
    if use_mask:
        cbs.append(("mask", 2 * Sq_chunk_t * Sk_chunk_t, MASK_DTYPE))
    cbs += [("qk_scores", Sq_chunk_t * Sk_chunk_t, INTERMEDIATE_DTYPE),
            ("out", Sq_chunk_t * vDHt, dtype)]
    cb_bytes = sum(t * tile_bytes(a, d) for _, t, d in cbs)
    notes.append("CBs (tiles): " + ", ".join(f"{n} {t}" for n, t, _ in cbs)
                 + f" = {cb_bytes:,} B; Q is double-buffered only when q_per_core > 1"
                 + ("" if use_mask else "; no mask CB (non-causal, no padding)"))
    notes.append(f"compute: {SDPA_FIDELITY}, exp approx on, fp32 accumulation off; scale 1/sqrt({DH})")
    return SdpaConfig(
        grid=(gx, gy), q_chunk_size=qc, k_chunk_size=kc, Sq_chunk_t=Sq_chunk_t, Sk_chunk_t=Sk_chunk_t,
        DHt=DHt, padded_Sq=padded_Sq, padded_Sk=padded_Sk, q_num_chunks=q_num_chunks,
        k_num_chunks=k_num_chunks, batch_parallel=batch_pf, nh_parallel=nh_pf, q_parallel=q_pf,
        batch_per_core=batch_per_core, nh_per_core=nh_per_core, q_per_core=q_per_core,
        num_active_cores=batch_pf * nh_pf * q_pf, balanced_q_parallel=balanced, qk_in0_block_w=DHt,
        qk_subblock=qk_sub, pv_in0_block_w=Sk_chunk_t, pv_subblock=pv_sub,
        cb_tiles=tuple((n, t) for n, t, _ in cbs), cb_bytes=cb_bytes, fidelity=SDPA_FIDELITY,
        fp32_dest_acc=False, exp_approx_mode=True, notes=tuple(notes))


def decode_k_chunk_size(S: int) -> int:
    """Non-paged decode k_chunk_size (tenstorrent.md §4): largest power-of-2 divisor of S, capped at 512.

    Upstream `get_chunk_size` starts its search at 2, so a KV length with no factor 4 yields 2;
    TTNN then rejects any chunk that is not a multiple of 32, and so does this function.
    """
    if S < 1:
        raise ValueError(f"expected a positive KV length, found {S}")
    chunk = min(DECODE_K_CHUNK_CAP, max(2, S & -S))  # S & -S: largest power of 2 dividing S
    if chunk % 32:
        raise ValueError(f"TTNN rejects this KV length: k_chunk_size = {chunk} (largest power of 2 dividing "
                         f"S = {S}) is not a multiple of 32")
    return chunk


def sdpa_decode_config(B: int, NQH: int, NKH: int, S: int, DH: int, *, arch: Arch | str,
                       max_cores_per_head_batch: int | None = None) -> SdpaDecodeConfig:
    """The program `ttnn.transformer.scaled_dot_product_attention_decode` runs (tenstorrent.md §4 Decode).

    Q is [1, B, NQH, DH] (heads padded to a tile), K and V [B, NKH, S, DH], non-paged, full cache
    length. `max_cores_per_head_batch=None` is the no-program-config default: every core may
    serve one head; an int models an SDPAProgramConfig with that field (TTNN's default 16).
    """
    a = resolve_arch(arch)
    gx, gy = grid_xy(a)
    avail = gx * gy
    _check_heads(NQH, NKH)
    if B > avail:
        raise ValueError(f"TTNN requires cores >= batch: {avail} cores < B = {B}")
    tr, tc = a.tiling.tile_rows, a.tiling.tile_cols
    if DH % tc:
        raise ValueError(f"expected DH to be a multiple of the tile width {tc}, found {DH}")
    k_chunk = decode_k_chunk_size(S)
    num_k_chunks = ceil_div(S, k_chunk)
    notes = [f"k_chunk_size = {k_chunk}: largest power-of-2 divisor of S = {S} is {S & -S}, capped at "
             f"{DECODE_K_CHUNK_CAP} → {num_k_chunks} K chunks of {k_chunk // tr} tiles"]

    if max_cores_per_head_batch is None:
        max_per_head = avail
        notes.append(f"no program config: max cores per head = all {avail} cores")
    else:
        max_per_head = max_cores_per_head_batch
        notes.append(f"program config: max_cores_per_head_batch = {max_per_head}")
    cores_per_batch = min(avail, max_per_head * B * NKH) // B
    cores_per_head = max(1, cores_per_batch // NKH)
    heads_per_core = max(1, ceil_div(NKH, cores_per_batch))
    notes.append(f"cores_per_batch = min({avail}, {max_per_head}·B·NKH = {max_per_head * B * NKH})/B "
                 f"= {cores_per_batch}; cores_per_head = max(1, {cores_per_batch}/{NKH}) = {cores_per_head}; "
                 f"heads_per_core = max(1, ceil({NKH}/{cores_per_batch})) = {heads_per_core}")
    num_reducers = NKH * B // heads_per_core
    active = cores_per_head * NKH * B // heads_per_core
    rounds = (cores_per_head - 1).bit_length() if cores_per_head > 1 else 0
    k_chunks_per_core = ceil_div(num_k_chunks, cores_per_head)
    notes.append(f"{active} active cores, {num_reducers} reducer cores (one per group of "
                 f"{heads_per_core} KV head(s) of a batch); "
                 f"each head's {num_k_chunks} K chunks split over {cores_per_head} core(s), at most "
                 f"{k_chunks_per_core} per core at full cache length")
    notes.append(f"tree reduction: ceil(log2({cores_per_head})) = {rounds} round(s)" if cores_per_head > 1
                 else "no reduction: one core per head")
    padded_heads = ceil_div(NQH, tr) * tr
    notes.append(f"Q heads padded {NQH} → {padded_heads} tile rows; {NQH // NKH} Q heads per KV head; "
                 f"compute {SDPA_FIDELITY}, exp approx on, fp32 accumulation off")
    return SdpaDecodeConfig(
        grid=(gx, gy), k_chunk_size=k_chunk, Sk_chunk_t=k_chunk // tr, num_k_chunks=num_k_chunks,
        k_chunks_per_core=k_chunks_per_core, q_heads_per_kv_head=NQH // NKH, padded_q_heads=padded_heads,
        cores_per_batch=cores_per_batch, cores_per_head=cores_per_head, heads_per_core=heads_per_core,
        num_active_cores=active, num_reducer_cores=num_reducers, tree_reduction_rounds=rounds,
        fidelity=SDPA_FIDELITY, fp32_dest_acc=False, exp_approx_mode=True, notes=tuple(notes))


# --- K/V chain forwarding (non-causal prefill) --------------------------------------------------

@dataclass(frozen=True)
class KvChains:
    """TTNN's K/V store-and-forward chains for one SDPA prefill program.

    `chains` lists, per chained (batch, head), its cores as row-major core indices (core i at
    (i mod grid_x, i div grid_x)); `multicast` is whether the injector multicasts each K/V chunk
    to the rest of its chain instead of forwarding it core to core (all chains or none).
    """

    chains: tuple[tuple[int, ...], ...]
    multicast: bool
    why: str


def kv_chains(cfg: SdpaConfig, B: int, NQH: int, *, causal: bool, chunked: bool = False) -> KvChains:
    """Where TTNN builds K/V chains, and whether it multicasts along them.

    tt-metal `ttnn/cpp/ttnn/operations/transformer/sdpa/device/sdpa_program_factory.cpp` (commit
    000e7c053de83f4dd8bb52da5aa09bda2ead7ce4; PR #37285) builds chains only for non-causal,
    non-chunked SDPA: core i takes the batch, head and Q-chunk ranges of the core split, and each
    (batch, head) with Q work on two or more cores gets a chain (`build_chains_for_heads` in
    `sdpa_chain_utils.hpp`, commit 2c741005cf651673edf4e7a54d6b9255bf43af0e): it starts at the first
    of those cores (not the last) that serves that head alone and is in no chain yet, runs on
    through the head's cores, wrapping around, and stops at a core already in a chain; fewer than
    two cores, no chain. `configure_mcast_for_chains` (#38025, #38341) then multicasts, on every
    chain or on none, when every chain lies in one physical row (logical rows map to physical
    rows), with no core of its head between its ends left out, and its cores have equal Q-chunk
    counts. TTNN picks each injector by its DRAM column, which decides no chain and no mode and
    is not modelled here.
    """
    if causal or chunked:
        return KvChains((), False, "no K/V chains: TTNN builds them only for non-causal, non-chunked SDPA")
    gx, gy = cfg.grid
    qpf, npf = cfg.q_parallel, cfg.nh_parallel
    work: list[list[tuple[int, int]]] = []  # per core: (head id, Q chunks)
    segments: dict[int, list[int]] = {}  # head id -> its cores, in core order
    for i in range(gx * gy):
        b0 = min(i // (npf * qpf) * cfg.batch_per_core, B)
        h0 = min(i // qpf % npf * cfg.nh_per_core, NQH)
        q0 = min(i % qpf * cfg.q_per_core, cfg.q_num_chunks)
        q1 = min(q0 + cfg.q_per_core, cfg.q_num_chunks)
        work.append([])
        for b in range(b0, min(b0 + cfg.batch_per_core, B)):
            for h in range(h0, min(h0 + cfg.nh_per_core, NQH)):
                if q1 > q0:
                    work[i].append((b * NQH + h, q1 - q0))
                    segments.setdefault(b * NQH + h, []).append(i)
    chained: set[int] = set()
    chains = []
    for head, cores in sorted(segments.items()):
        start = next((k for k, c in enumerate(cores[:-1]) if c not in chained and len(work[c]) == 1), None)
        if start is None:
            continue
        chain = []
        for step in range(len(cores)):
            core = cores[(start + step) % len(cores)]
            if core in chained:
                break
            chain.append(core)
        if len(chain) >= 2:
            chained.update(chain)
            chains.append((head, tuple(chain)))
    if not chains:
        return KvChains((), False, "no K/V chains: no (batch, head) has Q work on two or more cores")

    def q_chunks(core: int, head: int) -> int:
        return dict(work[core])[head]

    def row_ok(head: int, chain: tuple[int, ...]) -> str:
        if len({c // gx for c in chain}) > 1:
            return "spans two rows of cores"
        inside = [c for c in segments[head] if min(chain) <= c <= max(chain) and c not in chain]
        if inside:
            return "leaves out a core of its head between its ends"
        return "" if len({q_chunks(c, head) for c in chain}) == 1 else "has unequal Q-chunk counts"

    refusals = [(head, why) for head, chain in chains if (why := row_ok(head, chain))]
    sizes = sorted({len(c) for _, c in chains})
    what = f"{len(chains)} K/V chain(s) of {'/'.join(map(str, sizes))} cores (one per (batch, head))"
    why = (f"{what}, multicast from the first core: every chain lies in one row" if not refusals else
           f"{what}, forwarded core to core: the chain of (batch, head) {divmod(refusals[0][0], NQH)} "
           f"{refusals[0][1]}, so no chain multicasts")
    return KvChains(tuple(c for _, c in chains), not refusals, why)
