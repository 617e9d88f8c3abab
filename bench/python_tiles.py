"""Python module timings on an 8192-token trace (docs/python.md, "Numbers"): tile() exact and at
a pyramid level, row(), against h5py + NumPy doing the same from the file.

    PYTHONPATH=build/default/python /usr/bin/python3 bench/python_tiles.py [TRACE]

Without TRACE it traces resources/samples/held_out.py (tokens 0:8192) with the bundled FoX into
out/bench/fox8k.h5 first (about 20 s on 2 cores)."""

import json
import os
import pathlib
import statistics
import sys
import time

import h5py
import numpy as np

import gatescope


def median_ms(f, reps=5):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return 1e3 * statistics.median(times)


def numpy_exact(path, layer, head, side):
    """The exact attention of the last `side` queries over the last `side` keys from h5py."""
    with h5py.File(path, "r") as f:
        group = f[f"layers/{layer:03d}"]
        n = f.attrs["n_tokens"]
        scale = json.loads(group.attrs["extras"])["scale"]
        q = group["factors/q"][head, n - side:]
        k = group["factors/k"][head, n - side:]
        c = group["factors/log_decay_cumsum"][head, n - side:]
        lse = group["factors/lse"][head, n - side:]
    logit = scale * q @ k.T + c[:, None] - c[None, :] - lse[:, None]
    return np.where(np.tril(np.ones((side, side), bool)), np.exp(np.minimum(logit, 0)), 0)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "out/bench/fox8k.h5"
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        gatescope.trace("resources/models/fox", pathlib.Path("resources/samples/held_out.py"),
                        path, range=(0, 8192))
    t = gatescope.open(path)
    n = len(t)
    print(f"{path}: {n} tokens, {t.model_type}")
    print(f"open: {median_ms(lambda: gatescope.open(path)):.1f} ms")
    cold = gatescope.open(path)
    t0 = time.perf_counter()
    cold.tile(2, 1, range(n - 256, n))
    print(f"first exact 256 x 256 tile of a head (reads its factors): "
          f"{1e3 * (time.perf_counter() - t0):.1f} ms")
    for side in (256, 1024, 4096):
        ours = median_ms(lambda: t.tile(2, 1, range(n - side, n)))
        theirs = median_ms(lambda: numpy_exact(path, 2, 1, side), 3)
        print(f"exact {side} x {side}: tile() {ours:.1f} ms (head cached); "
              f"h5py + NumPy from the factors {theirs:.1f} ms")
    level = 3
    fresh = [gatescope.open(path) for _ in range(5)]
    ours = median_ms(lambda: fresh.pop().tile(2, 1, range(0, n), level=level))
    warm = median_ms(lambda: t.tile(2, 1, range(0, n), level=level))

    def h5():
        with h5py.File(path, "r") as f:
            return f[f"layers/002/pyramid/attention/max/{level}"][1]

    print(f"pyramid level {level} ({n >> level} x {n >> level}): tile() {ours:.1f} ms on a fresh "
          f"open, {warm:.1f} ms cached; h5py open + read {median_ms(h5):.1f} ms")
    print(f"row(query {n - 1}): {median_ms(lambda: t.row(2, 1, n - 1)):.2f} ms")


if __name__ == "__main__":
    main()
