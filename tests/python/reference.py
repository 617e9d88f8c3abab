"""Float64 references of the maps, written from the formulas of docs/trace-format.md and
kernels/cpu/*_tile_source.h over factors read with h5py: logit[i, j] and decay[i, j] of one head
for every query and key (N x N; the test traces are small), -inf / 0 where a key is not allowed."""

import json

import numpy as np


def head_factors(f, layer, head):
    group = f[f"layers/{layer:03d}"]
    heads = group.attrs["n_heads"]
    out = {}
    for name, d in group["factors"].items():
        index = head if d.shape[0] == heads else head * d.shape[0] // heads
        out[name] = d[index].astype(np.float64)
    return json.loads(group.attrs["extras"]), group.attrs["score_kind"], out


def allowed(n, window=0):
    i, j = np.indices((n, n))
    mask = j <= i
    if window:
        mask &= i - j < window
    return mask


def maps(f, layer, head):
    """(logit, decay, normalizer) of one head; logit content part and decay part separately."""
    extras, kind, fa = head_factors(f, layer, head)
    n = fa["q"].shape[0]
    scale = extras["scale"]
    dots = fa["q"] @ fa["k"].T
    mask = allowed(n, extras.get("window", 0))
    zero = np.zeros((n, n))
    if kind == "additive_decay":
        content = scale * dots
        c = fa.get("log_decay_cumsum", np.zeros(n))
        forget = c[:, None] - c[None, :]
        decay = np.exp(forget)
        norm = fa["lse"]
    elif kind == "power":
        content = extras["p"] * np.log(np.abs(scale * dots) + extras["eps"])
        g = fa["log_decay_cumsum"]
        forget = g[:, None] - g[None, :]
        decay = np.exp(forget)
        norm = fa["log_normalizer"]
    elif kind == "wall":
        gated = extras["gated_channels"]
        p = fa["log_decay_cumsum"]  # [n, gated]
        q, k = fa["q"], fa["k"]
        ret = np.exp(np.where(mask[:, :, None], p[:, None, :] - p[None, :, :], -np.inf))
        gated_dot = np.einsum("in,jn,ijn->ij", q[:, :gated], k[:, :gated], ret)
        logit = scale * (gated_dot + q[:, gated:] @ k[:, gated:].T)
        content = scale * dots
        forget = logit - content
        decay = ret.mean(axis=2)
        norm = fa["lse"]
        assert not extras.get("scalar_gate") and extras.get("sink_bias") is None
    else:
        raise ValueError(kind)
    logit = np.where(mask, content + forget, -np.inf)
    attention = np.where(mask, np.exp(logit - norm[:, None]), 0.0)
    decay = np.where(mask, decay, zero)
    return {"attention": attention, "decay": decay, "logit": logit,
            "content": np.where(mask, content, np.nan), "forget": np.where(mask, forget, np.nan)}
