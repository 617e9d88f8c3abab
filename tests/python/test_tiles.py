"""Trace.tile against h5py: exact cells against float64 references from the stored factors (and,
for every architecture, against the trace job's own level-0 pyramid), pyramid cells against the
stored datasets."""

import h5py
import numpy as np
import pytest

import gatescope
from conftest import ARCHS
from reference import maps

FORMULA_ARCHS = ["fox", "transformer", "gated_fwa", "power", "wall"]  # GSA: slot memory, below


@pytest.mark.parametrize("arch", FORMULA_ARCHS)
def test_exact_tiles_match_the_formula_over_the_stored_factors(traces, arch):
    t = gatescope.open(traces[arch])
    rows, cols = range(37, 300), range(5, 290)  # offsets and sizes off the 256-cell grid
    with h5py.File(traces[arch], "r") as f:
        for layer in (0, 3):
            for head in (0, 3):
                ref = maps(f, layer, head)
                got = t.tile(layer, head, rows, cols)
                assert got.shape == (263, 285) and got.dtype == np.float32
                np.testing.assert_allclose(got, ref["attention"][37:300, 5:290], rtol=2e-4,
                                           atol=2e-6)
                if t.layer(layer)["extras"]["has_decay"]:
                    np.testing.assert_allclose(t.tile(layer, head, rows, cols, map="decay"),
                                               ref["decay"][37:300, 5:290], rtol=2e-4, atol=1e-6)


def _derived(f, layer, m):
    return "derived_from" in f[f"layers/{layer:03d}/pyramid/{m}"].attrs


@pytest.mark.parametrize("arch", ARCHS)
def test_exact_tiles_match_the_level_0_pyramid_the_trace_job_stored(traces, arch):
    t = gatescope.open(traces[arch])
    with h5py.File(traces[arch], "r") as f:
        for layer in range(4):
            for head in range(4):
                maps_ = ["attention", "decay"] if t.layer(layer)["extras"]["has_decay"] else [
                    "attention"]
                for m in maps_:
                    if _derived(f, layer, m):  # format 3: decay cells derived from c, not stored
                        stored = t.tile(layer, head, range(0, 300), map=m, level=0)
                    else:
                        stored = f[f"layers/{layer:03d}/pyramid/{m}/max/0"][head]
                    np.testing.assert_allclose(t.tile(layer, head, range(0, 300), map=m), stored,
                                               rtol=1e-3, atol=2e-6)


def _level_1(group, head, n=300):
    """Level 1 of a format 4 pyramid pool group, pooled from its stored level 0 as
    docs/trace-format.md says: max of each 2 x 2 block; mean weighted by the tokens each covers."""
    assert int(group.attrs["coarsest_level"]) == 1 and sorted(group) == ["0"]
    fine = group["0"][head].astype(np.float64)  # [n, n]: level 0 cells are tokens
    blocks = fine.reshape(n // 2, 2, n // 2, 2)
    return blocks.max(axis=(1, 3)) if group.name.endswith("max") else blocks.mean(axis=(1, 3))


@pytest.mark.parametrize("arch", ["fox", "wall", "gsa"])
def test_pyramid_cells_are_pooled_from_the_stored_level(traces, arch):
    t = gatescope.open(traces[arch])
    with h5py.File(traces[arch], "r") as f:
        for pool in ("max", "mean"):
            for m in ("attention", "decay"):
                if _derived(f, 2, m):  # format 3: no dataset (tests/data DerivedDecay*)
                    continue
                want = _level_1(f[f"layers/002/pyramid/{m}/{pool}"], 3)  # S = 150
                got = t.tile(2, 3, range(0, 300), map=m, level=1, pool=pool)
                if pool == "max":
                    assert np.array_equal(got, want.astype(np.float32))
                else:  # to float32 rounding
                    np.testing.assert_allclose(got, want, rtol=3e-7, atol=1e-30)
                # token ranges round outward to whole cells: [10, 77) -> cells [5, 39)
                part = t.tile(2, 3, range(10, 77), range(3, 300), map=m, level=1, pool=pool)
                assert np.array_equal(part, got[5:39, 1:150])
            decay = t.tile(2, 3, range(0, 300), map="decay", level=1, pool=pool)
            product = t.tile(2, 3, range(0, 300), map="attention", level=1, pool=pool) * decay
            t_product = t.tile(2, 3, range(0, 300), map="product", level=1, pool=pool)
            assert t_product.shape == (150, 150) and np.array_equal(t_product, product)


@pytest.mark.parametrize("arch", ["fox", "gated_fwa", "wall"])
def test_product_is_attention_times_decay(traces, arch):
    t = gatescope.open(traces[arch])
    with h5py.File(traces[arch], "r") as f:
        ref = maps(f, 1, 2)
    np.testing.assert_allclose(t.tile(1, 2, (100, 300), map="product"),
                               (ref["attention"] * ref["decay"])[100:300, 100:300], rtol=3e-4,
                               atol=2e-6)
