#!/usr/bin/env python3
"""Bytes a trace spends per kind of dataset, summed over layers (storage as allocated in the file).

Usage: scripts/trace-bytes.py TRACE.h5 [LABEL]
Prints one line per group: factors/<name>, gates, pyramid/<map>/<pool>, tokens, per_token; then
the file size, with each group's stored element type (a bfloat16 factor reads as float32 in
h5py). Derived pyramids (format v3 on, attribute derived_from) hold no datasets, and format v4
stores a pyramid's finest level only: coarser levels take no bytes.
"""
import os
import re
import sys
from collections import defaultdict

import h5py


def main():
    path = sys.argv[1]
    label = sys.argv[2] if len(sys.argv) > 2 else os.path.basename(path)
    groups = defaultdict(int)
    dtypes = {}

    def visit(name, obj):
        if not isinstance(obj, h5py.Dataset):
            return
        key = re.sub(r"^layers/\d+/", "", name)
        key = re.sub(r"^(pyramid/[^/]+/[^/]+)/\d+$", r"\1", key)
        key = re.sub(r"^(tokens|per_token)/.*$", r"\1", key)
        key = re.sub(r"^gates/.*$", "gates", key)
        groups[key] += obj.id.get_storage_size()
        stored = obj.id.get_type()
        dtypes[key] = (f"{stored.get_size() * 8}-bit float" if stored.get_class() == h5py.h5t.FLOAT
                       else str(obj.dtype))

    with h5py.File(path, "r") as f:
        f.visititems(visit)
        version = int(f.attrs.get("format_version", 0))
        q = f.get("layers/000/factors/q")
        if q is not None:  # a bf16 dataset reads as float32 in h5py (HDF5 converts it exactly)
            print(f"[trace-bytes] {label}: layers/000/factors/q reads as {q[0, :1, :3].dtype}: "
                  f"{q[0, 0, :3].tolist()}")
    total = sum(groups.values())
    print(f"[trace-bytes] {label}: format v{version}, file {os.path.getsize(path) / 1e9:.3f} GB, "
          f"datasets {total / 1e9:.3f} GB")
    for key in sorted(groups, key=lambda k: -groups[k]):
        print(f"[trace-bytes] {label}:   {key:<28} {groups[key] / 1e9:8.3f} GB  ({dtypes[key]})")


if __name__ == "__main__":
    main()
