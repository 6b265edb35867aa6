#!/usr/bin/python3
"""How exact AttnViz's attention is against PyTorch's float32, on random cases it has not seen.

    /usr/bin/python3 tools/compare_exactness_with_torch.py [--cli build/release/bin/attnviz-cli]
        [--cases 300] [--seed 1]

Draws random multi-head attention cases (batch, lengths, widths, heads, grouped K/V heads, rotary
positions, causal masks, sliding windows, valid lengths, explicit masks, with and without biases,
inputs scaled up to 30 times), writes each in attnviz-cli's case format, runs
`attnviz-cli mha CASE --dump TRACE`, and measures, for every step, the largest error of AttnViz's
trace and of PyTorch's float32 computation of the same case (the reference's operations in float32,
and nn.MultiheadAttention for output and weights where it can take the case, the smaller of the
two), both against the float64 trace (tools/make_reference_cases.py). Prints, per step, on how many
cases AttnViz's error was at most PyTorch's and the largest ratio of the two; lists the cases where
it was not. Exit status 1 when some step of some case was less exact than PyTorch's.
"""
import argparse
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_reference_cases as ref  # noqa: E402
import safetensors_py  # noqa: E402


def random_case(rng, seed):
    """A case dict as make_reference_cases builds them, with settings drawn at random."""
    H = int(rng.choice([1, 2, 3, 4, 6, 8]))
    kv = int(rng.choice([h for h in (1, 2, 3, 4, 6, 8) if H % h == 0 and h <= H]))
    grouped = kv != H and rng.random() < 0.5
    rope = rng.random() < 0.3
    pqk = int(rng.choice([1, 2, 3, 4, 8, 16, 32, 64, 80])) if not rope else int(rng.choice([2, 4, 8, 16, 64]))
    self_attention = rng.random() < 0.6
    B = int(rng.integers(1, 4))
    Nq = int(rng.integers(1, 48))
    Nk = Nq if self_attention else int(rng.integers(1, 48))
    scale = float(rng.choice([1.0, 1.0, 3.0, 30.0]))
    bias = rng.random() < 0.7
    if self_attention:
        D = H * pqk
        c = ref.make_case(seed, B, Nq, Nk, D, D, D, H, pqk, pqk, D, bias=bias, scale=scale,
                          kv_heads=kv if grouped else None)
        c["key"] = c["query"]
        c["value"] = c["query"]
    else:
        Dq, Dk, Dv = (int(rng.integers(1, 96)) for _ in range(3))
        pv, po = int(rng.integers(1, 40)), int(rng.integers(1, 96))
        c = ref.make_case(seed, B, Nq, Nk, Dq, Dk, Dv, H, pqk, pv, po, bias=bias, scale=scale,
                          kv_heads=kv if grouped else None)
    causal = self_attention and rng.random() < 0.5
    if causal:
        c["causal"] = True
        if rng.random() < 0.3:
            c["sliding_window"] = int(rng.integers(1, Nq + 2))
    if rope:
        c["rope_theta"] = float(rng.choice([100.0, 10000.0, 500000.0]))
    if rng.random() < 0.25:
        c["valid_lens"] = rng.integers(0 if rng.random() < 0.2 else 1, Nk + 1, size=B).astype(np.int64)
    if rng.random() < 0.2:
        m = rng.random((Nq, Nk)) > 0.3
        m[:, 0] = True
        c["mask"] = m
    return c


def largest_error(ours, reference):
    keep = np.isfinite(reference)
    return float(np.abs(ours.astype(np.float64) - reference)[keep].max()) if keep.any() else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", default=str(ROOT / "build/release/bin/attnviz-cli"))
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    wins, ratios, losses = {}, {}, []
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        for n in range(args.cases):
            c = random_case(rng, 100000 * args.seed + n)
            trace, blocked = ref.trace_with_ops(c)
            expressible = not any(k in c for k in ref.VARIANT_SETTINGS) and ref.module_shaped(c)
            theirs = ref.float32_errors(c, trace, blocked, expressible)
            ref.save_case(work / "case.safetensors", c, f"random case {n}")
            subprocess.run([args.cli, "mha", str(work / "case.safetensors"), "--dump",
                            str(work / "trace.safetensors"), "--quiet", "--threads", "1"],
                           check=True)
            ours, _ = safetensors_py.load(work / "trace.safetensors")
            for step, reference in trace.items():
                bar = min(theirs[step].values())
                mine = largest_error(ours[step], reference.numpy())
                won = mine <= bar
                wins.setdefault(step, [0, 0])[0] += won
                wins[step][1] += 1
                ratios[step] = max(ratios.get(step, 0.0), mine / bar if bar > 0 else (0.0 if mine == 0 else np.inf))
                if not won:
                    losses.append((n, step, mine, bar))
    print(f"torch {torch.__version__}; {args.cases} random cases, seed {args.seed}")
    print(f"{'step':10s} {'at most torch':>14s} {'largest ratio':>14s}")
    for step, (won, total) in wins.items():
        print(f"{step:10s} {won:>6d} of {total:<5d} {ratios[step]:>14.3f}")
    for n, step, mine, bar in losses[:40]:
        print(f"case {n}: {step} {mine:.3e} against torch's {bar:.3e} ({mine / bar:.2f}x)")
    return 1 if losses else 0


if __name__ == "__main__":
    sys.exit(main())
