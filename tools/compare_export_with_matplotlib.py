#!/usr/bin/python3
"""Times exporting 144 attention heatmaps (12 layers × 12 heads, 128 tokens) as PNG: AttnViz's
Google Benchmark (bench/export_bench.cpp) and matplotlib drawing the same kind of figure, in one run.

    /usr/bin/python3 tools/compare_export_with_matplotlib.py [build/release/bin/export_bench]

Needs Debian's python3-matplotlib. The matplotlib side draws what AttnViz draws: a 900 × 800 pixel
figure at 96 dpi with imshow (viridis, nearest), token labels on both axes (every 4th of 128, as
AttnViz thins labels to 40 at most), axis names, a colour bar and a title, saved with savefig. Both
sides use two cores: matplotlib through a two-process pool. Prints seconds and the ratio.
"""
import json
import multiprocessing
import pathlib
import subprocess
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOKENS = [chr(ord("a") + i % 26) for i in range(128)]


def draw(args):
    index, matrix, folder = args
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(900 / 96, 800 / 96), dpi=96)
    image = ax.imshow(matrix, cmap="viridis", interpolation="nearest", vmin=0, vmax=1)
    ticks = list(range(0, 128, 4))
    ax.set_xticks(ticks, [TOKENS[i] for i in ticks], rotation=-45, fontsize=7)
    ax.set_yticks(ticks, [TOKENS[i] for i in ticks], fontsize=7)
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    ax.set_title(f"bench · layer {index // 12} · self · head {index % 12} · weights")
    fig.colorbar(image, ax=ax)
    fig.savefig(f"{folder}/m{index}.png", dpi=96)
    plt.close(fig)


def time_matplotlib(folder):
    rng = np.random.default_rng(1)
    matrices = []
    for i in range(144):
        m = rng.random((128, 128), dtype=np.float32) ** 4
        matrices.append((i, m / m.sum(1, keepdims=True), folder))
    start = time.perf_counter()
    with multiprocessing.Pool(2) as pool:
        pool.map(draw, matrices)
    return time.perf_counter() - start


def time_attnviz(bench):
    out = subprocess.run([bench, "--benchmark_format=json", "--benchmark_repetitions=3"], check=True,
                         capture_output=True, text=True).stdout
    runs = [b for b in json.loads(out)["benchmarks"] if b.get("aggregate_name") == "median"]
    return runs[0]["real_time"] / 1000.0


if __name__ == "__main__":
    import tempfile

    bench = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/release/bin/export_bench")
    attnviz = time_attnviz(bench)
    with tempfile.TemporaryDirectory() as folder:
        reference = min(time_matplotlib(folder) for _ in range(2))
    print(f"144 PNG heatmaps, 128 × 128, 900 × 800 px: AttnViz {attnviz:.2f} s, matplotlib {reference:.2f} s, "
          f"ratio {attnviz / reference:.2f}")
