"""Reduction splits run in loom.sim and match torch: split-K GEMM (sum) and Flash Decode (log-sum-exp),
on every architecture, for widths 2, 4 and a non-power-of-two."""

from __future__ import annotations

import pytest

from loom.backend import program as P
from loom.backend.combine import READY, VALID
from loom.kernel_file import load_kernel_file
from loom.pipeline import compile as compile_kernel
from loom.run import run
from tests.conftest import EXAMPLES

CASES = [  # kernel, shape, block sizes, architecture, split width
    ("matmul", {"M": 128, "N": 128, "K": 1024}, {"tile_m": 32, "tile_n": 32, "tile_k": 128}, "wormhole_n150", 2),
    ("matmul", {"M": 128, "N": 128, "K": 1024}, {"tile_m": 32, "tile_n": 32, "tile_k": 128}, "wormhole_n150", 4),
    ("matmul", {"M": 128, "N": 128, "K": 1024}, {"tile_m": 32, "tile_n": 32, "tile_k": 64}, "blackhole_p150", 5),
    ("matmul", {"M": 128, "N": 128, "K": 1024}, {"tile_m": 32, "tile_n": 32, "tile_k": 128}, "ring32", 2),
    ("flash_decode", {"B": 2, "H": 4, "L": 1024, "D": 64}, {"tile_n": 64}, "wormhole_n150", 2),
    ("flash_decode", {"B": 2, "H": 4, "L": 1024, "D": 64}, {"tile_n": 64}, "wormhole_n150", 4),
    ("flash_decode", {"B": 2, "H": 4, "L": 1024, "D": 64}, {"tile_n": 32}, "blackhole_p150", 5),
    ("flash_decode", {"B": 2, "H": 4, "L": 1024, "D": 64}, {"tile_n": 64}, "ring32", 4),
    ("flash_decode", {"B": 2, "H": 4, "L": 1024, "D": 64, "G": 4}, {"tile_n": 64}, "wormhole_n150", 4),  # grouped
    ("flash_decode", {"B": 8, "H": 1, "L": 1024, "D": 64, "G": 8}, {"tile_n": 64}, "wormhole_n150", 4),  # multi-query
    ("flash_decode", {"B": 1, "H": 1, "L": 2048, "D": 64}, {"tile_n": 64}, "wormhole_n150", 16),  # 2-D group
    # an online softmax carrying a plain sum beside it (the label's logit): its partials add
    ("cross_entropy", {"N": 64, "V": 1024}, {"tile_m": 32, "tile_v": 128}, "wormhole_n150", 8),
]

def _split_run(kernel, shape, sizes, arch, width):
    source = load_kernel_file(EXAMPLES / f"{kernel}.py")
    args = source.example_args(shape)
    compilation = compile_kernel(source.kernel, args, arch, shape=shape, block_sizes=sizes, top_k=0)
    chosen = [r for r in compilation.ranked if r.model.candidate.split and r.model.candidate.split.width == width]
    assert chosen, f"no split of width {width} among {[r.name for r in compilation.ranked]}"
    compilation.ranked = chosen[:1]
    return source, run(compilation, args, reference=source.reference)


@pytest.mark.parametrize("kernel, shape, sizes, arch, width", CASES)
def test_split_program_matches_torch(kernel, shape, sizes, arch, width):
    source, outcome = _split_run(kernel, shape, sizes, arch, width)
    assert outcome.check.ok, outcome.check
    roots = [g for g in outcome.program.groups if any(isinstance(i, P.DramWrite) for i in _flat(g.writer))]
    assert len(roots) * width == len(outcome.program.groups)  # only the line's first core stores


def test_dropping_the_merge_is_caught(monkeypatch):
    """The check is not vacuous: without the log-sum-exp merge the numbers are wrong."""
    import loom.backend.combine as combine

    monkeypatch.setattr(combine, "_rescale", lambda *a: [])  # the log-sum-exp merge of each partial
    _, outcome = _split_run(*CASES[5])
    assert not outcome.check.ok


def test_combine_reads_a_partial_only_after_its_producer_committed_it():
    """Root: the gathered CBs are pushed to compute only after every sender signalled `valid`;
    sender: `valid` is raised only after its writes completed (barrier) — and the run ends
    with every gather CB drained."""
    _, outcome = _split_run(*CASES[1])
    for group in outcome.program.groups:
        writer = list(_flat(group.writer))
        names = [type(i).__name__ for i in writer]
        if any(isinstance(i, P.Write) for i in writer):  # a sender
            last_write = max(k for k, i in enumerate(writer) if isinstance(i, P.Write))
            signal = next(k for k, i in enumerate(writer) if isinstance(i, P.SemInc) and i.sem == VALID)
            assert "Barrier" in names[last_write:signal]
        if any(isinstance(i, P.SemInc) and i.sem == READY for i in writer):  # a root
            wait = next(k for k, i in enumerate(writer) if isinstance(i, P.SemWait) and i.sem == VALID)
            push = next(k for k, i in enumerate(writer) if isinstance(i, P.CbPush) and i.cb.startswith("gather_"))
            assert wait < push
            compute = list(_flat(group.compute))
            first_read = next(k for k, i in enumerate(compute) if isinstance(i, P.Binary)
                              and "gather_" in (i.b.name + i.a.name))
            waited = next(k for k, i in enumerate(compute) if isinstance(i, P.CbWait) and i.cb.startswith("gather_"))
            assert waited < first_read
    assert outcome.check.ok


def _flat(instrs):
    for i in instrs:
        if isinstance(i, P.Loop):
            yield from _flat(i.body)
        else:
            yield i
