#!/usr/bin/env python3
"""Side-by-side forward throughput on one GPU, in one run, against the strongest anchors:

  gatescope's CUDA forward (bench binary cuda_attention_bench, JSON lines on stdout);
  without a gate: PyTorch scaled_dot_product_attention with its FLASH backend (FlashAttention-2)
    and its CUDNN backend (cuDNN fused attention, the fastest ungated kernel PyTorch offers on
    an H100); the bar is the better of the two;
  with the FoX gate: FlexAttention with the FoX bias c_i - c_j as a score_mod (causal block
    mask), and the FoX authors' own Triton kernel (forgetting_attention) when --fox-op names the
    folder holding a copy of it (../shared/anchors; never committed to this project); the bar is
    the better of the two. The FoX forward is also set against the ungated cuDNN forward: a gate
    that is nearly free reaches 0.9x of it.

Shapes follow the FlashAttention papers: bf16, causal, B*N = 16k tokens (B = 1 from N = 16k up),
H*d = 2048. FLOPs = 4 B H N^2 d / 2. Times are medians of triton.testing.do_bench (CUDA events).
Inputs are random normal (never zeros); log forget gates are logsigmoid(1.5 z + 2). An anchor
that cannot run (no cuDNN attention on this GPU, no Triton kernel given) shows "-" and says why.
With --gated, the other gated families against their strongest runnable anchor, in a second
table (N up to --gated-max-n, at the FlexAttention lengths):
  GatedFWA (FoX decay in a sliding window of 512 keys): FlexAttention with the FoX score_mod and
    a sliding-window causal block mask; FLOPs count the window's pairs;
  gated power attention (degree 2): FlexAttention with p log(|s| + eps) + G_i - G_j as score_mod
    (the authors' power_attention package is not installed on the GPU machine);
  Wall Attention: the authors' Triton forward (parallel_wall_attn_fwd_kernel) when --wall-op names
    the folder holding a transcription of it, wall_official_forward.py (git-ignored .anchors/;
    docs/gpu.md says how it is made; never committed). No score_mod expresses Wall's per-channel
    gates, so without that file ours is reported alone. P: each channel a scaled copy of a
    cumulative FoX-style log gate (0.5-1.5x), as gated_forward_bench.cpp fills it.
Usage:
  compare_sdpa.py --bench BUILD/cuda_attention_bench [--fox-op DIR] [--max-n 65536] [--json F]
                  [--gated [--only-gated]] [--gated-max-n 16384] [--wall-op DIR]
"""
import argparse
import json
import math
import subprocess
import sys

import torch
import torch.nn.functional as F
import triton.testing
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def median_ms(fn):
    fn()  # first call outside the timing: compilation, autotuning, workspace allocation
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


GATEDFWA_WINDOW = 512  # gated_forward_bench.cpp's kGatedFwaWindow
POWER_DEGREE, POWER_EPS = 2, 1e-7


def run_ours(bench, max_n, gated_max_n):
    extra_args = ["--gated", "--gated-max-n", str(gated_max_n)] if gated_max_n else []
    proc = subprocess.run([bench, "--max-n", str(max_n)] + extra_args, capture_output=True,
                          text=True)
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        sys.exit(f"bench failed: {proc.returncode}")
    ours, extra, device = {}, [], None
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        if "device" in rec:
            device = rec["device"]
        elif rec["kernel"].startswith("gatescope_"):
            ours[(rec["kernel"], rec["d"], rec["n"])] = rec["tflops"]
        else:
            extra.append(rec)
    return ours, extra, device


def load_anchor(folder, module, function, label, flag):
    """`function` of `module`.py in `folder` (a carried anchor), or None when it cannot load."""
    if not folder:
        print(f"{label}: not measured (no {flag} folder)")
        return None
    sys.path.insert(0, folder)
    try:
        return getattr(__import__(module), function)
    except Exception as error:  # an anchor that cannot load is reported, not fatal
        print(f"{label}: cannot load from {folder}: {error}")
        return None


def sdpa_tflops(backend, q, k, v, flops, failures):
    try:
        with sdpa_kernel(backend):
            ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
        return flops / ms / 1e9
    except RuntimeError as error:
        failures.add(f"{backend.name}: {str(error).splitlines()[0][:160]}")
        return None


def measure(d, n, flex, flex_ns, fox_triton, ours, failures):
    h, b = 2048 // d, max(1, 16384 // n)
    flops = 4.0 * b * h * n * n * d / 2.0
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    row = {"d": d, "n": n, "batch": b, "heads": h,
           "ours": ours.get(("gatescope_transformer", d, n)),
           "ours_fox": ours.get(("gatescope_fox", d, n)),
           "sdpa_flash": sdpa_tflops(SDPBackend.FLASH_ATTENTION, q, k, v, flops, failures),
           "sdpa_cudnn": sdpa_tflops(SDPBackend.CUDNN_ATTENTION, q, k, v, flops, failures),
           "flex_fox": None, "fox_triton": None}
    log_f = F.logsigmoid(torch.randn(b, h, n, device="cuda") * 1.5 + 2.0)
    if fox_triton is not None:
        try:
            ms = median_ms(lambda: fox_triton(q, k, v, log_f, head_first=True))
            row["fox_triton"] = flops / ms / 1e9
        except Exception as error:
            failures.add(f"FoX Triton: {str(error).splitlines()[0][:160]}")
    if n in flex_ns:
        c = torch.cumsum(log_f, dim=-1)

        def fox_bias(score, bi, hi, qi, ki):
            return score + c[bi, hi, qi] - c[bi, hi, ki]

        mask = create_block_mask(causal, B=None, H=None, Q_LEN=n, KV_LEN=n)
        ms = median_ms(lambda: flex(q, k, v, score_mod=fox_bias, block_mask=mask))
        row["flex_fox"] = flops / ms / 1e9
    del q, k, v
    torch.cuda.empty_cache()
    return row


def visited_pairs(n, w):
    """Query-key pairs of n causal rows with a window of w keys (0: all)."""
    if w <= 0 or w >= n:
        return n * (n + 1) / 2.0
    return w * (w + 1) / 2.0 + (n - w) * w


def measure_gated(d, n, flex, ours, wall_official):
    """GatedFWA and power against FlexAttention; Wall against the authors' Triton forward (when
    given). One row per family."""
    h, b = 2048 // d, max(1, 16384 // n)
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    log_f = F.logsigmoid(torch.randn(b, h, n, device="cuda") * 1.5 + 2.0)
    c = torch.cumsum(log_f, dim=-1)
    rows = []

    def fox_bias(score, bi, hi, qi, ki):
        return score + c[bi, hi, qi] - c[bi, hi, ki]

    def window_causal(bi, hi, qi, ki):
        return (qi >= ki) & (qi - ki < GATEDFWA_WINDOW)

    mask = create_block_mask(window_causal, B=None, H=None, Q_LEN=n, KV_LEN=n)
    flops = 4.0 * d * b * h * visited_pairs(n, GATEDFWA_WINDOW)
    ms = median_ms(lambda: flex(q, k, v, score_mod=fox_bias, block_mask=mask))
    rows.append({"kind": "gatedfwa", "d": d, "n": n,
                 "ours": ours.get(("gatescope_gatedfwa", d, n)), "anchor": flops / ms / 1e9,
                 "anchor_name": "Flex (FoX score_mod, window mask)"})

    def power_score(score, bi, hi, qi, ki):
        return (POWER_DEGREE * torch.log(torch.abs(score) + POWER_EPS)
                + c[bi, hi, qi] - c[bi, hi, ki])

    mask = create_block_mask(causal, B=None, H=None, Q_LEN=n, KV_LEN=n)
    flops = 4.0 * d * b * h * visited_pairs(n, 0)
    ms = median_ms(lambda: flex(q, k, v, score_mod=power_score, block_mask=mask))
    rows.append({"kind": "power", "d": d, "n": n, "ours": ours.get(("gatescope_power", d, n)),
                 "anchor": flops / ms / 1e9, "anchor_name": "Flex (p log|s| + G_i - G_j)"})
    wall = {"kind": "wall", "d": d, "n": n, "ours": ours.get(("gatescope_wall", d, n)),
            "anchor": None, "anchor_name": "none runs"}
    if wall_official:
        # The authors' layout: [B, T, H, d]; P in log2 units, [B, T, H, d] fp32.
        ql, kl, vl = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        spread = 0.5 + (torch.arange(d, device="cuda") % 17).float() / 16.0
        p2 = (c.transpose(1, 2).unsqueeze(-1) * spread * (1.0 / math.log(2.0))).contiguous()
        try:
            ms = median_ms(lambda: wall_official(ql, kl, vl, p2, None, d ** -0.5))
            wall["anchor"], wall["anchor_name"] = flops / ms / 1e9, "Wall authors' Triton forward"
        except Exception as error:
            wall["anchor_name"] = f"authors' Triton failed: {str(error).splitlines()[0][:80]}"
        del ql, kl, vl, p2
    rows.append(wall)
    del q, k, v
    torch.cuda.empty_cache()
    return rows


def print_gated_table(rows):
    def fmt(x):
        return "-" if x is None else f"{x:.0f}"
    print("| family | d | N | ours | anchor | anchor TFLOP/s | ours / anchor |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kind']} | {r['d']} | {r['n']} | {fmt(r['ours'])} | {r['anchor_name']} | "
              f"{fmt(r['anchor'])} | {ratio(r['ours'], r['anchor'])} |")


def best(*values):
    present = [x for x in values if x]
    return max(present) if present else None


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def print_table(rows):
    def fmt(x):
        return "-" if x is None else f"{x:.0f}"
    print("| d | N | ours | SDPA FA2 | SDPA cuDNN | ours / best | ours FoX | Flex FoX | FoX Triton "
          "| ours FoX / best FoX | ours FoX / cuDNN |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        bar = best(r["sdpa_flash"], r["sdpa_cudnn"])
        bar_fox = best(r["flex_fox"], r["fox_triton"])
        print(f"| {r['d']} | {r['n']} | {fmt(r['ours'])} | {fmt(r['sdpa_flash'])} | "
              f"{fmt(r['sdpa_cudnn'])} | {ratio(r['ours'], bar)} | {fmt(r['ours_fox'])} | "
              f"{fmt(r['flex_fox'])} | {fmt(r['fox_triton'])} | {ratio(r['ours_fox'], bar_fox)} | "
              f"{ratio(r['ours_fox'], r['sdpa_cudnn'])} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="path of cuda_attention_bench")
    ap.add_argument("--fox-op", default=None,
                    help="folder holding fox_official_attention.py (the FoX authors' Triton kernel)")
    ap.add_argument("--max-n", type=int, default=65536)
    ap.add_argument("--flex-n", default="1024,4096,16384,65536",
                    help="sequence lengths for FlexAttention (each shape compiles once)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--gated", action="store_true",
                    help="also GatedFWA, power and Wall against their anchors (second table)")
    ap.add_argument("--gated-max-n", type=int, default=16384)
    ap.add_argument("--only-gated", action="store_true",
                    help="the gated table alone (no ungated/FoX rows), with --gated")
    ap.add_argument("--wall-op", default=None,
                    help="folder holding wall_official_forward.py (the Wall authors' forward)")
    args = ap.parse_args()

    ours, extra, bench_device = run_ours(args.bench, args.max_n,
                                         args.gated_max_n if args.gated else 0)
    info = {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
            "cudnn": torch.backends.cudnn.version(), "bench_device": bench_device}
    fox_triton = load_anchor(args.fox_op, "fox_official_attention", "forgetting_attention",
                             "FoX Triton", "--fox-op")
    wall_official = (load_anchor(args.wall_op, "wall_official_forward", "parallel_wall_attn_fwd",
                                 "Wall Triton", "--wall-op") if args.gated else None)
    torch._dynamo.config.cache_size_limit = 64
    flex = torch.compile(flex_attention, dynamic=False)
    flex_ns = {int(x) for x in args.flex_n.split(",") if x}
    rows, failures = [], set()
    torch.manual_seed(0)
    for d in (64, 128):
        n = 1024
        while n <= args.max_n and not args.only_gated:
            rows.append(measure(d, n, flex, flex_ns, fox_triton, ours, failures))
            print("row", json.dumps(rows[-1]), flush=True)
            n *= 2

    print(f"device: {info['device']} ({bench_device or '?'}), torch {info['torch']}, "
          f"cuDNN {info['cudnn']}; TFLOP/s")
    for failure in sorted(failures):
        print(f"anchor failed: {failure}")
    if rows:
        print_table(rows)
    gated_rows = []
    if args.gated:
        for d in (64, 128):
            for n in sorted(x for x in flex_ns if x <= min(args.max_n, args.gated_max_n)):
                gated_rows += measure_gated(d, n, flex, ours, wall_official)
                print("gated", json.dumps(gated_rows[-3:]), flush=True)
        print_gated_table(gated_rows)
    for rec in extra:
        print(json.dumps(rec))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"info": info, "rows": rows, "gated_rows": gated_rows, "extra": extra,
                       "failures": sorted(failures)}, fh, indent=1)
    missing = [r for r in rows if r["ours"] is None or r["ours_fox"] is None]
    if missing or any(math.isnan(x) for r in rows for x in (r["ours"] or 0, r["ours_fox"] or 0)):
        sys.exit("the bench did not report every shape")


if __name__ == "__main__":
    main()
