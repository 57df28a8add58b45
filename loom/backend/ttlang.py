"""TT-Lang backend: emit a Loom per-core `Program` as one TT-Lang file, and run it in tt-lang-sim.

TT-Lang (Tenstorrent's Python kernel language) runs one operation body on every node of a grid:
two `@ttl.datamovement()` kernels and one `@ttl.compute()` kernel per node, connected by
dataflow buffers (`ttl.make_dataflow_buffer_like(..., shape=(rows, cols), block_count=n)`), with
`ttl.Pipe`s inside `ttl.PipeNet`s for core-to-core multicast. The mapping from a `Program`:

- Loom's reader role is the `reader` kernel, its writer role the `writer` kernel, its compute
  role the `compute` kernel; Loom core `(x, y)` is TT-Lang node `(cx, cy) = ttl.node(dims=2)`.
- Every CB is a dataflow buffer of the CB's block shape with `block_count` = its slots; every
  local buffer is a compute-owned dataflow buffer (`ttlang_compute.py`).
- Tensors are passed as 2-D views in tiles: leading dims fold into rows.
- Multicasts become pipes (`ttlang_lower.py`); Loom's sender/receiver semaphores are not emitted
  because TT-Lang's compiler allocates a pipe's semaphores.
- The per-core programs fold into one SPMD body (`ttlang_spmd.py`).

`emit_ttlang` returns the file's text; `ttlang_sim.run_ttlang_sim` executes it in-process in
tt-lang-sim and returns the outputs with the simulator's statistics (per-tensor DRAM tiles,
per-pipe tiles); `ttlang_notes` derives the comments and the torch reference the file carries
from a compilation. Whatever TT-Lang cannot express raises `UnsupportedError` saying what and why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from loom.arch import Arch, load_arch
from loom.backend import program as P
from loom.backend.ttlang_compute import ComputeLowering
from loom.backend.ttlang_lower import (
    RESERVED,
    Context,
    MoveLowering,
    Names,
    PipeSpec,
    collect_nets,
    core2,
)
from loom.backend.ttlang_spmd import Printer, merge, nest, uses_node
from loom.backend.validate import check_program
from loom.errors import UnsupportedError

TTNN_DTYPES = {"bfloat16": "ttnn.bfloat16", "float32": "ttnn.float32", "float16": "ttnn.float16",
               "bfp8_b": "ttnn.bfloat8_b"}
EPS = {"bfloat16": 2**-7, "float16": 2**-10, "float32": 2**-20, "bfp8_b": 2**-7}


@dataclass(frozen=True)
class TorchReference:
    """What the emitted `__main__` compares with: a torch function (its source, named `function`,
    using only `torch` and `math`) of the program's inputs, and the kernel's unpadded shapes."""

    source: str
    shapes: dict[str, tuple[int, ...]]
    function: str = "reference"


def emit_ttlang(program: P.Program, arch: Arch | str, *, source_notes: dict | None = None,
                reference: TorchReference | None = None) -> str:
    """One readable TT-Lang file for `program` (see the module docstring for the mapping).

    source_notes: comments tying the file to the schedule, keyed by block-size name (`tile_k`),
        tensor, CB or local buffer name, e.g. `{"tile_k": "64 (solver)", "x": "row multicast"}`.
    reference: makes `__main__` compare with torch; without it `__main__` only runs the program.
    """
    arch = arch if isinstance(arch, Arch) else load_arch(arch)
    permuted = [t.name for t in program.tensors if t.order is not None]
    if reference is not None and permuted:
        raise UnsupportedError(f"tensor '{permuted[0]}' is held permuted (`loom.frontend.layouts`); the emitted file's "
                               "check builds its inputs in the kernel's shapes, so it is not written for it yet: "
                               "check it with `loom run --backend ttlang-sim`, which lays the tensors out")
    return _Emitter(program, arch, dict(source_notes or {}), reference).text()


# --- emission -----------------------------------------------------------------------------------


class _Emitter:
    def __init__(self, program: P.Program, arch: Arch, notes: dict, reference: TorchReference | None):
        self.program, self.arch, self.notes, self.reference = program, arch, notes, reference
        tile = (arch.tiling.tile_rows, arch.tiling.tile_cols)
        if tile != (32, 32):
            raise UnsupportedError(f"{arch.name} uses {tile[0]}x{tile[1]} tiles; TT-Lang tiles are 32x32")
        check_program(program, arch)
        if any(isinstance(i, P.Loop) and isinstance(i.count, P.Trips)
               for g in program.groups for role in P.ROLES for i in P.walk(g.role(role))):
            raise UnsupportedError("a loop to an enclosing tile's end or from its start (`hl.tile(0, tile_m.end)`, "
                                   "`hl.tile(tile_m.begin, n)`) has trips that change from one block to the next; "
                                   "Loom's TT-Lang emitter writes static loops")
        cores = [core2(c) for c in program.cores]
        self.grid = (max(c[0] for c in cores) + 1, max(c[1] for c in cores) + 1)
        cbs, buffers = {}, {}
        for g in program.groups:
            for decl, table in [(c, cbs) for c in g.cbs] + [(b, buffers) for b in g.buffers]:
                if table.setdefault(decl.name, decl) != decl:
                    raise UnsupportedError(
                        f"'{decl.name}' is declared differently on different cores ({table[decl.name]} vs "
                        f"{decl}); a TT-Lang operation declares each dataflow buffer once for all nodes")
        for t in program.tensors:
            if t.dtype not in TTNN_DTYPES:
                raise UnsupportedError(f"tensor '{t.name}' has dtype {t.dtype}; TT-Lang tensors here are "
                                       f"{', '.join(TTNN_DTYPES)}")
        names = Names(used=set(RESERVED))
        for t in program.tensors:
            names.get("tensor", t.name)
        self.nets = collect_nets(program)
        for cb in sorted(self.nets):  # pipes `<cb>_pipes` in net `<cb>_net`
            base, n = _ident(cb), 1
            while {f"{base}_pipes", f"{base}_net"} & names.used:
                n += 1
                base = f"{_ident(cb)}_{n}"
            names.table[("net", cb)] = base
            names.used.update({f"{base}_pipes", f"{base}_net"})
        for n in [*cbs, *buffers]:
            names.get("dfb", n, "_dfb")
        for n in [*cbs, *buffers]:
            names.get("blk", n)
        for n in buffers:
            names.get("next", n, "_next")
        for g in program.groups:
            for role in P.ROLES:
                for ins in P.walk(g.role(role)):
                    if isinstance(ins, P.Loop):
                        names.get("var", ins.var)
        tensors = {t.name: t for t in program.tensors}
        self.ctx = Context(program, tile, cbs, buffers, tensors, self.nets, names)
        self.op_name = names.get("op", _ident(str(notes.get("kernel") or "loom")) + "_ttl")
        self.likes: dict[str, tuple[int, int]] = {}

    # ---- kernels
    def kernels(self) -> dict[str, tuple]:
        gx, gy = self.grid
        per_core = {role: {} for role in P.ROLES}
        by_core = {core2(c): g for g in self.program.groups for c in g.cores}
        for x in range(gx):
            for y in range(gy):
                g = by_core.get((x, y))
                core = next((c for c in g.cores if core2(c) == (x, y)), (x, y)) if g else (x, y)
                for role in P.ROLES:
                    if g is None:
                        stmts: list = []
                    elif role == "compute":
                        stmts = ComputeLowering(self.ctx, core).lower(g.compute)
                    else:
                        stmts = MoveLowering(self.ctx, core, role).lower(g.role(role))
                    per_core[role][(x, y)] = tuple(nest(stmts))
        if self.nets:
            piped = set().union(*(n.senders | n.receivers for n in self.nets.values()))
            for core in sorted(by_core):
                if core not in piped and any(per_core[r][core] for r in P.ROLES):
                    raise UnsupportedError(
                        f"core {core} has work but is in no multicast group; a TT-Lang operation that uses "
                        "ttl.PipeNets runs only on the nodes of its pipes")
        return {role: merge(seqs) for role, seqs in per_core.items()}

    def text(self) -> str:
        kernels = self.kernels()
        loop_notes = {}
        for key, note in self.notes.items():
            for var in (f"t_{key}", f"{key}_idx", key):
                ident = self.ctx.names.table.get(("var", var))
                if ident:
                    loop_notes[ident] = f"{key} = {note}"
        net_names = {cb: self.ctx.names.get("net", cb) for cb in self.nets}
        bodies = {}
        for role, stmts in kernels.items():
            lines = Printer(self.grid, self.nets, net_names, loop_notes).emit(stmts, 2)
            if uses_node(lines):
                lines.insert(0, "        cx, cy = ttl.node(dims=2)")
            bodies[role] = lines
        out = self.header() + self.pipes(net_names)
        while out and out[-1] == "":
            out.pop()
        out += ["", ""] + self.operation(bodies)
        out += self.host()
        return "\n".join(out).rstrip() + "\n"

    # ---- pieces of the file
    def header(self) -> list[str]:
        p, a = self.program, self.arch
        gx, gy = self.grid
        lines = [f'"""TT-Lang program for the Loom schedule `{p.name}` on {a.name} ({gx}x{gy} cores).', "",
                 "Emitted by Loom from the per-core program (loom emit --target ttlang). Run it with",
                 "`tt-lang-sim <this file>` (functional simulator) or on hardware with tt-lang.", "",
                 "Loom core (x, y) is TT-Lang node (cx, cy) = ttl.node(dims=2). Loom's reader, compute",
                 "and writer roles are the kernels `reader`, `compute` and `writer`; its circular buffers",
                 "and the compute role's local L1 buffers are dataflow buffers. Tensors are 2-D views",
                 "counted in 32x32 tiles (leading dims fold into rows: [B, H, L, D] is viewed as",
                 "[B*H*L, D]). Multicasts are ttl.Pipe copies: the sender reads the block from DRAM once",
                 "and copies it into its pipe; Loom's sender/receiver semaphore handshake is left to",
                 "TT-Lang's compiler, which allocates the semaphores of a pipe."]
        if self.notes:
            lines += ["", "Schedule:"] + [f"    {k}: {v}" for k, v in self.notes.items()]
        lines += ['"""', ""]
        if self.reference is not None and "math." in self.reference.source:
            lines += ["import math", ""]
        lines += ["import torch"]
        if self._padded():
            lines += ["import torch.nn.functional as F"]
        lines += ["", "import ttl", "import ttnn", "", f"GRID = ({gx}, {gy})  # (x, y) worker cores", ""]
        return lines

    def _padded(self) -> bool:
        """Whether `__main__` pads an input to whole tiles."""
        ref = self.reference
        return ref is not None and any(tuple(ref.shapes.get(t.name, t.shape)) != tuple(t.shape)
                                       for t in self.program.tensors if t.kind == "input")

    def pipes(self, net_names: dict[str, str]) -> list[str]:
        out = []
        for cb, net in sorted(self.nets.items()):
            name = net_names[cb]
            what = "; ".join([f"{t}: {self.notes[t]}" if t in self.notes else t for t in sorted(net.tensors)])
            out += _comment([f"{cb}{f' ({what})' if what else ''}: {len(net.senders)} senders",
                             "each reads a block from DRAM once and copies it into its pipe(s)"], 0)
            out += _pipe_list(name, net.pipes)
            out += [f"{name}_net = ttl.PipeNet({name}_pipes)", ""]
        return out + ([""] if out else [])

    def like(self, dtype: str, rows: int, cols: int) -> str:
        r, c = self.likes.get(dtype, (0, 0))
        self.likes[dtype] = (max(r, rows), max(c, cols))
        return f"like_{dtype}"

    def dfb_tensor(self, name: str, decl: Any) -> str:
        """The tensor a dataflow buffer is made like: its DRAM source or destination, else a template."""
        for g in self.program.groups:
            for ins in P.walk(g.reader + g.writer):
                if isinstance(ins, (P.DramRead, P.DramWrite)) and ins.cb == name:
                    t = self.ctx.tensors[ins.tensor]
                    rows = math.prod(t.shape[:-1]) // 32
                    if t.dtype == decl.dtype and rows >= decl.rows and t.shape[-1] // 32 >= decl.cols:
                        return self.ctx.names.get("tensor", t.name)
        return self.like(decl.dtype, decl.rows, decl.cols)

    def operation(self, bodies: dict[str, list[str]]) -> list[str]:
        ctx, notes = self.ctx, self.notes
        cb_lines, local_lines = [], []
        roles = _cb_roles(self.program)
        for name, cb in ctx.cbs.items():
            like = self.dfb_tensor(name, cb)
            prod, cons = roles.get(name, ("?", "?"))
            tensors = sorted({ins.tensor for g in self.program.groups for ins in P.walk(g.reader + g.writer)
                              if isinstance(ins, (P.DramRead, P.DramWrite)) and ins.cb == name})
            parts = [f"{name}: {prod} -> {cons}", *[f"{t}: {notes[t]}" for t in tensors if t in notes],
                     *([notes[name]] if name in notes else [])]
            cb_lines += _comment(parts, 4)
            cb_lines.append(f"    {ctx.dfb(name)} = ttl.make_dataflow_buffer_like({like}, shape=({cb.rows}, "
                            f"{cb.cols}), block_count={cb.slots})")
        for name, b in ctx.buffers.items():
            like = self.like(b.dtype, b.rows, b.cols)
            slots = 2 if name in ctx.in_place else 1
            why = "updated in place: old and new value" if slots == 2 else "one value at a time"
            local_lines += _comment([f"{name}: {b.dtype}, {why}", *([notes[name]] if name in notes else [])],
                                    4)
            local_lines.append(f"    {ctx.dfb(name)} = ttl.make_dataflow_buffer_like({like}, "
                               f"shape=({b.rows}, {b.cols}), block_count={slots})")
        params = [ctx.names.get("tensor", t.name) for t in self.program.tensors] + sorted(
            f"like_{d}" for d in self.likes)
        out = ["@ttl.operation(grid=GRID)", f"def {self.op_name}({', '.join(params)}):",
               f'    """Loom program `{self.program.name}`."""']
        if cb_lines:
            out += ["    # --- circular buffers of the schedule (block shape in tiles, block_count = slots)"]
            out += cb_lines
        if local_lines:
            out += ["    # --- local L1 buffers of the compute role (the value is the one visible block)"]
            out += local_lines
        for role, title in (("reader", "reader"), ("compute", "compute"), ("writer", "writer")):
            deco = "@ttl.compute()" if role == "compute" else "@ttl.datamovement()"
            out += ["", f"    {deco}", f"    def {title}():"] + bodies[role]
        return out + ["", ""]

    def host(self) -> list[str]:
        ctx, p = self.ctx, self.program
        inputs = [t for t in p.tensors if t.kind == "input"]
        params = [ctx.names.get("tensor", t.name) for t in inputs]
        out = ["def to_device(t, dtype, device):",
               '    """A torch tensor as a 2-D tile-layout DRAM tensor (leading dims folded into rows)."""',
               "    return ttnn.from_torch(t.reshape(-1, t.shape[-1]), dtype=dtype, layout=ttnn.TILE_LAYOUT, "
               "device=device,", "                           memory_config=ttnn.DRAM_MEMORY_CONFIG)", "", "",
               f"def run({', '.join(params)}):",
               '    """Run the operation on torch tensors shaped like Loom\'s program (whole tiles); return '
               'the outputs."""',
               "    device = ttnn.open_device(device_id=0)", "    try:"]
        args = []
        for t in p.tensors:
            name = ctx.names.get("tensor", t.name)
            src = name if t.kind == "input" else f"torch.zeros({tuple(t.shape)})"
            out.append(f"        {name}_dev = to_device({src}, {TTNN_DTYPES[t.dtype]}, device)")
            args.append(f"{name}_dev")
        for dtype, (r, c) in sorted(self.likes.items()):
            out.append(f"        like_{dtype} = to_device(torch.zeros({r * 32}, {c * 32}), "
                       f"{TTNN_DTYPES[dtype]}, device)  # dtype template, never read")
            args.append(f"like_{dtype}")
        out.append(f"        {self.op_name}({', '.join(args)})")
        outs = ", ".join(f'"{t.name}": ttnn.to_torch({ctx.names.get("tensor", t.name)}_dev).float()'
                         f".reshape({tuple(t.shape)})" for t in p.tensors if t.kind == "output")
        out += [f"        return {{{outs}}}", "    finally:", "        ttnn.close_device(device)", "", ""]
        return out + self.main(inputs, params)

    def main(self, inputs: list, params: list[str]) -> list[str]:
        ref = self.reference
        outputs = [t for t in self.program.tensors if t.kind == "output"]
        out = ['if __name__ == "__main__":', "    torch.manual_seed(0)"]
        for t, name in zip(inputs, params):
            shape = tuple(ref.shapes.get(t.name, t.shape)) if ref else tuple(t.shape)
            torch_dtype = {"bfloat16": "torch.bfloat16", "float16": "torch.float16"}.get(t.dtype,
                                                                                      "torch.float32")
            out.append(f"    {name} = torch.randn({shape}).to({torch_dtype})")
        padded = []
        for t, name in zip(inputs, params):
            shape = tuple(ref.shapes.get(t.name, t.shape)) if ref else tuple(t.shape)
            pad = [x for s, d in reversed(list(zip(t.shape, shape))) for x in (0, s - d)]
            padded.append(f"F.pad({name}, {pad})" if any(pad) else name)
        out.append(f"    outputs = run({', '.join(padded)})")
        if ref is None or len(outputs) != 1:
            out += ["    for name, value in outputs.items():",
                    '        print(name, tuple(value.shape), "max |value|", float(value.abs().max()))']
            return out
        (o,) = outputs
        shape = tuple(ref.shapes.get(o.name, o.shape))
        index = ", ".join(f":{s}" for s in shape)
        out = ["# The kernel file's torch reference.", *ref.source.strip().splitlines(), "", ""] + out
        out += [f'    got = outputs["{o.name}"][{index}]',
                f"    expected = {ref.function}({', '.join(params)}).float()",
                "    error = float((got - expected).abs().max())",
                f"    tolerance = 2 * {EPS.get(o.dtype, 2**-7)!r} * max(float(expected.abs().max()), 1.0)",
                f'    print("{o.name}: max |error|", error, "tolerance", tolerance, '
                '"OK" if error <= tolerance else "MISMATCH")',
                "    raise SystemExit(0 if error <= tolerance else 1)"]
        return out


def _comment(parts: list[str], indent: int) -> list[str]:
    """`# part; part` on one line when it fits 110 columns, else one part per line."""
    pad = " " * indent
    one = pad + "# " + "; ".join(parts)
    if len(one) <= 110:
        return [one]
    return [pad + "# " + parts[0]] + [pad + "#   " + p for p in parts[1:]]


def _ident(text: str) -> str:
    out = "".join(c if c.isalnum() else "_" for c in text).strip("_") or "kernel"
    return out if not out[0].isdigit() else "k_" + out


def _cb_roles(program: P.Program) -> dict[str, tuple[str, str]]:
    """CB -> (producing role, consuming role), from who reserves and who waits."""
    prod, cons = {}, {}
    for g in program.groups:
        for role in P.ROLES:
            for ins in P.walk(g.role(role)):
                if isinstance(ins, P.CbReserve):
                    prod.setdefault(ins.cb, role)
                elif isinstance(ins, P.CbWait):
                    cons.setdefault(ins.cb, role)
    return {cb: (prod.get(cb, "?"), cons.get(cb, "?")) for cb in set(prod) | set(cons)}


def _pipe_list(name: str, pipes: list[PipeSpec]) -> list[str]:
    """`<name>_pipes = [...]`: a comprehension over the senders when they form a lattice."""
    comp = _pipe_comprehension(pipes)
    if comp is not None:
        return [f"{name}_pipes = {comp}"]
    lines = [f"{name}_pipes = ["]
    lines += [f"    ttl.Pipe(src={p.src}, dst={_dst(p, p.src, ('', ''))})," for p in pipes]
    return lines + ["]"]


def _dst(p: PipeSpec, origin: tuple[int, int], names: tuple[str, str]) -> str:
    """The destination rectangle as `(slice(...), y)`, relative to `origin` named `names` if given."""
    def at(value: int, axis: int) -> str:
        if not names[axis]:
            return str(value)
        off = value - origin[axis]
        return names[axis] if off == 0 else f"{names[axis]} + {off}" if off > 0 else f"{names[axis]} - {-off}"

    extents = [p.hi[i] - p.lo[i] + 1 for i in range(2)]
    parts = []
    for axis in range(2):
        if extents[axis] > 1 or (axis == 0 and extents == [1, 1]):
            parts.append(f"slice({at(p.lo[axis], axis)}, {at(p.hi[axis] + 1, axis)})")
        else:
            parts.append(at(p.lo[axis], axis))
    return f"({parts[0]}, {parts[1]})"


def _pipe_comprehension(pipes: list[PipeSpec]) -> str | None:
    by_src: dict[tuple[int, int], list[PipeSpec]] = {}
    for p in pipes:
        by_src.setdefault(p.src, []).append(p)
    xs, ys = sorted({s[0] for s in by_src}), sorted({s[1] for s in by_src})
    if len(by_src) < 2 or len(by_src) != len(xs) * len(ys):
        return None

    def step(vals: list[int]) -> int | None:
        steps = {b - a for a, b in zip(vals, vals[1:])}
        return steps.pop() if len(steps) == 1 else (1 if len(vals) == 1 else None)

    sx, sy = step(xs), step(ys)
    if sx is None or sy is None:
        return None
    first = by_src[(xs[0], ys[0])]
    def relative(ps: list[PipeSpec]) -> list:
        return [((p.lo[0] - p.src[0], p.lo[1] - p.src[1]), (p.hi[0] - p.src[0], p.hi[1] - p.src[1]))
                for p in ps]

    if any(relative(ps) != relative(first) for ps in by_src.values()):
        return None
    order = [p for y in ys for x in xs for p in by_src[(x, y)]]
    if order != pipes:
        return None
    vx = "px" if len(xs) > 1 else ""
    vy = "py" if len(ys) > 1 else ""
    src = f"({vx or xs[0]}, {vy or ys[0]})"
    origin = (xs[0], ys[0])
    dsts = [_dst(p, origin, (vx, vy)) for p in first]
    loops = []
    if vy:
        loops.append(f"for py in range({ys[0]}, {ys[-1] + 1}{f', {sy}' if sy != 1 else ''})"
                     if ys[0] or sy != 1 else f"for py in range({ys[-1] + 1})")
    if vx:
        loops.append(f"for px in range({xs[0]}, {xs[-1] + 1}{f', {sx}' if sx != 1 else ''})"
                     if xs[0] or sx != 1 else f"for px in range({xs[-1] + 1})")
    if len(dsts) == 1:
        return f"[ttl.Pipe(src={src}, dst={dsts[0]}) {' '.join(loops)}]"
    return f"[ttl.Pipe(src={src}, dst=d) {' '.join(loops)} for d in ({', '.join(dsts)})]"
