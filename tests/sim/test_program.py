"""The per-core program form: affine indices, and validation errors that say expected vs found."""

from __future__ import annotations

import pytest

from loom.backend import (
    CB,
    Affine,
    Barrier,
    Buffer,
    CbPush,
    CbReserve,
    CoreGroup,
    DramRead,
    L1OverflowError,
    Loop,
    Matmul,
    Program,
    ProgramError,
    Ref,
    Tensor,
    cx,
    cy,
)
from loom.backend.validate import check_program


def test_affine_arithmetic_and_text() -> None:
    i = Affine.var("i")
    e = 2 * cx + 3 - cy + i * 4
    assert e.eval({"cx": 1, "cy": 5, "i": 2}) == 2 + 3 - 5 + 8
    assert str(e) == "2*cx - cy + 4*i + 3"
    assert str(Affine.of(-3)) == "-3" and str(-cx) == "-cx"
    assert (cx - cx).terms == () and e.variables == {"cx", "cy", "i"}
    with pytest.raises(ProgramError, match="expected an int or Affine"):
        Affine.of(1.5)  # type: ignore[arg-type]


def _program(arch_name: str = "wormhole_n150", **group: object) -> Program:
    base = dict(cores=((0, 0),), cbs=(CB("in", "bfloat16", 2, 2, 2),), reader=(), compute=(), writer=())
    base.update(group)
    tensors = (Tensor("A", (64, 64), "bfloat16"),)
    return Program(arch_name, tensors, (CoreGroup(**base),), "t")


def test_valid_program_passes(wh) -> None:
    read = DramRead("A", (0, 0), "in", 2, 2)
    check_program(_program(reader=(Loop("i", 3, (CbReserve("in"), read, Barrier(), CbPush("in"))),)), wh)


@pytest.mark.parametrize(("group", "message"), [
    ({"reader": (DramRead("B", (0, 0), "in", 1, 1),)}, "expected a declared tensor named 'B'"),
    ({"reader": (DramRead("A", (0, 0), "out", 1, 1),)}, "expected a CB declared in this group"),
    ({"reader": (DramRead("A", (Affine.var("j"), 0), "in", 1, 1),)}, "found 'j' using j"),
    ({"reader": (DramRead("A", (0,), "in", 1, 1),)}, "expected 2 index entries"),
    ({"compute": (DramRead("A", (0, 0), "in", 1, 1),)}, "expected CB ops or compute ops in the compute role"),
    ({"reader": (Matmul(Ref("in"), Ref("in"), Ref("in")),)}, "data movement and semaphore ops"),
    ({"cores": ((8, 0),)}, "inside the wormhole_n150 worker grid 8x8, found (8, 0)"),
    ({"reader": (Loop("cx", 2, ()),)}, "expected a fresh loop variable, found 'cx'"),
    ({"buffers": (Buffer("acc", "float32", 2, 3),),
      "compute": (Matmul(Ref("in"), Ref("in"), Ref("acc")),)}, "expected acc of 2x2 tiles, found 2x3"),
    ({"cbs": (CB("in", "float64", 1, 1),)}, "expected a dtype of wormhole_n150"),
])
def test_validation_errors_name_expected_and_found(wh, group: dict, message: str) -> None:
    with pytest.raises(ProgramError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_program(_program(**group), wh)


def test_wrong_arch_and_duplicate_cores(wh) -> None:
    with pytest.raises(ProgramError, match="expected a program for architecture 'wormhole_n150'"):
        check_program(_program("blackhole_p150"), wh)
    g = CoreGroup(cores=((0, 0),))
    with pytest.raises(ProgramError, match="already in"):
        check_program(Program("wormhole_n150", (), (g, g)), wh)


def test_l1_overflow_is_a_typed_error(wh) -> None:
    big = CB("huge", "float32", 16, 16, 2)  # 512 tiles x 4 KiB = 2 MiB
    with pytest.raises(L1OverflowError) as info:
        check_program(_program(cbs=(big,)), wh)
    assert "expected at most l1.usable_bytes = 1398784 B" in info.value.message
    assert "found 2097152 B" in info.value.message and "CB 'huge'" in info.value.message
    assert _program().l1_bytes(wh) == {(0, 0): 8 * 2048}


def test_cy_is_not_in_scope_on_a_ring() -> None:
    from loom.arch import load_arch
    ring = load_arch("ring32")
    prog = Program("ring32", (Tensor("A", (64, 64), "bfloat16"),),
                   (CoreGroup(cores=((0,),), cbs=(CB("in", "bfloat16"),),
                              reader=(DramRead("A", (cy, 0), "in"),)),))
    with pytest.raises(ProgramError, match="using cy"):
        check_program(prog, ring)


def test_text_listing_is_compact(wh) -> None:
    from loom.sim.gemm_workload import gemm_program, ttnn_default_config
    text = gemm_program(wh, ttnn_default_config(wh, 1024, 1024, 1024)).text()
    assert "group 'A sender, B sender': cores (0, 0)" in text
    assert "      for bh in 0..1:\n        for bw in 0..1:\n          for kb in 0..8:" in text
    assert "DramRead(tensor=A, index=(4*bh + 4*cy, 4*kb), cb=in0, rows=4, cols=4)" in text
    assert "Matmul(a=in0[4*si:+4, :], b=in1[:, 2*sj:+2], acc=acc[4*si:+4, 2*sj:+2], fidelity=HiFi2)" in text
    assert len(text.splitlines()) < 400  # 64 cores, four groups: loops keep it small
