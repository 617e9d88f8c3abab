#!/usr/bin/env python3
"""Side-by-side forward throughput on one GPU, in one run:

  gatescope's CUDA forward (bench binary cuda_attention_bench, JSON lines on stdout),
  PyTorch scaled_dot_product_attention with the Flash backend (no gate, causal),
  PyTorch FlexAttention with the FoX bias c_i - c_j as a score_mod (causal block mask).

Shapes follow the FlashAttention papers: bf16, causal, B*N = 16k tokens (B = 1 from N = 16k up),
H*d = 2048. FLOPs = 4 B H N^2 d / 2. Times are medians of triton.testing.do_bench (CUDA events).
Inputs are random normal (never zeros). Usage:
  compare_sdpa.py --bench build/gpu/bench/cuda_attention_bench [--max-n 65536] [--json out.json]
"""
import argparse
import json
import subprocess
import sys

import torch
import torch.nn.functional as F
import triton.testing
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def median_ms(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median")


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="path of cuda_attention_bench")
    ap.add_argument("--max-n", type=int, default=65536)
    ap.add_argument("--flex-n", default="1024,4096,16384,65536",
                    help="sequence lengths for FlexAttention (each shape compiles once)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    ours = {}
    info = {"torch": torch.__version__, "device": torch.cuda.get_device_name()}
    proc = subprocess.run([args.bench, "--max-n", str(args.max_n)], capture_output=True, text=True)
    sys.stderr.write(proc.stderr)
    if proc.returncode != 0:
        sys.exit(f"bench failed: {proc.returncode}")
    extra = []
    for line in proc.stdout.splitlines():
        rec = json.loads(line)
        if "device" in rec:
            info["bench_device"] = rec["device"]
        elif rec["kernel"].startswith("gatescope_"):
            ours[(rec["kernel"], rec["d"], rec["n"])] = rec
        else:
            extra.append(rec)

    torch._dynamo.config.cache_size_limit = 64
    flex = torch.compile(flex_attention, dynamic=False)
    flex_ns = {int(x) for x in args.flex_n.split(",") if x}
    rows = []
    torch.manual_seed(0)
    for d in (64, 128):
        n = 1024
        while n <= args.max_n:
            h = 2048 // d
            b = max(1, 16384 // n)
            flops = 4.0 * b * h * n * n * d / 2.0
            q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
                       for _ in range(3))
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                sdpa_ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True))
            flex_ms = None
            if n in flex_ns:
                c = torch.cumsum(F.logsigmoid(torch.randn(b, h, n, device="cuda") * 1.5 + 2.0),
                                 dim=-1)

                def fox_bias(score, bi, hi, qi, ki):
                    return score + c[bi, hi, qi] - c[bi, hi, ki]

                mask = create_block_mask(causal, B=None, H=None, Q_LEN=n, KV_LEN=n)
                flex(q, k, v, score_mod=fox_bias, block_mask=mask)  # compile
                flex_ms = median_ms(lambda: flex(q, k, v, score_mod=fox_bias, block_mask=mask))
            t = ours.get(("gatescope_transformer", d, n))
            f = ours.get(("gatescope_fox", d, n))
            rows.append({
                "d": d, "n": n, "batch": b, "heads": h,
                "ours_transformer_tflops": t and t["tflops"],
                "sdpa_flash_tflops": flops / sdpa_ms / 1e9,
                "ours_fox_tflops": f and f["tflops"],
                "flex_fox_tflops": flex_ms and flops / flex_ms / 1e9,
            })
            print("row", json.dumps(rows[-1]), flush=True)
            del q, k, v
            torch.cuda.empty_cache()
            n *= 2

    print(f"device: {info['device']} ({info.get('bench_device', '?')}), torch {info['torch']}")
    print("| d | N | B x H | ours, no gate | SDPA Flash | ratio | ours, FoX | Flex, FoX | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def fmt(x):
            return "-" if x is None else f"{x:.0f}"
        ratio1 = (r["ours_transformer_tflops"] / r["sdpa_flash_tflops"]
                  if r["ours_transformer_tflops"] else None)
        ratio2 = (r["ours_fox_tflops"] / r["flex_fox_tflops"]
                  if r["ours_fox_tflops"] and r["flex_fox_tflops"] else None)
        print(f"| {r['d']} | {r['n']} | {r['batch']} x {r['heads']} | "
              f"{fmt(r['ours_transformer_tflops'])} | {fmt(r['sdpa_flash_tflops'])} | "
              f"{'-' if ratio1 is None else f'{ratio1:.2f}x'} | {fmt(r['ours_fox_tflops'])} | "
              f"{fmt(r['flex_fox_tflops'])} | {'-' if ratio2 is None else f'{ratio2:.2f}x'} |")
    for rec in extra:
        print(json.dumps(rec))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"info": info, "rows": rows, "extra": extra}, fh, indent=1)


if __name__ == "__main__":
    main()
