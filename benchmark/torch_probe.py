#!/usr/bin/env python3
"""Times torch's implementation of every fusekit benchmark case in the harness's four modes.

Writes the same Google Benchmark JSON shape as fusekit's harness (names
"<suite>/<op>/<dtype>/<shape>/torch/<mode>/iterations:N/manual_time", counters us, bytes, GB/s,
TFLOP/s, copy_ratio, gemm_ratio, rel_err, validated), so the audit uses it as its control.
Modes (docs/benchmarks.md): gpu_throughput (events around a CUDA graph of many calls, rotating
input sets when one set fits in L2), gpu_latency (events around one call after an L2 flush, queued
behind a device sleep), e2e_throughput (host clock over many calls, one synchronize),
e2e_latency (host clock over one call plus synchronize, L2 flushed before).
Each mode's output is validated once against a float64 reference of the same inputs.

  python3 benchmark/torch_probe.py [--filter REGEX] [--out FILE] [--samples 15] [--skip-ceilings] [--list]
"""
import argparse
import datetime
import json
import math
import platform
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F

MODES = ["gpu_throughput", "gpu_latency", "e2e_throughput", "e2e_latency"]
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
TOLERANCE = {"f32": 1e-5, "bf16": 1e-2}  # rel_err limits: fp32 arithmetic; bf16 outputs
ASSUMED_COPY_GBPS, ASSUMED_GEMM_TFLOPS = 4240.0, 820.0  # ../shared/docs/targets.md, H200

# MiniMax-H3 (shared/docs/minimax_h3.md): hidden 5376, 56 heads x 128, ffn 14336, rotary on 96 channels.
HIDDEN, HEADS, HEAD_DIM, FFN, ROTARY, EPS = 5376, 56, 128, 14336, 96, 1e-5


class Case:
    """One operation at one shape: make(sets, device) returns (call(set) -> output, reference(set 0) -> float64)."""

    def __init__(self, suite, op, dtype, shape, bytes_, flops, make):
        self.suite, self.op, self.dtype, self.shape = suite, op, dtype, shape
        self.bytes, self.flops, self.make = float(bytes_), float(flops), make

    def name(self, mode):
        return f"{self.suite}/{self.op}/{self.dtype}/{self.shape}/torch/{mode}"


def randn(shape, dtype, device, scale=1.0, shift=0.0):
    return (torch.randn(shape, device=device, dtype=torch.float32) * scale + shift).to(dtype)


# ---- row operations ---------------------------------------------------------------------------
def row_case(op, dtype_name, rows, cols):
    dt = DTYPES[dtype_name]
    size = torch.finfo(dt).bits // 8
    params = {"softmax": 0, "rms_norm": 1, "layer_norm": 2}[op]

    def make(sets, device):
        xs = [randn((rows, cols), dt, device, scale=3.0 if op == "softmax" else 1.0) for _ in range(sets)]
        w = randn((cols,), dt, device, 0.5, 1.0)
        b = randn((cols,), dt, device, 0.5)
        if op == "softmax":
            call = lambda s: torch.softmax(xs[s], dim=-1)
            ref = lambda: torch.softmax(xs[0].double(), dim=-1)
        elif op == "rms_norm":
            call = lambda s: F.rms_norm(xs[s], (cols,), w, EPS)
            ref = lambda: F.rms_norm(xs[0].double(), (cols,), w.double(), EPS)
        else:
            call = lambda s: F.layer_norm(xs[s], (cols,), w, b, EPS)
            ref = lambda: F.layer_norm(xs[0].double(), (cols,), w.double(), b.double(), EPS)
        return call, ref

    return Case("reduce", op, dtype_name, f"{rows}x{cols}", 2 * rows * cols * size + params * cols * size, 0, make)


# ---- MiniMax-H3 norms: rms_norm, and rms_norm then adaLN modulate -----------------------------
def modulation(tokens, dt, device):
    table_rows = 6  # a few (timestep, modality) pairs
    idx = torch.randint(0, table_rows, (tokens,), device=device)
    scale = randn((table_rows, HIDDEN), dt, device, 0.1)
    shift = randn((table_rows, HIDDEN), dt, device, 0.1)
    return idx, scale, shift


def h3_norm_case(op, tokens):
    dt = torch.bfloat16

    def make(sets, device):
        xs = [randn((tokens, HIDDEN), dt, device) for _ in range(sets)]
        w = randn((HIDDEN,), dt, device, 0.1, 1.0)
        idx, scale, shift = modulation(tokens, dt, device)
        if op == "rms_norm":
            call = lambda s: F.rms_norm(xs[s], (HIDDEN,), w, EPS)
            ref = lambda: F.rms_norm(xs[0].double(), (HIDDEN,), w.double(), EPS)
        else:
            call = lambda s: F.rms_norm(xs[s], (HIDDEN,), w, EPS) * (1 + scale[idx]) + shift[idx]
            ref = lambda: F.rms_norm(xs[0].double(), (HIDDEN,), w.double(), EPS) * (1 + scale[idx].double()) + shift[idx].double()
        return call, ref

    extra = 0 if op == "rms_norm" else tokens * 8  # the row index; the table rows stay in L2
    return Case("h3_norm", op, "bf16", f"tokens={tokens}", 2 * tokens * HIDDEN * 2 + HIDDEN * 2 + extra, 0, make)


# ---- MiniMax-H3 linears: the whole fused function done the torch way ---------------------------
def rotate_half(t):
    half = t.shape[-1] // 2
    return torch.cat((-t[..., half:], t[..., :half]), dim=-1)


def qkv_tail(y, qw, kw, cos, sin):
    """split, per-head rms_norm of q and k, rotary on the first 96 channels (any dtype)."""
    m = y.shape[0]
    q, k, v = y.split(HEADS * HEAD_DIM, dim=-1)
    q = F.rms_norm(q.reshape(m, HEADS, HEAD_DIM), (HEAD_DIM,), qw, EPS)
    k = F.rms_norm(k.reshape(m, HEADS, HEAD_DIM), (HEAD_DIM,), kw, EPS)
    c, s = cos[:, None, :], sin[:, None, :]

    def rope(t):
        r, rest = t[..., :ROTARY], t[..., ROTARY:]
        return torch.cat((r * c + rotate_half(r) * s, rest), dim=-1)

    return torch.cat((rope(q).reshape(m, -1), rope(k).reshape(m, -1), v), dim=-1)


def linear_case(op, tokens):
    dt = torch.bfloat16
    n_out, k_in = {"qkv_proj": (3 * HEADS * HEAD_DIM, HIDDEN), "out_proj": (HIDDEN, HEADS * HEAD_DIM),
                   "fc1": (2 * FFN, HIDDEN), "fc2": (HIDDEN, FFN)}[op]
    written = {"qkv_proj": n_out, "out_proj": n_out, "fc1": FFN, "fc2": n_out}[op]
    residual = op in ("out_proj", "fc2")
    bytes_ = 2 * (n_out * k_in + tokens * k_in + tokens * written + (tokens * n_out if residual else 0))

    def make(sets, device):
        xs = [randn((tokens, k_in), dt, device) for _ in range(sets)]
        w = randn((n_out, k_in), dt, device, 1.0 / math.sqrt(k_in))
        if op == "qkv_proj":
            qw, kw = randn((HEAD_DIM,), dt, device, 0.1, 1.0), randn((HEAD_DIM,), dt, device, 0.1, 1.0)
            angles = torch.rand((tokens, ROTARY // 2), device=device) * 6.28
            cos = torch.cat((angles.cos(), angles.cos()), -1).to(dt)
            sin = torch.cat((angles.sin(), angles.sin()), -1).to(dt)
            call = lambda s: qkv_tail(F.linear(xs[s], w), qw, kw, cos, sin)
            ref = lambda: qkv_tail(F.linear(xs[0].double(), w.double()), qw.double(), kw.double(), cos.double(), sin.double())
        elif op == "fc1":
            call = lambda s: (lambda u: F.silu(u[:, :FFN]) * u[:, FFN:])(F.linear(xs[s], w))
            ref = lambda: (lambda u: F.silu(u[:, :FFN]) * u[:, FFN:])(F.linear(xs[0].double(), w.double()))
        else:
            res = [randn((tokens, n_out), dt, device) for _ in range(sets)]
            idx, gate, _ = modulation(tokens, dt, device)
            call = lambda s: res[s] + gate[idx] * F.linear(xs[s], w)
            ref = lambda: res[0].double() + gate[idx].double() * F.linear(xs[0].double(), w.double())
        return call, ref

    return Case("gemm", op, "bf16", f"tokens={tokens}", bytes_, 2.0 * tokens * n_out * k_in, make)


def all_cases():
    cases = []
    for op in ["softmax", "rms_norm", "layer_norm"]:
        for dt in ["f32", "bf16"]:
            for rows, cols in [(37, 1537), (256, 3072), (768, 6144), (1024, 4096)]:
                cases.append(row_case(op, dt, rows, cols))
    for op in ["rms_norm", "rms_norm_modulate"]:
        for tokens in [925, 4096]:
            cases.append(h3_norm_case(op, tokens))
    for tokens in [70, 925, 4096]:
        for op in ["qkv_proj", "out_proj", "fc1", "fc2"]:
            cases.append(linear_case(op, tokens))
    return cases


# ---- timing -----------------------------------------------------------------------------------
class Timer:
    def __init__(self, device, samples, sample_ms=2.0, wait_us=200.0, max_calls=4096):
        # wait_us: torch sequences enqueue several kernels from Python; the device sleep must outlast that.
        self.device, self.samples, self.sample_ms, self.max_calls = device, samples, sample_ms, max_calls
        props = torch.cuda.get_device_properties(device)
        self.l2_bytes = props.L2_cache_size
        self.flush_buffer = torch.zeros(3 * self.l2_bytes // 4, dtype=torch.int32, device=device)
        self.wait_cycles = int(wait_us * 2.0e3)  # torch.cuda._sleep counts cycles; ~2 GHz
        self.stream = torch.cuda.Stream(device)

    def sets_for(self, bytes_):
        return 1 if bytes_ <= 0 else int(min(64, max(1, math.ceil(2 * self.l2_bytes / bytes_))))

    def flush(self):
        self.flush_buffer.sum()  # reads 3x L2: clean lines, nothing to write back later

    def run(self, mode, call, sets):
        with torch.cuda.stream(self.stream):
            for s in range(sets):
                call(s)
            torch.cuda.synchronize()
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            probe = max(sets, 3)
            start.record()
            for i in range(probe):
                call(i % sets)
            stop.record()
            stop.synchronize()
            per_call = max(start.elapsed_time(stop) * 1e-3 / probe, 1e-7)
            calls = int(min(self.max_calls, max(1, math.ceil(self.sample_ms * 1e-3 / per_call))))
            samples, last = [], None
            if mode == "gpu_throughput":
                graph, outputs = torch.cuda.CUDAGraph(), {}
                with torch.cuda.graph(graph, stream=self.stream):
                    for i in range(calls):
                        outputs[i % sets] = call(i % sets)
                graph.replay()
                for _ in range(self.samples):
                    start.record()
                    graph.replay()
                    stop.record()
                    stop.synchronize()
                    samples.append(start.elapsed_time(stop) * 1e-3 / calls)
                last = outputs[0].clone()
                del graph
            elif mode == "gpu_latency":
                for _ in range(self.samples):
                    self.flush()
                    torch.cuda._sleep(self.wait_cycles)
                    start.record()
                    last = call(0)
                    stop.record()
                    stop.synchronize()
                    samples.append(start.elapsed_time(stop) * 1e-3)
            elif mode == "e2e_throughput":
                for _ in range(self.samples):
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    for i in range(calls):
                        out = call(i % sets)
                        if i % sets == 0:
                            last = out
                    torch.cuda.synchronize()
                    samples.append((time.perf_counter() - t0) / calls)
            else:
                for _ in range(self.samples):
                    self.flush()
                    torch.cuda.synchronize()
                    t0 = time.perf_counter()
                    last = call(0)
                    torch.cuda.synchronize()
                    samples.append(time.perf_counter() - t0)
            torch.cuda.synchronize()
        return samples, (calls if mode.endswith("throughput") else 1), last


def measure_ceilings(device):
    def median_s(fn, runs=10):
        for _ in range(3):
            fn()
        start, stop, t = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True), []
        for _ in range(runs):
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            t.append(start.elapsed_time(stop) * 1e-3)
        return statistics.median(t)

    src = torch.empty(1 << 30, dtype=torch.uint8, device=device).fill_(60)
    dst = torch.empty_like(src)
    copy = 2.0 * src.numel() / median_s(lambda: dst.copy_(src)) / 1e9
    del src, dst
    a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
    gemm = 2.0 * 8192 ** 3 / median_s(lambda: torch.mm(a, b)) / 1e12
    return copy, gemm


def rel_err(out, ref):
    out = out.double()
    if not torch.isfinite(out).all():
        return float("nan")
    return ((out - ref).norm() / ref.norm()).item()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--filter", default="", help="regex searched in <suite>/<op>/<dtype>/<shape>/torch/<mode>")
    ap.add_argument("--out", default="", help="JSON report (default: stdout)")
    ap.add_argument("--samples", type=int, default=15)
    ap.add_argument("--skip-ceilings", action="store_true")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    pattern = re.compile(args.filter)
    runs = [(c, m) for c in all_cases() for m in MODES if pattern.search(c.name(m))]
    if args.list:
        print("\n".join(c.name(m) for c, m in runs))
        return 0
    if not torch.cuda.is_available():
        print("torch_probe: no CUDA GPU; no cases run", file=sys.stderr)
        return 1
    device = torch.device("cuda", 0)
    props = torch.cuda.get_device_properties(device)
    copy, gemm = (ASSUMED_COPY_GBPS, ASSUMED_GEMM_TFLOPS) if args.skip_ceilings else measure_ceilings(device)
    print(f"torch_probe: {props.name}, copy {copy:.0f} GB/s, bf16 GEMM {gemm:.0f} TFLOP/s, {len(runs)} runs",
          file=sys.stderr)
    timer = Timer(device, args.samples)
    rows, t_start, made = [], time.time(), {}
    for n, (case, mode) in enumerate(runs, 1):
        name = case.name(mode)
        suffix = f"/iterations:{args.samples}/manual_time"
        row = {"name": name + suffix, "family_index": n - 1, "per_family_instance_index": 0, "run_name": name + suffix,
               "run_type": "iteration", "repetitions": 1, "repetition_index": 0, "threads": 1,
               "iterations": args.samples, "time_unit": "us"}
        try:
            sets = timer.sets_for(case.bytes)
            if made.get("case") is not case:  # one instance serves the consecutive modes of a case
                made.clear()
                torch.cuda.empty_cache()
                made.update(case=case, fns=case.make(sets, device))
            call, reference = made["fns"]
            samples, calls, last = timer.run(mode, call, sets)
            err = rel_err(last, reference())
            ok = err < TOLERANCE[case.dtype]  # NaN fails
            t = statistics.median(samples)
            gbps, tflops = case.bytes / t / 1e9, case.flops / t / 1e12
            row.update({"real_time": statistics.fmean(samples) * 1e6, "cpu_time": statistics.fmean(samples) * 1e6,
                        "us": t * 1e6, "us_min": min(samples) * 1e6, "us_max": max(samples) * 1e6,
                        "bytes": case.bytes, "flops": case.flops, "GB/s": gbps, "TFLOP/s": tflops,
                        "copy_ratio": gbps / copy, "gemm_ratio": tflops / gemm, "rel_err": err,
                        "validated": 1 if ok else 0, "sets": sets, "calls_per_sample": calls})
            if not ok:
                row.update({"error_occurred": True,
                            "error_message": f"validation failed: rel_err {err:.3e} >= {TOLERANCE[case.dtype]:.0e}"})
            status = f"{t * 1e6:.2f} us {gbps:.0f} GB/s {tflops:.1f} TFLOP/s rel_err {err:.2e} {'ok' if ok else 'INVALID'}"
        except Exception as e:  # a failed case is reported, the others still run
            row.update({"error_occurred": True, "error_message": f"{type(e).__name__}: {e}", "real_time": 0, "cpu_time": 0})
            status = f"FAILED: {type(e).__name__}: {e}"
            made.clear()
        rows.append(row)
        print(f"[torch_probe {n:4d}/{len(runs)}, {time.time() - t_start:6.1f} s] {name} {status}", file=sys.stderr, flush=True)
    made.clear()
    context = {"date": datetime.datetime.now().astimezone().isoformat(), "host_name": platform.node(),
               "executable": "benchmark/torch_probe.py", "library_build_type": "release",
               "fusekit_device": props.name, "fusekit_sm": f"{props.major}{props.minor}, {props.multi_processor_count} SMs",
               "fusekit_torch": torch.__version__, "fusekit_cuda_runtime": str(torch.version.cuda),
               "fusekit_copy_gbps": str(copy), "fusekit_gemm_tflops": str(gemm),
               "fusekit_ceilings": "assumed (--skip-ceilings)" if args.skip_ceilings else "measured",
               "fusekit_samples": str(args.samples)}
    text = json.dumps({"context": context, "benchmarks": rows}, indent=2) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 1 if any(r.get("error_occurred") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
