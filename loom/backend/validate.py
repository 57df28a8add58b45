"""Static checks of a `Program` against an architecture (`check_program`).

Everything that can be known without running is checked here: names, dtypes, tensor shapes,
which instructions each role may use, variables in scope, block shapes of compute operands,
CB counts against capacities, and L1 use per core. Whatever depends on a core's coordinates
at run time (destination CB names, multicast shapes, tile indices in range) is checked by the
simulator when it happens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loom import ops
from loom.backend.program import (
    CB_OPS,
    COMPUTE_OPS,
    CORE_VARS,
    MOVE_OPS,
    ROLES,
    Affine,
    Binary,
    CbPop,
    CbPush,
    CbReserve,
    CbWait,
    Copy,
    CoreGroup,
    DramRead,
    DramWrite,
    Fill,
    Instr,
    L1OverflowError,
    Loop,
    Mask,
    Matmul,
    Multicast,
    Program,
    ProgramError,
    Reduce,
    Ref,
    RemoteRead,
    Scalar,
    SemInc,
    SemSet,
    SemWait,
    Transpose,
    Unary,
    Write,
)
from loom.errors import LoomError

if TYPE_CHECKING:
    from loom.arch import Arch


def check_program(program: Program, arch: Arch) -> None:
    """Raise `ProgramError` naming the first problem of `program` on `arch`, or return None."""
    if program.arch != arch.name:
        raise ProgramError(f"program '{program.name}': expected a program for architecture '{arch.name}', "
                           f"found one for '{program.arch}'")
    if not program.groups:
        raise ProgramError(f"program '{program.name}': expected at least one core group, found none")
    _check_tensors(program, arch)
    seen: dict[tuple[int, ...], str] = {}
    for group in program.groups:
        _check_cores(group, arch, seen)
        _check_group(program, group, arch)
    usable = arch.l1.usable_bytes
    for group in program.groups:
        need = program.l1_bytes(arch)[group.cores[0]] if group.cores else 0
        if need > usable:
            tb = arch.dtypes.tile_bytes
            parts = [f"CB '{cb.name}' {cb.capacity} x {tb[cb.dtype]} B" for cb in group.cbs]
            parts += [f"buffer '{b.name}' {b.rows * b.cols} x {arch.dtypes.tile_bytes[b.dtype]} B"
                      for b in group.buffers]
            raise L1OverflowError(f"{group.label}: expected at most l1.usable_bytes = {usable} B of L1 per "
                                  f"core on {arch.name}, found {need} B ({'; '.join(parts)})")


def _check_tensors(program: Program, arch: Arch) -> None:
    names = set()
    tr, tc = arch.tiling.tile_rows, arch.tiling.tile_cols
    for t in program.tensors:
        if t.name in names:
            raise ProgramError(f"tensor '{t.name}': expected unique tensor names, found it twice")
        names.add(t.name)
        if t.dtype not in arch.dtypes.tile_bytes:
            raise ProgramError(f"tensor '{t.name}': expected a dtype of {arch.name} "
                               f"({', '.join(arch.dtypes.tile_bytes)}), found '{t.dtype}'")
        if len(t.shape) < 2 or t.shape[-2] % tr or t.shape[-1] % tc or min(t.shape) <= 0:
            raise ProgramError(f"tensor '{t.name}': expected at least 2 positive dims with the last two "
                               f"multiples of the {tr}x{tc} tile, found shape {t.shape}")
        if t.kind not in ("input", "output", "scratch"):
            raise ProgramError(f"tensor '{t.name}': expected kind input, output or scratch, found '{t.kind}'")
        if t.valid is not None and (len(t.valid) != len(t.shape)
                                    or not all(0 < v <= s for v, s in zip(t.valid, t.shape))):
            raise ProgramError(f"tensor '{t.name}': expected a valid extent of {len(t.shape)} positive dims "
                               f"within its shape {t.shape}, found {t.valid}")


def _check_cores(group: CoreGroup, arch: Arch, seen: dict[tuple[int, ...], str]) -> None:
    dims = arch.grid.dims
    if not group.cores:
        raise ProgramError(f"{group.label}: expected at least one core, found none")
    for core in group.cores:
        if len(core) != len(dims) or not all(0 <= c < d for c, d in zip(core, dims)):
            raise ProgramError(f"{group.label}: expected core coordinates inside the {arch.name} worker grid "
                               f"{'x'.join(map(str, dims))}, found {core}")
        if core in seen:
            raise ProgramError(f"{group.label}: core {core} is already in {seen[core]}; expected each core "
                               f"in exactly one group")
        seen[core] = group.label


def _check_group(program: Program, group: CoreGroup, arch: Arch) -> None:
    where = group.label
    names: set[str] = set()
    for decl in (*group.cbs, *group.buffers):
        if decl.name in names:
            raise ProgramError(f"{where}: expected unique CB/buffer names, found '{decl.name}' twice")
        names.add(decl.name)
        if decl.dtype not in arch.dtypes.tile_bytes:
            raise ProgramError(f"{where}: '{decl.name}': expected a dtype of {arch.name} "
                               f"({', '.join(arch.dtypes.tile_bytes)}), found '{decl.dtype}'")
        extent = (decl.rows, decl.cols, getattr(decl, "slots", 1))
        if min(extent) <= 0:
            raise ProgramError(f"{where}: '{decl.name}': expected positive rows, cols and slots, "
                               f"found {extent}")
    sems = [s.name for s in group.semaphores]
    if len(set(sems)) != len(sems):
        raise ProgramError(f"{where}: expected unique semaphore names, found {sems}")
    core_vars = set(CORE_VARS[:len(arch.grid.dims)])
    for role in ROLES:
        ctx = _Ctx(program, group, arch, f"{where}, {role} role", set(sems))
        ctx.body(group.role(role), core_vars, role)


class _Ctx:
    """What instruction checks of one role need to know."""

    def __init__(self, program: Program, group: CoreGroup, arch: Arch, where: str, sems: set[str]):
        self.program, self.group, self.arch, self.where, self.sems = program, group, arch, where, sems
        self.cbs = {cb.name: cb for cb in group.cbs}
        self.bufs = {b.name: b for b in group.buffers}
        self.ndims = len(arch.grid.dims)

    def fail(self, ins: object, message: str) -> None:
        raise ProgramError(f"{self.where}, {type(ins).__name__}: {message}")

    def body(self, body: tuple[Instr, ...], scope: set[str], role: str) -> None:
        allowed = CB_OPS + (COMPUTE_OPS if role == "compute" else MOVE_OPS)
        for ins in body:
            if isinstance(ins, Loop):
                if ins.var in scope:
                    self.fail(ins, f"expected a fresh loop variable, found '{ins.var}' already in scope")
                if isinstance(ins.count, int) and ins.count < 0:
                    self.fail(ins, f"expected a non-negative trip count, found {ins.count}")
                if not isinstance(ins.count, int):
                    if ins.count.block <= 0 or ins.count.most < 0:
                        self.fail(ins, f"expected a positive block and a non-negative most, found {ins.count}")
                    if not ins.count.end.variables <= scope | set(CORE_VARS):
                        self.fail(ins, f"expected trips that depend on enclosing loops, found {ins.count}")
                self.body(ins.body, scope | {ins.var}, role)
                continue
            if not isinstance(ins, allowed):
                kinds = "compute ops" if role == "compute" else "data movement and semaphore ops"
                self.fail(ins, f"expected CB ops or {kinds} in the {role} role, found {type(ins).__name__}")
            for expr in _exprs(ins):
                extra = expr.variables - scope
                if extra:
                    self.fail(ins, f"expected indices in the loop variables or core coordinates in scope "
                                   f"({', '.join(sorted(scope))}), found '{expr}' using "
                                   f"{', '.join(sorted(extra))}")
            self.instr(ins)

    def cb(self, ins: object, name: str) -> object:
        if name not in self.cbs:
            self.fail(ins, f"expected a CB declared in this group ({', '.join(self.cbs) or 'none'}), "
                           f"found '{name}'")
        return self.cbs[name]

    def instr(self, ins: Instr) -> None:
        if isinstance(ins, (CbReserve, CbPush, CbWait, CbPop)):
            cb = self.cb(ins, ins.cb)
            n = cb.block_tiles if ins.tiles is None else ins.tiles
            if isinstance(n, Affine):  # a growing prefix (CbWait): its first value must be a whole block
                if not isinstance(ins, CbWait) or any(c <= 0 for _, c in n.terms):
                    self.fail(ins, f"expected a count that grows with its loop (CbWait only), found {n}")
                n = n.const
            if not 0 < n <= cb.capacity:
                self.fail(ins, f"expected 1..{cb.capacity} tiles (CB '{cb.name}' capacity), found {n}")
        elif isinstance(ins, (DramRead, DramWrite)):
            tensor = self.program.tensor(ins.tensor)
            if len(ins.index) != len(tensor.shape):
                self.fail(ins, f"expected {len(tensor.shape)} index entries for tensor '{tensor.name}' "
                               f"{tensor.shape}, found {len(ins.index)}")
            cb = self.cb(ins, ins.cb)
            if ins.rows <= 0 or ins.cols <= 0 or ins.rows * ins.cols > cb.capacity:
                self.fail(ins, f"expected a block of 1..{cb.capacity} tiles, found {ins.rows}x{ins.cols}")
            self.noc(ins)
        elif isinstance(ins, (Write, Multicast)):
            self.cb(ins, ins.cb)
            coords = [ins.dst] if isinstance(ins, Write) else [ins.lo, ins.hi]
            for c in coords:
                if len(c) != self.ndims:
                    self.fail(ins, f"expected {self.ndims} core coordinate(s), found {len(c)}")
            if isinstance(ins, Multicast) and not self.arch.noc.multicast:
                self.fail(ins, f"expected an architecture with multicast, {self.arch.name} has none")
            self.noc(ins)
        elif isinstance(ins, RemoteRead):
            self.cb(ins, ins.cb)
            if len(ins.src) != self.ndims:
                self.fail(ins, f"expected {self.ndims} core coordinate(s), found {len(ins.src)}")
            self.noc(ins)
        elif isinstance(ins, (SemWait, SemSet, SemInc)):
            if ins.sem not in self.sems:
                declared = ", ".join(sorted(self.sems)) or "none"
                self.fail(ins, f"expected a semaphore declared in this group ({declared}), found '{ins.sem}'")
            if isinstance(ins, SemSet) and (ins.lo is None) != (ins.hi is None):
                self.fail(ins, "expected both lo and hi for a multicast semaphore set, found only one")
        else:
            self.compute(ins)

    def noc(self, ins: object) -> None:
        noc = getattr(ins, "noc", None)
        if noc is not None and not 0 <= noc < self.arch.noc.count:
            self.fail(ins, f"expected a NoC index below noc.count = {self.arch.noc.count}, found {noc}")

    def shape(self, ins: object, ref: Ref) -> tuple[int, int]:
        decl = self.cbs.get(ref.name) or self.bufs.get(ref.name)
        if decl is None:
            self.fail(ins, f"expected a CB or local buffer of this group "
                           f"({', '.join([*self.cbs, *self.bufs]) or 'none'}), found '{ref.name}'")
        rows = decl.rows - (ref.row.const if not ref.row.terms else 0) if ref.rows is None else ref.rows
        cols = decl.cols - (ref.col.const if not ref.col.terms else 0) if ref.cols is None else ref.cols
        if rows <= 0 or cols <= 0 or (not ref.row.terms and ref.row.const + rows > decl.rows) or (
                not ref.col.terms and ref.col.const + cols > decl.cols):
            self.fail(ins, f"expected '{ref.name}' sub-block inside its {decl.rows}x{decl.cols} tiles, found "
                           f"rows {ref.row}+{rows}, cols {ref.col}+{cols}")
        return rows, cols

    def same(self, ins: object, what: str, want: tuple[int, int], found: tuple[int, int]) -> None:
        if want != found:
            self.fail(ins, f"expected {what} of {want[0]}x{want[1]} tiles, found {found[0]}x{found[1]}")

    def known_op(self, ins: Unary | Binary | Scalar | Reduce, form: str) -> None:
        """The op must be in the op table, and `arch` must price it."""
        try:
            op = ops.lookup(form, ins.op)
        except LoomError as err:
            self.fail(ins, err.message)
        missing = ops.missing_cost(op, self.arch)
        if missing:
            self.fail(ins, f"expected {', '.join(missing)} in {self.arch.name} to price '{ins.op}'")

    def compute(self, ins: Instr) -> None:
        if isinstance(ins, Fill):
            self.shape(ins, ins.dst)
        elif isinstance(ins, Matmul):
            m, k = self.shape(ins, ins.a)
            b = self.shape(ins, ins.b)
            kb, n = (b[1], b[0]) if ins.transpose_b else b
            if kb != k:
                self.fail(ins, f"expected b with {k} tile rows (a is {m}x{k}), found {kb}")
            self.same(ins, "acc", (m, n), self.shape(ins, ins.acc))
            if ins.fidelity is not None and ins.fidelity not in self.arch.matrix_engine.cycles_per_tile:
                priced = ", ".join(self.arch.matrix_engine.cycles_per_tile)
                self.fail(ins, f"expected a fidelity priced by {self.arch.name} ({priced}), "
                               f"found '{ins.fidelity}'")
            if ins.subblock is not None and (m % ins.subblock[0] or n % ins.subblock[1]):
                self.fail(ins, f"expected a subblock dividing the {m}x{n} output, found {ins.subblock}")
        elif isinstance(ins, (Transpose,)):
            r, c = self.shape(ins, ins.src)
            self.same(ins, "dst", (c, r), self.shape(ins, ins.dst))
        elif isinstance(ins, (Unary, Mask, Copy)):
            if isinstance(ins, Unary):
                self.known_op(ins, "unary")
            self.same(ins, "dst", self.shape(ins, ins.src), self.shape(ins, ins.dst))
        elif isinstance(ins, Scalar):
            self.known_op(ins, "binary")
            self.same(ins, "dst", self.shape(ins, ins.a), self.shape(ins, ins.dst))
        elif isinstance(ins, Binary):
            self.known_op(ins, "binary")
            a = self.shape(ins, ins.a)
            rows = a[0] // ins.repeat if ins.bcast in ("none", "col") else a[0]
            want = {"none": (rows, a[1]), "col": (rows, 1), "row": (1, a[1]), "scalar": (1, 1)}.get(ins.bcast)
            if ins.repeat < 1 or a[0] % ins.repeat:
                self.fail(ins, f"expected a repeat dividing a's {a[0]} row tiles, found {ins.repeat}")
            if want is None:
                self.fail(ins, f"expected bcast none, row, col or scalar, found '{ins.bcast}'")
            self.same(ins, f"b (bcast '{ins.bcast}')", want, self.shape(ins, ins.b))
            self.same(ins, "dst", a, self.shape(ins, ins.dst))
        elif isinstance(ins, Reduce):
            self.known_op(ins, "reduce")
            r, _ = self.shape(ins, ins.src)
            self.same(ins, "dst", (r, 1), self.shape(ins, ins.dst))


def _exprs(ins: Instr) -> list[Affine]:
    """Every index expression an instruction holds."""
    out: list[Affine] = []
    for value in vars(ins).values():
        if isinstance(value, Affine):
            out.append(value)
        elif isinstance(value, Ref):
            out += [value.row, value.col]
        elif isinstance(value, tuple) and value and isinstance(value[0], Affine):
            out += list(value)
    return out

