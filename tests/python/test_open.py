"""gatescope.open and what a Trace reads, against `gatescope info --json` and h5py."""

import h5py
import numpy as np
import pytest

import gatescope
from conftest import ARCHS, cli_json, run_cli


@pytest.mark.parametrize("arch", ARCHS)
def test_metadata_and_manifest_are_info_json(traces, arch):
    t = gatescope.open(traces[arch])
    assert {**t.metadata, "manifest": t.manifest} == cli_json("info", traces[arch], "--json")
    assert len(t) == t.n_tokens == 300
    assert t.model_type == t.manifest["model_type"]
    assert [layer["index"] for layer in t.layers] == [0, 1, 2, 3]


@pytest.mark.parametrize("arch", ARCHS)
def test_per_token_arrays_gates_and_factors_are_the_files(traces, arch):
    t = gatescope.open(traces[arch])
    with h5py.File(traces[arch], "r") as f:
        assert np.array_equal(t.token_ids, f["tokens/ids"][()])
        assert t.token_ids.dtype == np.int32
        assert t.token_text == list(f["tokens/text"].asstr()[()])
        assert np.array_equal(t.byte_offsets, f["tokens/byte_offsets"][()])
        assert t.source_text == f["tokens/source_text"].asstr()[()]
        assert np.array_equal(t.loss, f["per_token/loss"][()], equal_nan=True)
        assert np.array_equal(t.rank, f["per_token/target_rank"][()])
        assert np.array_equal(t.entropy, f["per_token/entropy"][()], equal_nan=True)
        assert np.array_equal(t.top_ids, f["per_token/top_ids"][()])
        assert np.array_equal(t.top_logprobs, f["per_token/top_logprobs"][()])
        text = dict(zip(f["per_token/vocab_ids"][()], f["per_token/vocab_text"].asstr()[()]))
        top = t.top_predictions(100)
        assert [name for name, _ in top] == [text[i] for i in f["per_token/top_ids"][100]]
        assert all(a >= b for (_, a), (_, b) in zip(top, top[1:]))
        for layer in t.layers:
            group = f[f"layers/{layer['index']:03d}"]
            if layer["gates"]:
                stored = group["gates/log_retention"]
                assert np.array_equal(t.gates(layer["index"]), stored[()])
                assert np.array_equal(t.gates(layer["index"], 1, range(17, 290)),
                                      stored[1, 17:290])
            for name, shape in layer["factors"].items():
                got = t.factor(layer["index"], name, shape[0] - 1, (5, 299))
                assert np.array_equal(got, group[f"factors/{name}"][shape[0] - 1, 5:299])


def test_arrays_come_without_a_copy(traces):
    t = gatescope.open(traces["fox"])
    for a in (t.loss, t.token_ids, t.byte_offsets, t.gates(0), t.tile(0, 0, range(0, 64))):
        assert not a.flags.owndata and a.base is not None  # owned by the core's vector
        assert a.flags.c_contiguous


def test_missing_and_corrupt_files_raise_naming_them(tmp_path):
    missing = tmp_path / "nothing.h5"
    with pytest.raises(gatescope.IoError) as e:
        gatescope.open(missing)
    assert str(missing) in str(e.value) and e.value.kind == "io"
    assert isinstance(e.value, OSError) and isinstance(e.value, gatescope.Error)
    for name, data in (("corrupt.h5", b"\x89HDF\r\n\x1a\n" + b"\0" * 100),
                       ("text.h5", b"hello\n")):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(gatescope.FormatError) as e:
            gatescope.open(path)
        assert str(e.value).startswith(f"{path}: ") and e.value.file == str(path)
        assert e.value.kind == "format"
    # The CLI says the same
    assert str(e.value) in run_cli("info", path, check=False).stderr


def test_bad_arguments_raise_usage_and_missing_errors(traces):
    t = gatescope.open(traces["transformer"])
    with pytest.raises(gatescope.UsageError, match="layer 9"):
        t.tile(9, 0, range(0, 10))
    with pytest.raises(gatescope.UsageError, match="head 7"):
        t.tile(0, 7, range(0, 10))
    with pytest.raises(gatescope.UsageError):
        t.tile(0, 0, range(10, 10))
    with pytest.raises(gatescope.MissingError, match="no decay"):
        t.tile(0, 0, range(0, 10), map="decay")
    with pytest.raises(gatescope.MissingError, match="level 5"):
        t.tile(0, 0, range(0, 10), level=5)
    with pytest.raises(gatescope.UsageError, match="outside"):
        t.row(0, 0, 300)
    with pytest.raises(gatescope.MissingError):
        t.factor(0, "no_such_factor", 0)
    t.close()
    with pytest.raises(ValueError, match="closed"):
        t.tile(0, 0, range(0, 10))
