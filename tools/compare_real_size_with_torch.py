#!/usr/bin/python3
"""AttnViz at GPT-2-small size (12 layers, 12 heads, d_model 768, 1024 tokens) against PyTorch, in
one run (issue #10, docs/performance.md "Real size").

    /usr/bin/python3 tools/compare_real_size_with_torch.py [--build build/release] [--rounds 5]
                                                            [--folder DIR] [--cli] [--tokens N]

What it does:
1. Writes a GPT-2-small-shaped model with random weights (seeded, std 0.02 as GPT-2 initialises)
   as a Hugging Face GPT-2 folder (config.json, model.safetensors in Conv1D layout, and GPT-2's
   real vocab.json + merges.txt from tests/data/hf/gpt2), unless the folder already holds it.
   AttnViz opens it with its GPT-2 layout: tied output, gelu_new, pre-norm with ln_f.
2. Builds the same model in PyTorch: a plain GPT-2 forward written out below (F.layer_norm,
   matrix products, causal softmax, F.gelu(approximate="tanh")), float32, eval, no_grad, keeping
   the 144 attention maps and computing the last position's logits only, as AttnViz's
   attention-weights capture policy does.
3. Alternates, round by round, the AttnViz benchmark (bench/real_size_bench.cpp, which opens the
   same folder) and the torch forward on the same token ids, at 2 threads (the target) and at 1,
   so that both see the same machine load; prints medians, bests, and the median of the
   per-round ratios.
4. Checks that both computed the same thing (last-position logits and one attention row).
5. Peak RSS of the benchmark's memory scenarios under /usr/bin/time -v; with --cli also
   `attnviz-cli trace --steps weights --dump` and `attnviz-cli export --format png` on 1023 tokens
   of text: wall time, peak RSS and what they wrote.

Needs Debian's torch and libopenblas0-openmp (tools/install-deps.sh --torch), and a release build
with the targets real_size_bench (and attnviz-cli for --cli).
"""
import argparse
import json
import math
import os
import pathlib
import re
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import safetensors_py  # noqa: E402

VOCAB, D, HEADS, LAYERS, FF, POSITIONS = 50257, 768, 12, 12, 3072, 1024
EPS = 1e-5
SEED = 10
STAMP = f"attnviz-real-size gpt2-small seed {SEED}"
THREADS = 2


def token_ids(n):
    """The ids both sides read: spread over the vocabulary, the same formula as the bench's."""
    return [(t * 7919 + 13) % VOCAB for t in range(n)]


# ---------------------------------------------------------------------------------------------
# The model: random weights in Hugging Face GPT-2 naming and layout (Conv1D: [in, out], y = xW+b)


def make_weights():
    g = torch.Generator().manual_seed(SEED)

    def normal(*shape, mean=0.0, std=0.02):
        return torch.randn(*shape, generator=g) * std + mean

    w = {"wte.weight": normal(VOCAB, D), "wpe.weight": normal(POSITIONS, D, std=0.01)}
    for L in range(LAYERS):
        h = f"h.{L}."
        w[h + "ln_1.weight"] = normal(D, mean=1.0)
        w[h + "ln_1.bias"] = normal(D)
        w[h + "attn.c_attn.weight"] = normal(D, 3 * D)
        w[h + "attn.c_attn.bias"] = normal(3 * D)
        # GPT-2 scales the residual projections down by 1/sqrt(2 * layers)
        w[h + "attn.c_proj.weight"] = normal(D, D, std=0.02 / math.sqrt(2 * LAYERS))
        w[h + "attn.c_proj.bias"] = normal(D)
        w[h + "ln_2.weight"] = normal(D, mean=1.0)
        w[h + "ln_2.bias"] = normal(D)
        w[h + "mlp.c_fc.weight"] = normal(D, FF)
        w[h + "mlp.c_fc.bias"] = normal(FF)
        w[h + "mlp.c_proj.weight"] = normal(FF, D, std=0.02 / math.sqrt(2 * LAYERS))
        w[h + "mlp.c_proj.bias"] = normal(D)
    w["ln_f.weight"] = normal(D, mean=1.0)
    w["ln_f.bias"] = normal(D)
    return w


def gpt2_config():
    return {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        "activation_function": "gelu_new",
        "vocab_size": VOCAB,
        "n_embd": D,
        "n_head": HEADS,
        "n_layer": LAYERS,
        "n_inner": None,
        "n_positions": POSITIONS,
        "n_ctx": POSITIONS,
        "layer_norm_epsilon": EPS,
        "bos_token_id": 50256,
        "eos_token_id": 50256,
        "scale_attn_weights": True,
        "scale_attn_by_inverse_layer_idx": False,
        "tie_word_embeddings": True,
        "torch_dtype": "float32",
        "attnviz_note": STAMP,
    }


def write_folder(folder, weights):
    """A Hugging Face GPT-2 folder AttnViz opens; skipped when the folder already holds it."""
    folder = pathlib.Path(folder)
    config_path = folder / "config.json"
    if config_path.exists() and (folder / "model.safetensors").exists():
        try:
            if json.loads(config_path.read_text()).get("attnviz_note") == STAMP:
                return False
        except ValueError:
            pass
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("vocab.json", "merges.txt"):
        shutil.copyfile(ROOT / "tests/data/hf/gpt2" / name, folder / name)
    safetensors_py.save(folder / "model.safetensors",
                        {k: v.numpy().astype(np.float32) for k, v in weights.items()})
    config_path.write_text(json.dumps(gpt2_config(), indent=2) + "\n")
    return True


# ---------------------------------------------------------------------------------------------
# PyTorch: GPT-2's forward written from its description


def torch_forward(w, ids, maps):
    """Token ids -> last position's logits; appends every layer's attention weights [H, T, T] to
    `maps` (144 maps in all)."""
    T = len(ids)
    hd = D // HEADS
    idx = torch.tensor(ids)
    x = w["wte.weight"][idx] + w["wpe.weight"][:T]
    blocked = torch.ones(T, T, dtype=torch.bool).triu(1)
    for L in range(LAYERS):
        h = f"h.{L}."
        a = F.layer_norm(x, (D,), w[h + "ln_1.weight"], w[h + "ln_1.bias"], EPS)
        qkv = torch.addmm(w[h + "attn.c_attn.bias"], a, w[h + "attn.c_attn.weight"])
        q, k, v = (t.reshape(T, HEADS, hd).transpose(0, 1) for t in qkv.split(D, dim=1))
        scores = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(hd)
        scores.masked_fill_(blocked, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        maps.append(weights)
        context = torch.matmul(weights, v).transpose(0, 1).reshape(T, D)
        x = x + torch.addmm(w[h + "attn.c_proj.bias"], context, w[h + "attn.c_proj.weight"])
        m = F.layer_norm(x, (D,), w[h + "ln_2.weight"], w[h + "ln_2.bias"], EPS)
        hidden = F.gelu(torch.addmm(w[h + "mlp.c_fc.bias"], m, w[h + "mlp.c_fc.weight"]),
                        approximate="tanh")
        x = x + torch.addmm(w[h + "mlp.c_proj.bias"], hidden, w[h + "mlp.c_proj.weight"])
    last = F.layer_norm(x[-1:], (D,), w["ln_f.weight"], w["ln_f.bias"], EPS)
    return last @ w["wte.weight"].t()


def time_torch_once(w, ids):
    maps = []
    start = time.perf_counter()
    logits = torch_forward(w, ids, maps)
    elapsed = time.perf_counter() - start
    return elapsed * 1e3, logits, maps


def blas_library():
    torch.randn(64, 64) @ torch.randn(64, 64)
    maps = pathlib.Path("/proc/self/maps").read_text()
    for name in ("openblas-openmp", "openblas-pthread", "openblas", "blas/libblas", "mkl"):
        if name in maps:
            return name
    return "unknown"


# ---------------------------------------------------------------------------------------------
# AttnViz: the benchmark binary and the CLI


def run_bench(bench, folder, tokens, bench_filter, repetitions=1):
    out = subprocess.run(
        [str(bench), f"--model={folder}", f"--tokens={tokens}",
         f"--benchmark_filter={bench_filter}",
         "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
         "--benchmark_min_time=0.01"],
        check=True, capture_output=True, text=True).stdout
    results = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        results.setdefault(b["run_name"], []).append(b["real_time"])  # ms
    return results


def time_v(command, env=None):
    """Runs a command under /usr/bin/time -v: (wall seconds, peak RSS in MiB, stdout)."""
    proc = subprocess.run(["/usr/bin/time", "-v"] + [str(c) for c in command], capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", proc.stderr)
    seconds = 0.0
    for part in wall.group(1).split(":"):
        seconds = seconds * 60 + float(part)
    return seconds, rss / 1024, proc.stdout


def text_of_tokens(n):
    """n GPT-2 tokens of English: "The" then common words, each one token with its space."""
    words = ("the of and to in a is that for it as was with be by on not he this are or his from "
             "at which but have an they you were her she there been one all we their has would "
             "when if so no will more other its who into time only some could new them these two "
             "may first then do any like my now over such our man me even most made after also "
             "did many before must through back years where much your way well down should "
             "because each just those people how too little state good very make world still own "
             "see men work long get here between both life being under never day same another "
             "know while last might us great old year off come since against go came right used "
             "take three").split()
    return "The" + "".join(" " + words[(t * 37) % len(words)] for t in range(n - 1))


def dump_header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n))


# ---------------------------------------------------------------------------------------------


def torch_memory_child(tokens):
    """Run as a separate process: torch's peak RSS (MiB) holding the weights (made in memory, no
    file read), the 144 maps and the logits."""
    torch.set_num_threads(THREADS)
    w = make_weights()
    maps = []
    with torch.no_grad():
        torch_forward(w, token_ids(tokens), maps)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build/release"),
                        help="the CMake build folder (its bin/ holds real_size_bench, attnviz-cli)")
    parser.add_argument("--folder",
                        default=os.path.join(tempfile.gettempdir(), "attnviz-gpt2-small"),
                        help="where the random GPT-2-small folder is written (about 500 MB)")
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cli", action="store_true",
                        help="also time attnviz-cli trace --dump and export --format png")
    parser.add_argument("--cli-rounds", type=int, default=2)
    parser.add_argument("--cli-all-steps", action="store_true",
                        help="with --cli, also dump every step (about 3.3 GB on disk)")
    parser.add_argument("--torch-memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_memory_child:
        torch_memory_child(args.tokens)
        return

    build = pathlib.Path(args.build)
    bench = build / "bin/real_size_bench"
    cli = build / "bin/attnviz-cli"
    torch.set_num_threads(THREADS)
    print(f"torch {torch.__version__}, BLAS: {blas_library()}, {THREADS} threads; "
          f"{args.tokens} tokens; load average {os.getloadavg()[0]:.2f}")

    weights = make_weights()
    if write_folder(args.folder, weights):
        print(f"wrote the model folder {args.folder}")
    ids = token_ids(args.tokens)

    # --- speed, side by side --------------------------------------------------------------------
    # Each round runs the benchmark once (a process of its own, which opens the folder before it
    # starts timing) and then torch once, at 2 threads and at 1; the ratio of a round compares
    # runs a few seconds apart, so a neighbour's build slows both sides alike.
    per_threads = {2: ([], [], []), 1: ([], [], [])}  # threads -> (AttnViz ms, torch ms, ratios)
    recompute = []
    with torch.no_grad():
        for _ in range(2):  # warm-up: first touch of torch's buffers and OpenBLAS's
            time_torch_once(weights, ids)
        for r in range(args.rounds):
            res = run_bench(bench, args.folder, args.tokens, "BM_AttentionMaps/|BM_RecomputeLayer")
            recompute.append(statistics.median(res["BM_RecomputeLayer/threads:2/real_time"]))
            line = f"  round {r + 1}:"
            for threads, (ours, theirs, ratios) in per_threads.items():
                a = statistics.median(res[f"BM_AttentionMaps/threads:{threads}/real_time"])
                torch.set_num_threads(threads)
                ms, logits, maps = time_torch_once(weights, ids)
                ours.append(a)
                theirs.append(ms)
                ratios.append(a / ms)
                line += (f"  [{threads} thr] AttnViz {a:7.0f} ms, torch {ms:7.0f} ms, "
                         f"ratio {a / ms:.2f}")
            torch.set_num_threads(THREADS)
            print(line + f"  (load {os.getloadavg()[0]:.1f})")
    print(f"token ids -> 144 attention maps, {args.rounds} rounds (median; best):")
    for threads, (ours, theirs, ratios) in per_threads.items():
        print(f"  {threads} thread(s): AttnViz {statistics.median(ours):7.0f} ms "
              f"({min(ours):.0f}), "
              f"torch {statistics.median(theirs):7.0f} ms ({min(theirs):.0f}); ratio: median of "
              f"rounds {statistics.median(ratios):.2f}, of bests {min(ours) / min(theirs):.2f}"
              + ("   (target: at most 1.5)" if threads == THREADS else ""))
    print(f"  recomputeLayer (one layer in full, 2 threads): {statistics.median(recompute):.0f} ms "
          f"({min(recompute):.0f})")
    res = run_bench(bench, args.folder, args.tokens,
                    "BM_AttentionMapsFullLayer|BM_ObservedEveryLayer",
                    repetitions=3)
    for name, what in (("BM_AttentionMapsFullLayer", "the maps and layer 5 in full"),
                       ("BM_ObservedEveryLayer",
                        "every layer in full for an observer, as trace --dump")):
        times = res[f"{name}/threads:2/real_time"]
        print(f"  forward keeping {what}: {statistics.median(times):.0f} ms ({min(times):.0f})")

    # --- the same numbers? ---------------------------------------------------------------------
    check = json.loads(subprocess.run([str(bench), f"--model={args.folder}",
                                       f"--tokens={args.tokens}", "--check"],
                                      check=True, capture_output=True, text=True).stdout)
    ref_logits = logits[0].numpy()
    got_logits = np.array(check["logits"], dtype=np.float32)
    ref_row = maps[check["layer"]][check["head"], check["query"]].numpy()
    got_row = np.array(check["weights_row"], dtype=np.float32)
    print(f"agreement: last-position logits max |diff| {np.abs(ref_logits - got_logits).max():.2e}"
          f" (scale {np.abs(ref_logits).max():.2f}); layer {check['layer']} head {check['head']} "
          f"query {check['query']} weights max |diff| {np.abs(ref_row - got_row).max():.2e}; "
          f"recomputed layer's weights identical to the kept ones: "
          f"{check.get('recomputed_weights_identical')}")

    # --- memory ---------------------------------------------------------------------------------
    print("peak RSS (/usr/bin/time -v), MiB; the bench's own account after each phase:")
    for scenario, what in (("open", "open the model only"),
                           ("maps", "open + forward keeping the 144 maps"),
                           ("maps+recompute", "... + recomputeLayer of one layer (the app's path)"),
                           ("maps+full", "open + forward with attentionWeights(fullLayer = 5)")):
        secs, rss, out = time_v([bench, f"--model={args.folder}", f"--tokens={args.tokens}",
                                 f"--memory={scenario}"])
        print(f"  {scenario:<15} {rss:7.0f}   {what}; {out.strip()}")
    out = subprocess.run([sys.executable, __file__, "--torch-memory-child", "--tokens",
                          str(args.tokens)], check=True, capture_output=True, text=True)
    print(f"  torch           {float(out.stdout.strip()):7.0f}   weights + forward keeping the "
          f"144 maps (for comparison)")

    if not args.cli:
        return
    # --- the command line ------------------------------------------------------------------------
    text = text_of_tokens(min(args.tokens, POSITIONS - 1))
    work = pathlib.Path(tempfile.mkdtemp(prefix="attnviz-real-size-"))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    try:
        dump = work / "trace.safetensors"
        variants = [["--steps", "weights"]] + ([[]] if args.cli_all_steps else [])
        for steps in variants:
            runs = []
            for _ in range(args.cli_rounds):
                dump.unlink(missing_ok=True)
                runs.append(time_v([cli, "trace", "--model", args.folder, "--text", text] + steps +
                                   ["--dump", dump, "--threads", THREADS, "--quiet"], env))
            header = dump_header(dump)
            metadata = header.get("__metadata__", {})
            count = len(json.loads(metadata.get("target_ids", "[]")))
            tensors = len(header) - 1
            print(f"attnviz-cli trace {' '.join(steps) or '(every step)'} --dump ({count} tokens, "
                  f"{tensors} tensors, {dump.stat().st_size / 1e9:.2f} GB): "
                  f"{statistics.median(r[0] for r in runs):.1f} s, "
                  f"peak RSS {statistics.median(r[1] for r in runs):.0f} MiB "
                  f"(runs: {', '.join(f'{r[0]:.1f} s/{r[1]:.0f} MiB' for r in runs)})")
            dump.unlink()
        for label, selection in (("all 144 weight heatmaps", []),
                                 ("one head (layer 0, head 0)", ["--layers", "0", "--heads", "0"])):
            runs = []
            for _ in range(args.cli_rounds):
                out_dir = work / "png"
                shutil.rmtree(out_dir, ignore_errors=True)
                runs.append(time_v([cli, "export", "--model", args.folder, "--text", text,
                                    "--format", "png", "--out", out_dir, "--quiet"] + selection,
                                   env))
                files = list(out_dir.glob("*.png"))
                size = sum(f.stat().st_size for f in files)
            print(f"attnviz-cli export --format png, {label} ({len(files)} files, "
                  f"{size / 1e6:.1f} MB): {statistics.median(r[0] for r in runs):.1f} s, "
                  f"peak RSS {statistics.median(r[1] for r in runs):.0f} MiB "
                  f"(runs: {', '.join(f'{r[0]:.1f} s/{r[1]:.0f} MiB' for r in runs)})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
