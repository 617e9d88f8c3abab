#!/usr/bin/env python3
"""Reads a gatescope trace with plain h5py (no gatescope code) and prints what it found as JSON.

Used by h5py_interop_test.cpp, which compares the output with the values it wrote. Also checks the
NeXus NXdata conventions viewers rely on. Exit status 77: h5py (or a needed filter) is missing.
Usage: h5py_check.py TRACE [--need-filter ID]
"""
import json
import math
import sys

try:
    import h5py
    import numpy as np
except ImportError as exc:  # the C++ test turns this into GTEST_SKIP
    print(f"SKIP: {exc}")
    sys.exit(77)


def plain(value):
    """numpy / bytes values -> JSON-able Python values (NaN -> None)."""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()] if value.dtype.kind in "OSU" else plain(value.tolist())
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, np.generic):
        return plain(value.item())
    return value


def attrs(obj):
    return {key: plain(obj.attrs[key]) for key in obj.attrs}


def check_nxdata(f, problems, groups):
    def visit(name, obj):
        if not isinstance(obj, h5py.Group) or plain(obj.attrs.get("NX_class")) != "NXdata":
            return
        groups.append("/" + name)
        signal = plain(obj.attrs.get("signal"))
        if signal not in obj or not isinstance(obj[signal], h5py.Dataset):
            problems.append(f"/{name}: signal {signal!r} is not a dataset in the group")
            return
        shape = obj[signal].shape
        axes = plain(obj.attrs.get("axes"))
        axes = [axes] if isinstance(axes, str) else axes
        if axes is None or len(axes) != len(shape):
            problems.append(f"/{name}: axes {axes!r} do not match signal rank {len(shape)}")
        units = plain(obj[signal].attrs.get("units", ""))
        for aux in plain(obj.attrs.get("auxiliary_signals", [])):
            if aux not in obj or obj[aux].shape != shape:
                problems.append(f"/{name}: auxiliary signal {aux!r} missing or shaped differently")
            elif plain(obj[aux].attrs.get("units", "")) != units:
                # h5web and silx plot auxiliary signals on the signal's axis
                problems.append(f"/{name}: auxiliary signal {aux!r} is not in the signal's units")
    f.visititems(visit)


def main():
    path = sys.argv[1]
    if "--need-filter" in sys.argv:
        filter_id = int(sys.argv[sys.argv.index("--need-filter") + 1])
        if not h5py.h5z.filter_avail(filter_id):
            print(f"SKIP: HDF5 filter {filter_id} is not available to h5py")
            sys.exit(77)
    out = {}
    with h5py.File(path, "r") as f:
        out["root"] = attrs(f)
        out["manifest"] = json.loads(f["manifest"].asstr()[()])
        tokens = f["tokens"]
        out["tokens"] = {
            "ids": plain(tokens["ids"][()]),
            "text": [s for s in tokens["text"].asstr()[()]],
            "byte_offsets": plain(tokens["byte_offsets"][()]),
            "source_text": tokens["source_text"].asstr()[()],
            "source_bytes": tokens["source_bytes"][()].tobytes().decode("utf-8"),
            "source_bytes_dtype": str(tokens["source_bytes"].dtype),
            "dtypes": [str(tokens[k].dtype) for k in ("ids", "byte_offsets")],
        }
        per = f["per_token"]
        out["per_token"] = {k: plain(per[k][()]) for k in ("loss", "target_rank", "entropy")}
        out["per_token"]["dtypes"] = [str(per[k].dtype) for k in ("loss", "target_rank", "entropy")]
        layers = {}
        for name, group in f["layers"].items():
            layer = {"attrs": attrs(group), "factors": {}, "pyramid": {}}
            layer["attrs"]["extras"] = json.loads(layer["attrs"]["extras"])
            gates = group["gates/log_retention"]
            layer["gates"] = {"shape": list(gates.shape), "dtype": str(gates.dtype),
                              "values": plain(gates[()].ravel())}
            for fname, ds in group["factors"].items():
                layer["factors"][fname] = {"shape": list(ds.shape), "dtype": str(ds.dtype),
                                           "values": plain(ds[()].astype(np.float64).ravel())}
            for map_name, map_group in group["pyramid"].items():
                for pool, pool_group in map_group.items():
                    levels = sorted(pool_group.keys(), key=int)
                    for level in levels:
                        ds = pool_group[level]
                        data = ds[()]
                        entry = {"shape": list(ds.shape), "attrs": attrs(ds),
                                 "chunks": list(ds.chunks), "fillvalue": float(ds.fillvalue),
                                 "allocated_chunks": ds.id.get_num_chunks(),
                                 "sum": float(data.astype(np.float64).sum())}
                        if level == levels[-1]:
                            entry["values"] = plain(data.ravel())
                        layer["pyramid"][f"{map_name}/{pool}/{level}"] = entry
            layers[name] = layer
        out["layers"] = layers
        problems, groups = [], []
        check_nxdata(f, problems, groups)
        out["nxdata_groups"] = groups
        out["nxdata_problems"] = problems
    print("JSON: " + json.dumps(out, allow_nan=False))


if __name__ == "__main__":
    main()
