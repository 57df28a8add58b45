"""Architecture descriptions: the shipped YAML files load, cite every number, and bad files
raise `ArchError` naming the offending field."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from loom.arch import ARCH_DIR, Arch, list_archs, load_arch
from loom.errors import ArchError

SHIPPED = ["blackhole_p150", "blackhole_p150_11x10", "ring32", "wormhole_n150"]


def raw(name: str) -> dict[str, Any]:
    """The parsed YAML of a shipped architecture, as plain data to mutate."""
    return yaml.safe_load((ARCH_DIR / f"{name}.yaml").read_text())


def write(tmp_path: Path, data: dict[str, Any], stem: str = "variant") -> Path:
    path = tmp_path / f"{stem}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


# --- the shipped files --------------------------------------------------------------------


def test_list_archs_returns_the_shipped_files() -> None:
    assert list_archs() == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_arch_loads(name: str) -> None:
    arch = load_arch(name)
    assert isinstance(arch, Arch)
    assert arch.name == name
    assert arch.num_cores == arch.grid.num_cores > 0
    assert len(arch.dram.bank_positions) == arch.dram.banks
    assert set(arch.headline()) == {"cores", "L1 usable", "DRAM", "NoCs", "peak TFLOPS (bf16 LoFi)", "clock"}


def test_load_by_name_and_by_path_agree_and_are_cached() -> None:
    by_name = load_arch("wormhole_n150")
    assert load_arch("wormhole_n150") is by_name
    assert load_arch(ARCH_DIR / "wormhole_n150.yaml") is by_name
    assert load_arch(str(ARCH_DIR / "wormhole_n150.yaml")) is by_name


def test_arch_is_frozen_and_hashable() -> None:
    arch = load_arch("wormhole_n150")
    with pytest.raises(ValidationError):
        arch.clock_ghz = 2.0  # type: ignore[misc]
    assert hash(arch) == hash(load_arch("wormhole_n150"))


def test_headline_figures() -> None:
    wh = load_arch("wormhole_n150").headline()
    assert wh["cores"] == "8x8 = 64"
    assert wh["peak TFLOPS (bf16 LoFi)"] == "262.1"  # tenstorrent.md §1: WH 64 cores ~ 262 TFLOPS
    assert wh["DRAM"] == "288 GB/s, 12 banks"
    bh = load_arch("blackhole_p150").headline()
    assert bh["cores"] == "13x10 = 130"
    assert bh["peak TFLOPS (bf16 LoFi)"] == "718.8"  # tenstorrent.md §1: BH 130 cores ~ 719
    assert load_arch("ring32").headline()["cores"] == "32 (ring)"


def test_ring_is_one_dimensional() -> None:
    ring = load_arch("ring32")
    assert ring.grid.dims == [32] and ring.grid.topology == "ring_1d"
    assert ring.noc.count == 1 and ring.noc.multicast == ["row"]


def _numbers_without_comment(path: Path) -> list[str]:
    """Lines of `path` holding a numeric YAML scalar but no `#` comment after it."""
    lines = path.read_text().splitlines()
    resolver = yaml.resolver.Resolver()
    bad = []
    for token in yaml.scan(path.read_text()):
        if not isinstance(token, yaml.ScalarToken) or not token.plain:
            continue
        tag = resolver.resolve(yaml.ScalarNode, token.value, (True, False))
        if tag.endswith((":int", ":float")):
            line = lines[token.start_mark.line]
            if "#" not in line[token.end_mark.column:]:
                bad.append(f"{path.name}:{token.start_mark.line + 1}: {line.strip()}")
    return list(dict.fromkeys(bad))


@pytest.mark.parametrize("name", SHIPPED)
def test_every_number_cites_a_source(name: str) -> None:
    assert _numbers_without_comment(ARCH_DIR / f"{name}.yaml") == []


def test_citation_check_catches_a_bare_number(tmp_path: Path) -> None:
    path = tmp_path / "bare.yaml"
    path.write_text("a: 1  # source\nb: [2, 3]\nc: \"4\"\nd: HiFi2\n")
    assert _numbers_without_comment(path) == ["bare.yaml:2: b: [2, 3]"]


# --- schema errors name the field -----------------------------------------------------------


def _delete(*keys: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        node = data
        for key in keys[:-1]:
            node = node[key]
        del node[keys[-1]]
    return mutate


def _set(value: Any, *keys: str | int) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        node: Any = data
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
    return mutate


CASES = [
    ("missing field", "wormhole_n150", _delete("noc", "link_bytes_per_cycle"), "noc.link_bytes_per_cycle"),
    ("missing section", "wormhole_n150", _delete("rates"), "rates"),
    ("wrong type", "wormhole_n150", _set("wide", "noc", "link_bytes_per_cycle"), "noc.link_bytes_per_cycle"),
    ("quoted number", "wormhole_n150", _set("12", "dram", "banks"), "dram.banks"),
    ("negative", "wormhole_n150", _set(-3, "dram", "banks"), "dram.banks"),
    ("zero in a list", "wormhole_n150", _set([8, 0], "grid", "dims"), "grid.dims.1"),
    ("bad literal", "wormhole_n150", _set(["row", "diagonal"], "noc", "multicast"), "noc.multicast.1"),
    ("usable > size", "wormhole_n150", _set(2_000_000, "l1", "usable_bytes"), "l1.usable_bytes"),
    ("column multicast on a ring", "ring32", _set(["row", "column"], "noc", "multicast"), "noc.multicast"),
    ("bank count mismatch", "wormhole_n150", _set(11, "dram", "banks"), "dram.bank_positions"),
    ("bank outside grid", "blackhole_p150", _set([20, 1], "dram", "bank_positions", 2),
     "dram.bank_positions.2"),
    ("extra field", "wormhole_n150", _set(32, "noc", "flit_bytes"), "noc.flit_bytes"),
    ("extra top-level field", "wormhole_n150", _set(1, "cores"), "cores"),
    ("topology vs dims", "wormhole_n150", _set("ring_1d", "grid", "topology"), "grid.topology"),
    ("noc topology vs grid", "ring32", _set("torus_2d", "noc", "topology"), "noc.topology"),
    ("no LoFi", "wormhole_n150", _delete("matrix_engine", "cycles_per_tile", "LoFi"),
     "matrix_engine.cycles_per_tile"),
    ("unknown fidelity", "wormhole_n150", _set(10, "matrix_engine", "cycles_per_tile", "HiFi9"),
     "matrix_engine.cycles_per_tile.HiFi9"),
    ("unpriced default fidelity", "blackhole_p150",
     _set("HiFi3", "matrix_engine", "default_fidelity", "float32"),
     "matrix_engine.default_fidelity.float32"),
    ("fidelity for unknown dtype", "wormhole_n150",
     _set("HiFi4", "matrix_engine", "default_fidelity", "float64"),
     "matrix_engine.default_fidelity.float64"),
    ("vector op missing", "wormhole_n150", _delete("vector_unit", "cycles_per_tile", "exp"),
     "vector_unit.cycles_per_tile"),
    ("two NoCs max", "wormhole_n150", _set(3, "noc", "count"), "noc.count"),
    ("bank on a worker's router", "wormhole_n150", _set([1, 1], "dram", "bank_positions", 0),
     "dram.bank_positions.0"),
    ("NoC 1 bank outside the routers", "blackhole_p150", _set([17, 1], "dram", "noc1_bank_positions", 3),
     "dram.noc1_bank_positions.3"),
    ("NoC 1 bank count", "blackhole_p150", _set([[0, 1]], "dram", "noc1_bank_positions"),
     "dram.noc1_bank_positions"),
    ("worker routers without the torus", "wormhole_n150", _delete("noc", "routers"), "noc.routers"),
    ("a worker line too short", "wormhole_n150", _set([1, 2, 3], "noc", "worker_routers", 0),
     "noc.worker_routers.0"),
    ("a worker line past the torus", "blackhole_p150", _set([2, 3, 4, 5, 6, 7, 8, 9, 10, 12], "noc",
                                                            "worker_routers", 1), "noc.worker_routers.1"),
]


@pytest.mark.parametrize(("case", "name", "mutate", "field"), CASES, ids=[c[0] for c in CASES])
def test_schema_error_names_the_field(tmp_path: Path, case: str, name: str,
                                      mutate: Callable[[dict[str, Any]], None], field: str) -> None:
    data = copy.deepcopy(raw(name))
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(ArchError) as info:
        load_arch(path)
    err = info.value
    assert err.field == field, str(err)
    assert err.file == str(path)
    assert "expected" in err.message or "unknown field" in err.message


def test_error_messages_say_expected_and_found(tmp_path: Path) -> None:
    data = raw("wormhole_n150")
    data["noc"]["link_bytes_per_cycle"] = "wide"
    with pytest.raises(ArchError, match=r"expected a valid integer, found 'wide'"):
        load_arch(write(tmp_path, data, "typed"))

    data = raw("wormhole_n150")
    del data["dram"]["banks"]
    with pytest.raises(ArchError, match=r"dram\.banks: expected this field \(Number of DRAM banks"):
        load_arch(write(tmp_path, data, "missing"))

    data = raw("wormhole_n150")
    data["noc"]["hop_latency"] = data["noc"].pop("hop_latency_cycles")
    with pytest.raises(ArchError, match=r"did you mean 'hop_latency_cycles'"):
        load_arch(write(tmp_path, data, "typo"))

    data = raw("wormhole_n150")
    data["l1"]["usable_bytes"] = 2_000_000
    with pytest.raises(ArchError, match=r"expected at most l1\.size_bytes = 1499136, found 2000000"):
        load_arch(write(tmp_path, data, "usable"))


def test_edited_file_is_reloaded(tmp_path: Path) -> None:
    data = raw("wormhole_n150")
    path = write(tmp_path, data)
    assert load_arch(path).clock_ghz == data["clock_ghz"]
    data["clock_ghz"] = 2.5
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    os.utime(path, ns=(1, 10**18))  # force a different mtime even on coarse filesystems
    assert load_arch(path).clock_ghz == 2.5


# --- lookup and YAML errors -----------------------------------------------------------------


def test_unknown_name_lists_available_archs() -> None:
    with pytest.raises(ArchError) as info:
        load_arch("wormhole_n300")
    for name in SHIPPED:
        assert name in info.value.message
    assert "did you mean 'wormhole_n150'" in info.value.message


def test_missing_path_is_an_arch_error(tmp_path: Path) -> None:
    with pytest.raises(ArchError, match="no file"):
        load_arch(tmp_path / "nowhere.yaml")


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: broken\ngrid:\n  dims: [8, 8\n  topology: torus_2d\n")
    with pytest.raises(ArchError) as info:
        load_arch(path)
    assert info.value.file == str(path)
    assert str(path) in str(info.value)
    assert "line 4" in info.value.message


def test_duplicate_key_is_rejected(tmp_path: Path) -> None:
    text = (ARCH_DIR / "wormhole_n150.yaml").read_text().replace("  banks: 12", "  banks: 12\n  banks: 6", 1)
    path = tmp_path / "dup.yaml"
    path.write_text(text)
    with pytest.raises(ArchError, match="duplicate key 'banks'"):
        load_arch(path)


def test_top_level_must_be_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n")
    with pytest.raises(ArchError, match="expected a mapping"):
        load_arch(path)
