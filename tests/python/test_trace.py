"""gatescope.trace against `gatescope trace` (h5py reads of both files), its inputs, progress,
errors, and cancellation: KeyboardInterrupt (from Ctrl+C or from the progress callback) leaves no
file at `out`."""

import os
import pathlib
import signal
import threading
import time

import h5py
import numpy as np
import pytest

import gatescope
from conftest import SOURCE, TEXT, cli_json

FOX = SOURCE / "resources" / "models" / "fox"


def assert_same_trace(ours, theirs):
    with h5py.File(ours, "r") as a, h5py.File(theirs, "r") as b:
        assert np.array_equal(a["tokens/ids"][()], b["tokens/ids"][()])
        np.testing.assert_allclose(a["per_token/loss"][()], b["per_token/loss"][()], rtol=1e-5,
                                   atol=1e-5)
        for name in ("q", "k", "lse", "log_decay_cumsum"):
            np.testing.assert_allclose(a[f"layers/002/factors/{name}"][()],
                                       b[f"layers/002/factors/{name}"][()], rtol=1e-4, atol=1e-5)
        stored = "layers/001/pyramid/attention/max/" + min(a["layers/001/pyramid/attention/max"])
        np.testing.assert_allclose(a[stored][()], b[stored][()], rtol=1e-4,
                                   atol=1e-6)


def test_trace_of_a_file_is_the_cli_trace(traces, tmp_path):
    out = tmp_path / "fox.h5"
    seen = []
    outcome = gatescope.trace(FOX, pathlib.Path(TEXT), out, range=(0, 300), progress=seen.append)
    assert outcome["path"] == str(out) and outcome["tokens"] == 300 and outcome["layers"] == 4
    assert set(outcome) == {"path", "model_type", "tokens", "layers", "seconds",
                            "tokens_per_second", "device", "attention_path"}
    assert_same_trace(out, traces["fox"])
    ours, theirs = cli_json("info", out, "--json"), cli_json("info", traces["fox"], "--json")
    for doc in (ours, theirs):
        del doc["path"], doc["manifest"]["created_at"]
    assert ours["layers"] == theirs["layers"]
    assert ours["manifest"]["input"] == theirs["manifest"]["input"]
    fractions = [p.fraction for p in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert all(isinstance(p, gatescope.Progress) and p.stage for p in seen)


def test_trace_of_a_text_and_of_ids(fox_full, traces, tmp_path):
    text = TEXT.read_text()
    gatescope.trace(FOX, text, tmp_path / "text.h5")
    assert_same_trace(tmp_path / "text.h5", fox_full)
    with h5py.File(traces["fox"], "r") as f:
        ids = f["tokens/ids"][()]
    gatescope.trace(FOX, ids.tolist(), tmp_path / "ids.h5")
    assert_same_trace(tmp_path / "ids.h5", traces["fox"])
    assert gatescope.open(tmp_path / "ids.h5").manifest["input"]["kind"] == "ids"


def test_errors_name_the_problem(tmp_path):
    with pytest.raises(gatescope.Error) as e:
        gatescope.trace(tmp_path / "no-model", "text", tmp_path / "x.h5")
    assert "no-model" in str(e.value)
    with pytest.raises(gatescope.UsageError):
        gatescope.trace(FOX, "text", tmp_path / "x.h5", dtype="float8")
    with pytest.raises(ValueError):
        gatescope.trace(FOX, [[1, 2]], tmp_path / "x.h5")
    assert os.listdir(tmp_path) == []


def long_input():
    return pathlib.Path(SOURCE / "resources" / "samples" / "held_out.py")


def test_an_exception_from_progress_cancels_and_leaves_no_file(tmp_path):
    def stop(p):
        if p.stage != "loading":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        gatescope.trace(FOX, long_input(), tmp_path / "x.h5", range=(0, 4000), progress=stop)
    assert os.listdir(tmp_path) == []


def test_ctrl_c_cancels_and_leaves_no_file(tmp_path):
    started = time.monotonic()
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            gatescope.trace(FOX, long_input(), tmp_path / "x.h5", range=(0, 8000))
    finally:
        timer.cancel()
    assert time.monotonic() - started < 30
    assert os.listdir(tmp_path) == []


def test_cuda_without_a_gpu_fails_first_and_leaves_nothing(tmp_path):
    out = tmp_path / "x.h5"
    try:
        gatescope.trace(FOX, "abc", out, device="cuda")
    except gatescope.Error as e:  # this build or machine has no GPU: never a silent CPU run
        assert e.kind == "unsupported" and "cuda" in str(e).lower()
        assert os.listdir(tmp_path) == []
    else:
        assert "cuda" in gatescope.open(out).manifest["device"]
