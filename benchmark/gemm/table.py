#!/usr/bin/env python3
"""Markdown table of a fusekit_bench_gemm JSON (gpu_throughput): fusekit (fused), fusekit_bare and
cuBLASLt per H3 linear and token count, with torch's "full" times from ../shared/docs/targets.md.
  benchmark/gemm/table.py bench_gemm.json"""
import json
import sys

# targets.md, "MiniMax-H3 linears": torch 2.11 + cuBLAS full sequence, us (CUDA-graph replay).
TORCH_FULL = {("qkv_proj", 70): 114.3, ("out_proj", 70): 29.0, ("fc1", 70): 90.6, ("fc2", 70): 52.6,
              ("qkv_proj", 925): 555.6, ("out_proj", 925): 121.9, ("fc1", 925): 489.0, ("fc2", 925): 219.8,
              ("qkv_proj", 4096): 2391.6, ("out_proj", 4096): 540.2, ("fc1", 4096): 2104.1, ("fc2", 4096): 1058.8}
WEIGHT_BYTES = {"qkv_proj": 2 * 21504 * 5376, "out_proj": 2 * 5376 * 7168, "fc1": 2 * 28672 * 5376,
                "fc2": 2 * 5376 * 14336}


def main(path):
    data = json.load(open(path))
    ctx = data["context"]
    rows = {}
    for b in data["benchmarks"]:
        parts = b["run_name"].split("/")
        if len(parts) < 6 or parts[5] != "gpu_throughput":
            continue
        op, tokens, impl = parts[1], int(parts[3].split("=")[1]), parts[4]
        rows.setdefault((op, tokens), {})[impl] = b
    print(f"device {ctx.get('fusekit_device')}, commit {ctx.get('fusekit_commit')}, date {ctx.get('date')}, "
          f"copy {float(ctx.get('fusekit_copy_gbps', 0)):.0f} GB/s, GEMM {float(ctx.get('fusekit_gemm_tflops', 0)):.0f} TFLOP/s\n")
    print("| linear | tokens | fused us | bare us | cuBLASLt us | bare TFLOP/s | bare W TB/s | cuBLASLt TFLOP/s |"
          " cuBLASLt W TB/s | cuBLASLt / bare time | bare / fused time | torch full us | torch full / fused time |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for op in ("qkv_proj", "out_proj", "fc1", "fc2"):
        for tokens in (70, 925, 4096):
            r = rows.get((op, tokens))
            if not r or not all(k in r for k in ("fusekit", "fusekit_bare", "cublaslt")):
                continue
            f, b, c = (r[k]["us"] for k in ("fusekit", "fusekit_bare", "cublaslt"))
            wtb = lambda us: WEIGHT_BYTES[op] / us / 1e6
            torch = TORCH_FULL[(op, tokens)]
            print(f"| {op} | {tokens} | {f:.1f} | {b:.1f} | {c:.1f} | {r['fusekit_bare']['TFLOP/s']:.0f} | "
                  f"{wtb(b):.2f} | {r['cublaslt']['TFLOP/s']:.0f} | {wtb(c):.2f} | {c / b:.2f} | {b / f:.2f} | "
                  f"{torch} | {torch / f:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1])
