#!/usr/bin/python3
"""Times AttnViz's full-trace attention against torch.nn.MultiheadAttention in one run.

    /usr/bin/python3 tools/compare_speed_with_torch.py [build/release/bin/attention_bench]

Needs Debian's torch and the OpenMP build of OpenBLAS (tools/install-deps.sh --torch). The engine
side is the Google Benchmark target bench/attention_bench.cpp; the torch side runs the module in
eval mode under no_grad with need_weights=True and average_attn_weights=False, so both return every
head's weights. Prints medians in milliseconds and engine/torch ratios (below 1: the engine is faster).
"""
import json
import pathlib
import statistics
import subprocess
import sys
import time

import torch

SHAPES = [(1, 16, 512, 8), (1, 32, 256, 4), (1, 64, 512, 8), (1, 256, 768, 12), (1, 1024, 768, 12),
          (4, 128, 512, 8)]
ROOT = pathlib.Path(__file__).resolve().parent.parent


def blas_library():
    torch.randn(64, 64) @ torch.randn(64, 64)
    maps = pathlib.Path("/proc/self/maps").read_text()
    for name in ("openblas-openmp", "openblas-pthread", "openblas", "blas/libblas", "mkl"):
        if name in maps:
            return name
    return "unknown"


def time_torch(B, N, D, H, threads, repeats):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    module = torch.nn.MultiheadAttention(D, H, batch_first=True).eval()
    x = torch.randn(B, N, D)
    samples = []
    with torch.no_grad():
        for _ in range(3):
            module(x, x, x, need_weights=True, average_attn_weights=False)
        for _ in range(repeats):
            start = time.perf_counter()
            module(x, x, x, need_weights=True, average_attn_weights=False)
            samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def time_engine(bench):
    out = subprocess.run([str(bench), "--benchmark_filter=reuse:1", "--benchmark_format=json",
                          "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true",
                          "--benchmark_min_time=0.5"],
                         check=True, capture_output=True, text=True).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        args = dict(part.split(":") for part in b["run_name"].split("/")[1:] if ":" in part)
        key = (int(args["B"]), int(args["N"]), int(args["D"]), int(args["H"]), int(args["threads"]))
        results[key] = b["real_time"]  # milliseconds (the benchmark's unit)
    return results


def main():
    bench = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build/release/bin/attention_bench"
    engine = time_engine(bench)
    print(f"torch {torch.__version__}, BLAS: {blas_library()}")
    print(f"{'B':>2} {'N':>5} {'D':>4} {'H':>3} {'thr':>3} {'engine ms':>10} {'torch ms':>9} {'ratio':>6}")
    for threads in (1, 2):
        for B, N, D, H in SHAPES:
            ours = engine[(B, N, D, H, threads)]
            theirs = time_torch(B, N, D, H, threads, repeats=7 if N >= 1024 else 25)
            print(f"{B:>2} {N:>5} {D:>4} {H:>3} {threads:>3} {ours:>10.2f} {theirs:>9.2f} "
                  f"{ours / theirs:>6.2f}")


if __name__ == "__main__":
    main()
