"""stats() and compare() against the documents `gatescope stats --json` and `gatescope compare
--json` write for the same traces and options."""

import json

import gatescope
from conftest import run_cli


def read_json(path):
    with open(path) as f:
        return json.load(f)


def test_stats_is_the_cli_json(traces, tmp_path):
    out = tmp_path / "stats.json"
    run_cli("stats", traces["fox"], "--attention", "--json", out)
    assert gatescope.stats(traces["fox"], attention=True) == read_json(out)
    t = gatescope.open(traces["fox"])
    assert t.stats(attention=True) == read_json(out)


def test_stats_options_and_several_documents_are_the_cli_json(traces, tmp_path):
    out = tmp_path / "stats.json"
    run_cli("stats", traces["wall"], traces["gsa"], "--layers", "0,2-3", "--heads", "1",
            "--attention", "--bin-width", "32", "--bins-per-octave", "2", "--smooth", "11",
            "--horizon-threshold", "0.25", "--json", out)
    got = gatescope.stats([gatescope.open(traces["wall"]), traces["gsa"]], attention=True,
                          layers="0,2-3", heads=[1], bin_width=32, bins_per_octave=2, smooth=11,
                          horizon_threshold=0.25)
    assert got == read_json(out)


def test_compare_is_the_cli_json(fox_full, transformer_full, tmp_path):
    out = tmp_path / "compare.json"
    run_cli("compare", fox_full, transformer_full, "--json", out)
    a = gatescope.open(fox_full)
    assert a.compare(transformer_full) == read_json(out)
    run_cli("compare", fox_full, transformer_full, "--layers", "1", "--heads", "0,2",
            "--no-attention", "--bin-width", "100", "--json", out)
    assert gatescope.compare(a, gatescope.open(transformer_full), layers=[1], heads="0,2",
                             attention=False, bin_width=100) == read_json(out)


def test_bad_options_raise_usage_errors(traces):
    import pytest

    with pytest.raises(gatescope.UsageError):
        gatescope.stats(traces["fox"], bin_width=0)
    with pytest.raises(gatescope.UsageError):
        gatescope.compare(traces["fox"], traces["fox"], threads=-1)
