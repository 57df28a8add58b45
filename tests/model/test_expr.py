"""Expression trees: exact evaluation of each node, simplification, printing, operators, names."""

from __future__ import annotations

import pickle
from fractions import Fraction

import pytest

from loom.model import expr as E
from loom.model.expr import (
    Add,
    CeilDiv,
    Const,
    FloorDiv,
    Knob,
    Max,
    Min,
    Mul,
    Rate,
    Select,
    Var,
    add,
    breakdown,
    ceil_div,
    children,
    describe,
    evaluate,
    floor_div,
    free_names,
    maximum,
    minimum,
    mul,
    pretty,
    rate,
    select,
    terms,
    with_label,
)
from loom.model.intervals import bounds

x, y, z = Var("x"), Var("y"), Var("z")
b = Knob("b")


@pytest.mark.parametrize(
    "e, env, value",
    [
        (Const(7), {}, 7),
        (x, {"x": 5}, 5),
        (b, {"b": 1}, 1),
        (Add((x, y, Const(3))), {"x": 2, "y": 4}, 9),
        (Mul((x, y, Const(-2))), {"x": 2, "y": 4}, -16),
        (CeilDiv(x, y), {"x": 7, "y": 2}, 4),
        (CeilDiv(x, y), {"x": -7, "y": 2}, -3),
        (CeilDiv(x, y), {"x": 8, "y": 2}, 4),
        (FloorDiv(x, y), {"x": 7, "y": 2}, 3),
        (FloorDiv(x, y), {"x": -7, "y": 2}, -4),
        (Max((x, y, Const(1))), {"x": -2, "y": 0}, 1),
        (Min((x, y)), {"x": -2, "y": 0}, -2),
        (Select(b, x, y), {"b": 1, "x": 3, "y": 4}, 3),
        (Select(b, x, y), {"b": 0, "x": 3, "y": 4}, 4),
        (Rate(x, 45, 2), {"x": 45}, 2),  # 45 B at 22.5 B/cycle: 2 cycles
        (Rate(x, 45, 2), {"x": 46}, 3),  # rounded up
        (Rate(x, 45, 2), {"x": 0}, 0),
    ],
)
def test_evaluate_each_node(e, env, value):
    assert evaluate(e, env) == value


def test_evaluate_errors():
    with pytest.raises(KeyError, match="'x'"):
        evaluate(x + 1, {})
    with pytest.raises(ValueError, match="knob 'b' must be 0 or 1"):
        evaluate(select(b, x, 0), {"b": 2, "x": 1})
    with pytest.raises(ZeroDivisionError, match="must be positive"):
        evaluate(CeilDiv(x, y), {"x": 1, "y": 0})


def test_evaluate_shared_subtrees_once():
    e = x
    for _ in range(200):  # a DAG of depth 200: exponential as a tree, linear with sharing
        e = Add((e, e))
    assert evaluate(e, {"x": 1}) == 2**200
    assert bounds(e, {"x": (0, 1)}) == (0, 2**200)


def test_raw_constructors_do_not_simplify_but_wrap_ints():
    assert Add((x, 0)).terms == (x, Const(0))
    assert Mul((1, x)).factors == (Const(1), x)
    assert Select("b", 1, 2).cond == b
    with pytest.raises(ValueError):
        Add(())
    with pytest.raises(TypeError):
        Add((x, 1.5))
    with pytest.raises(ValueError):
        Rate(x, 0, 1)


def test_simplification():
    assert add(x, 0) == x
    assert add(1, 2) == Const(3)
    assert add(x, 1, add(y, 2)) == Add((x, y, Const(3)))
    assert mul(x, 1) == x
    assert mul(2, x, 3) == Mul((Const(6), x))
    assert mul(x, mul(y, z)) == Mul((x, y, z))
    assert mul(x, 0) == Const(0)
    assert maximum(x) == x
    assert maximum(x, maximum(y, 3), 5, x) == Max((x, y, Const(5)))
    assert minimum(3, 1, 2) == Const(1)
    assert ceil_div(7, 2) == Const(4)
    assert floor_div(7, 2) == Const(3)
    assert ceil_div(x, 1) == x
    assert ceil_div(0, x) == Const(0)
    assert select(b, x, x) == x
    assert rate(x, 1) == x
    assert rate(45, 22.5) == Const(2)
    with pytest.raises(ValueError):
        ceil_div(x, 0)
    with pytest.raises(ValueError):
        rate(x, 0)


def test_simplification_is_deterministic():
    want = "Max((Var('y'), Var('x'), Const(4)))"
    assert repr(maximum(y, x, 3, y, 4)) == repr(maximum(y, x, 3, y, 4)) == want


def test_rate_throughput_as_fraction():
    r = rate(x, 22.5)
    assert isinstance(r, Rate) and (r.per_cycle_num, r.per_cycle_den) == (45, 2)
    assert rate(x, Fraction(90, 4)) == r
    # A float that is not exactly a short fraction is limited to denominators <= 1000.
    assert rate(x, 1 / 3).throughput == Fraction(1, 3)


def test_operators():
    assert x + 1 == Add((x, Const(1)))
    assert 1 + x == Add((x, Const(1)))
    assert 2 * x == Mul((Const(2), x))
    assert x * y == Mul((x, y))
    assert evaluate(x - y, {"x": 5, "y": 7}) == -2
    assert evaluate(3 - x, {"x": 5}) == -2
    assert evaluate(-x, {"x": 5}) == -5
    assert x // 4 == FloorDiv(x, Const(4))
    assert 100 // x == FloorDiv(Const(100), x)


def test_labels_do_not_change_equality_and_block_flattening():
    load = with_label(x * y, "DRAM load of x")
    assert load == x * y and hash(load) == hash(x * y)
    assert describe(load) == "DRAM load of x"
    total = add(load, z * 2, 5)
    assert total.terms[0].label == "DRAM load of x"
    nested = add(x, add(y, z, label="inner"))
    assert len(nested.terms) == 2 and nested.terms[1].label == "inner"


def test_pretty():
    e = maximum(rate(x * y * 2, 22), ceil_div(x * y, 1024), select(b, z, 0))
    assert pretty(e) == "max(2*x*y/22, ceil(x*y/1024), select(b, z, 0))"
    assert pretty(rate(x, 22.5)) == "x/22.5"
    assert pretty(rate(x, Fraction(1, 3))) == "x/(1/3)"
    assert pretty(rate(x + y, 2)) == "(x + y)/2"
    assert pretty(x - 3) == "x - 3"
    assert pretty(x - 2 * y) == "x - 2*y"
    assert pretty(x - (y + z)) == "x - (y + z)"
    assert pretty(-x) == "-x"
    assert pretty((x + 1) * y) == "(x + 1)*y"
    assert pretty(floor_div(x, y * z)) == "floor(x/(y*z))"
    assert pretty(minimum(x, 4)) == "min(x, 4)"
    assert str(x + 1) == "x + 1"


def test_free_names_and_children():
    e = ceil_div(100, x) * select(b, y, Knob("a") * 3)
    assert free_names(e) == (("x", "y"), ("a", "b"))
    assert children(Select(b, x, 1)) == (b, x, Const(1))
    assert children(Const(1)) == ()


def test_terms_and_breakdown():
    e = maximum(with_label(x * 2, "load"), with_label(y + 1, "compute"))
    assert terms(e) == e.items
    assert breakdown(e, {"x": 3, "y": 10}) == [("load", 6), ("compute", 11)]
    assert terms(x) == (x,)


def test_bounds_interval_arithmetic():
    vb = {"x": (-2, 3), "y": (1, 4)}
    assert bounds(x * y, vb) == (-8, 12)
    assert bounds(ceil_div(x, y), vb) == (-2, 3)
    assert bounds(floor_div(x, y), vb) == (-2, 3)
    assert bounds(select(b, x, y) + b, vb) == (-2, 5)
    assert bounds(rate(y, 22.5), vb) == (1, 1)
    with pytest.raises(ValueError, match="must be positive"):
        bounds(ceil_div(y, x), vb)


def test_pickle_round_trip_keeps_labels_and_hash():
    e = add(with_label(rate(x * y, 22.5), "load"), select(b, z, 1))
    back = pickle.loads(pickle.dumps(e))
    assert back == e and hash(back) == hash(e) and back.terms[0].label == "load"


def test_sharing_returns_the_node_built_before():
    table: dict = {}
    with E.sharing(table):
        a = E.add(E.mul(E.Var("x"), 32), E.Const(4), label="cost")
        b = E.add(E.mul(E.Var("x"), 32), E.Const(4), label="cost")  # fresh leaves of equal value
        c = E.add(E.mul(E.Var("x"), 32), E.Const(4), label="other")  # another label: another node
        d = E.rate(E.Var("x", label="bytes"), 22.5)
        e = E.rate(E.Var("x", label="bytes of y"), 22.5)  # a leaf's label is part of the key
    assert a is b and a is not c and c.label == "other" and a == c
    assert d is not e and d.amount.label == "bytes" and e.amount.label == "bytes of y"
    assert E.add(E.Var("x"), 1) is not E.add(E.Var("x"), 1)  # no table installed: built anew


def test_a_model_built_over_a_shared_table_is_the_same_model():
    def model():
        x, y = E.Var("x"), E.Var("y")
        load = E.rate(E.mul(2, x, y), 22, label="DRAM read")
        return E.maximum(E.add(load, 40), E.ceil_div(E.mul(48, x), 32), E.select("k", load, 0), label="stage")

    with E.sharing({}):
        shared = model()
        again = model()
    assert shared is again and shared == model() and repr(shared) == repr(model())
