"""Trace.export against `gatescope export`: the same options give the same bytes."""

import pytest

import gatescope
from conftest import run_cli

CASES = [
    ("map.svg", dict(figure="map", layer=1, head=2), ["--figure", "map", "--layer", "1",
                                                      "--head", "2"]),
    ("decay.png", dict(figure="map", map="decay", layer=0, head=1, range=(20, 280), dpi=80,
                       colormap="magma"),
     ["--figure", "map", "--map", "decay", "--layer", "0", "--head", "1", "--range", "20:280",
      "--dpi", "80", "--colormap", "magma"]),
    ("grid.pdf", dict(figure="grid"), ["--figure", "grid"]),
    ("loss.svg", dict(figure="loss", width=600, height=200), ["--figure", "loss", "--width",
                                                              "600", "--height", "200"]),
    ("retention.svg", dict(figure="retention", layer=2, head=0), ["--figure", "retention",
                                                                  "--layer", "2", "--head", "0"]),
]


@pytest.mark.parametrize("name,options,flags", CASES)
def test_export_writes_the_cli_figure(traces, tmp_path, name, options, flags):
    ours, theirs = tmp_path / f"py-{name}", tmp_path / f"cli-{name}"
    title = gatescope.open(traces["fox"]).export(ours, **options)
    run_cli("export", traces["fox"], *flags, "--out", theirs)
    assert title and ours.read_bytes() == theirs.read_bytes()


def test_compare_figure_and_errors(traces, tmp_path):
    t = gatescope.open(traces["fox"])
    ours, theirs = tmp_path / "py.svg", tmp_path / "cli.svg"
    t.export(ours, figure="compare", compare=gatescope.open(traces["transformer"]))
    run_cli("export", traces["fox"], "--figure", "compare", "--compare", traces["transformer"],
            "--out", theirs)
    assert ours.read_bytes() == theirs.read_bytes()
    with pytest.raises(gatescope.UsageError, match="png, .svg or .pdf"):
        t.export(tmp_path / "x.bmp")
    with pytest.raises(gatescope.UsageError, match="compare"):
        t.export(tmp_path / "x.svg", figure="compare")
    with pytest.raises(gatescope.Error):
        t.export(tmp_path / "x.svg", layer=7)
    assert not (tmp_path / "x.svg").exists()
