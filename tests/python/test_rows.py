"""Trace.row (core/maps/query_row.h) against float64 references from the stored factors: the
exact attention row, the logit and its split into content and forgetting parts, the top keys."""

import h5py
import numpy as np
import pytest

import gatescope
from conftest import ARCHS
from reference import maps


@pytest.mark.parametrize("arch", ["fox", "transformer", "gated_fwa", "power", "wall"])
def test_row_matches_the_formula(traces, arch):
    t = gatescope.open(traces[arch])
    gated = t.layer(1)["extras"]["has_decay"]
    with h5py.File(traces[arch], "r") as f:
        ref = maps(f, 1, 2)
    for query in (0, 1, 200, 299):
        r = t.row(1, 2, query, top_k=7)
        keys = slice(0, query + 1)
        assert r.query == query and r.attention.shape == (query + 1,)
        np.testing.assert_allclose(r.attention, ref["attention"][query, keys], rtol=2e-4,
                                   atol=2e-6)
        np.testing.assert_allclose(r.logit, ref["logit"][query, keys], rtol=1e-4, atol=2e-4)
        if gated:
            np.testing.assert_allclose(r.content, ref["content"][query, keys], rtol=1e-5,
                                       atol=1e-4)
            np.testing.assert_allclose(r.forget, ref["forget"][query, keys], rtol=1e-4,
                                       atol=2e-4)
        else:
            assert r.content is None and r.forget is None
        expected = np.argsort(-ref["attention"][query, keys], kind="stable")[:7]
        weights = ref["attention"][query, expected]
        assert len(r.top_keys) == min(7, query + 1)
        np.testing.assert_allclose(r.top_weights, weights, rtol=2e-4, atol=2e-6)
        # Equal weights may trade places between float32 and float64; the keys agree elsewhere.
        same = np.isclose(r.top_weights, weights, rtol=1e-3)
        assert np.array_equal(np.asarray(r.top_keys)[same], expected[same]) or np.allclose(
            ref["attention"][query, r.top_keys], weights, rtol=1e-3)


def test_windowed_keys_are_not_allowed(traces):
    t = gatescope.open(traces["gated_fwa"])  # window 64
    r = t.row(0, 1, 299, top_k=100)
    assert np.all(r.attention[:236] == 0) and np.all(np.isneginf(r.logit[:236]))
    assert np.all(np.isnan(r.content[:236])) and np.all(np.isnan(r.forget[:236]))
    assert len(r.top_keys) == 64 and r.top_keys.min() >= 236


@pytest.mark.parametrize("arch", ARCHS)
def test_row_is_the_level_0_pyramid_row(traces, arch):
    t = gatescope.open(traces[arch])
    with h5py.File(traces[arch], "r") as f:
        stored = f["layers/003/pyramid/attention/max/0"][0]
    for query in (5, 299):
        r = t.row(3, 0, query)
        np.testing.assert_allclose(r.attention, stored[query, :query + 1], rtol=1e-3, atol=2e-6)
        if arch == "gsa":
            assert r.logit is None and r.content is None and r.forget is None
    assert np.isclose(t.row(3, 0, 299).attention.sum(), 1, atol=1e-3)
    assert t.row(3, 0, -1).query == 299
