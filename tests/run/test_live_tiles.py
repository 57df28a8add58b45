"""Live tiles (issue 19's causal target): in a loop to the query block's end, the ops on the diagonal's
score block skip the tiles the causal mask kills whole (`loom.backend.live_tiles`); the simulator prices
the live tiles and poisons the dead ones, the model credits the skipped work."""

from __future__ import annotations

import dataclasses

import numpy as np

from loom.backend import program as P
from loom.backend.live_tiles import restrict_to_live_tiles
from loom.kernel_file import load_kernel_file
from loom.model import expr as E
from loom.pipeline import compile as compile_kernel
from loom.run import padded_inputs, run
from loom.sim import simulate
from tests.conftest import ROOT

CAUSAL = ROOT / "examples" / "causal_attention.py"
BUFFERS = [P.Buffer(name, "float32", rows, cols)
           for name, rows, cols in [("s", 2, 2), ("p", 2, 2), ("m", 2, 1), ("acc", 2, 2)]]


def _causal(block_sizes: dict[str, int], arch: str = "ring32"):
    source = load_kernel_file(CAUSAL)
    args = source.example_args({"H": 1, "KV": 1, "L": 256, "D": 32})
    return source, args, compile_kernel(source.kernel, args, arch, block_sizes=block_sizes)


def _stripped(program: P.Program, keep=lambda ins: False) -> P.Program:
    """`program` with `live` removed from every compute op but those `keep` accepts."""
    def strip(body):
        return tuple(P.Loop(i.var, i.count, strip(i.body)) if isinstance(i, P.Loop) else
                     dataclasses.replace(i, live=None) if getattr(i, "live", None) and not keep(i) else i
                     for i in body)
    return dataclasses.replace(program, groups=tuple(dataclasses.replace(g, compute=strip(g.compute))
                                                     for g in program.groups))


def _live_ops(program: P.Program) -> list[str]:
    return [type(i).__name__ + (f"({i.op})" if hasattr(i, "op") else "")
            for i in P.walk(program.groups[0].compute) if getattr(i, "live", None) is not None]


def test_the_score_ops_of_a_causal_key_loop_run_on_live_tiles_and_match_torch():
    """128 x 128 blocks: the diagonal block's 6 of 16 tiles above the diagonal are skipped by the ten ops
    from the score matmul to the matmul with V (not the transpose of K nor the running max); the result
    matches torch, and the same program computing every tile takes longer."""
    source, args, compiled = _causal({"tile_m": 128, "tile_n": 128})
    outcome = run(compiled, args, reference=source.reference)
    assert outcome.check.ok, outcome.check
    assert _live_ops(outcome.program) == ["Fill", "Matmul", "Unary(scale)", "Mask", "Reduce(max)", "Binary(sub)",
                                          "Unary(exp)", "Reduce(sum)", "Copy", "Matmul"]
    whole = simulate(_stripped(outcome.program), compiled.lowering.arch)
    assert outcome.sim.cycles < whole.cycles


def test_a_consumer_that_reads_a_dead_tile_spoils_the_result():
    """The dead tiles hold NaN in the simulator: the running max on every tile would read them (the
    tiles' -inf is its identity only when skipped), so the output is NaN, not silently right."""
    source, args, compiled = _causal({"tile_m": 128, "tile_n": 128})
    program = run(compiled, args).program
    spoiled = _stripped(program, keep=lambda ins: not (isinstance(ins, P.Reduce) and ins.op == "max"))
    sim = simulate(spoiled, compiled.lowering.arch, functional=True,
                   inputs=padded_inputs(spoiled, args, compiled.kernel))
    assert np.isnan(sim.outputs["out"]).any()


def _live(role: list, chosen=lambda loop: True) -> tuple:
    return restrict_to_live_tiles(role, BUFFERS, chosen)


def _loop(*body) -> P.Loop:
    return P.Loop("j", P.Trips(P.Affine(0, (("i", 64),)), 64, 4), body)


MASK = P.Mask(P.Ref("s"), P.Ref("s"), float("-inf"), row_start=P.Affine(0, (("i", 64),)),
              col_start=P.Affine(0, (("j", 64),)), keep=((1, -1, 0),))


def test_a_max_over_exponentials_keeps_the_body_whole():
    """exp turns the dead tiles' -inf into 0, which a max must read: nothing runs on live tiles."""
    body = [P.Fill(P.Ref("s")), MASK, P.Unary("exp", P.Ref("s"), P.Ref("s")), P.Reduce("max", P.Ref("s"), P.Ref("m"))]
    assert _live([_loop(*body)]) == (_loop(*body),)
    softmax = body[:3] + [P.Reduce("sum", P.Ref("s"), P.Ref("m"))]
    restricted = _live([_loop(*softmax)])[0].body
    assert all(i.live is not None for i in restricted)


def test_a_dead_buffer_read_after_the_loop_keeps_the_body_whole():
    body = [P.Fill(P.Ref("s")), MASK, P.Copy(P.Ref("s"), P.Ref("p"))]
    after = P.Binary("add", P.Ref("acc"), P.Ref("p"), P.Ref("acc"))
    assert _live([_loop(*body), after])[0] == _loop(*body)
    assert _live([_loop(*body), P.Fill(P.Ref("p")), after])[0] != _loop(*body)


def test_a_matmul_skips_only_zeros_of_its_first_operand():
    """A product with V skips P's dead tiles once they are 0 (after exp); before, they are -inf."""
    product = P.Matmul(P.Ref("p"), P.Ref("v"), P.Ref("acc"))
    after_exp = [P.Fill(P.Ref("s")), MASK, P.Unary("exp", P.Ref("s"), P.Ref("s")), P.Copy(P.Ref("s"), P.Ref("p")),
                 product]
    assert _live([_loop(*after_exp)])[0].body[-1].live == P.Live(
        "p", MASK.row_start, MASK.col_start, MASK.keep)
    before_exp = [P.Fill(P.Ref("s")), MASK, P.Copy(P.Ref("s"), P.Ref("p")), product]
    assert _live([_loop(*before_exp)]) == (_loop(*before_exp),)


def test_the_live_tiles_of_a_block_on_the_diagonal():
    live = P.Live("s", P.Affine(0, (("i", 64),)), P.Affine(0, (("j", 64),)), ((1, -1, 0),))
    assert live.tiles({"i": 1, "j": 1}, 2, 2, (32, 32)) == [[True, False], [True, True]]
    assert live.tiles({"i": 1, "j": 0}, 2, 2, (32, 32)) == [[True, True], [True, True]]


def test_the_model_credits_the_dead_tiles_of_the_diagonal():
    """The model's loop to the tile's end subtracts the skipped score work: a (max(a, b) - 1) / 2 tiles of
    each query block, at 128 x 128 blocks (a = b = 4) 3 / 8 of one block's score ops."""
    _, _, compiled = _causal({"tile_m": 128, "tile_n": 128})
    best = compiled.ranked[0]
    credit = [t for t in E.walk(best.model.latency.total) if t.label == "dead tiles on the diagonal"]
    assert len(credit) == 1 and E.evaluate(credit[0], best.values) > 0


def test_ttnn_s_causal_sdpa_computes_the_diagonal_block_whole():
    """The `live` knob is the solver's (on for Loom); TTNN's causal SDPA masks its diagonal chunk whole, so its
    baseline leaves the knob off: no op of its programs runs on live tiles, and its model takes no credit."""
    from loom.arch import load_arch
    from loom.baselines.schedules import ttnn_causal_attention

    source = load_kernel_file(CAUSAL)
    shape = {"B": 1, "H": 2, "KV": 1, "L": 256, "D": 32}
    args = source.example_args(shape)
    baseline = ttnn_causal_attention(shape, load_arch("wormhole_n150"), q_chunk=128, k_chunk=128)
    compiled = compile_kernel(source.kernel, args, baseline.arch, shape=shape, schedule=baseline.schedule)
    outcome = run(compiled, args, reference=source.reference)
    assert outcome.check.ok and not _live_ops(outcome.program)
    credit = [t for t in E.walk(compiled.ranked[0].model.latency.total) if t.label == "dead tiles on the diagonal"]
    assert len(credit) == 1 and E.evaluate(credit[0], compiled.ranked[0].values) == 0
    loom = compile_kernel(source.kernel, args, "wormhole_n150", block_sizes={"tile_m": 128, "tile_n": 128})
    assert loom.schedule.knobs["live_tiles_tile_n_idx"] == 1
    assert compiled.schedule.knobs["live_tiles_tile_n_idx"] == 0


def test_a_loop_whose_knob_is_off_keeps_its_body_whole():
    body = [P.Fill(P.Ref("s")), MASK, P.Unary("exp", P.Ref("s"), P.Ref("s")), P.Reduce("sum", P.Ref("s"), P.Ref("m"))]
    assert _live([_loop(*body)], chosen=lambda loop: loop != "j") == (_loop(*body),)
