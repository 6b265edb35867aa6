#!/usr/bin/python3
"""Attention rollout (Abnar & Zuidema, 2020) in float64, from the attention weights of the demo
models' PyTorch references, for tests/lesson/attention_rollout_test.cpp.

    /usr/bin/python3 tools/make_rollout_references.py

Reads tests/data/models/<model>/reference.safetensors (every trace tensor of a float64 PyTorch
pass, tools/train_demo_models.py) and writes tests/data/rollout/<model>.safetensors:
`case{i}.{fusion}.{ratio}` the N × N rollout of the model's first attention stack (the encoder's
self-attention of an encoder-decoder, else its only stack) for head fusion mean, max and min and
discard ratios 0, 0.3 and 1; metadata `block` (the trace's block name) and `layers`.

The definition, written here from the paper and the issue, not from the C++: per layer the heads
fused into A (mean, or the cell-wise max or min); in each row the floor(r * N) smallest
off-diagonal entries set to 0 (ties: the smaller column first; the diagonal is never
discarded); A~ = normalise_rows(0.5 * (A + I)); the rollout is A~_L ... A~_1.
"""
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = {"genesis": "masked_self", "reverse": "self", "encoder_only": "self",
          "modern": "masked_self"}
RATIOS = [0.0, 0.3, 1.0]


def fuse(weights, fusion):  # [H, N, N] -> [N, N]
    return {"mean": weights.mean(0), "max": weights.max(0), "min": weights.min(0)}[fusion]


def discard(a, ratio):
    n = a.shape[0]
    count = int(np.floor(ratio * n))
    out = a.copy()
    for i in range(n):
        others = [j for j in range(n) if j != i]
        order = sorted(others, key=lambda j: (a[i, j], j))
        for j in order[:count]:
            out[i, j] = 0.0
    return out


def rollout(layers, fusion, ratio):
    result = None
    for weights in layers:
        a = discard(fuse(weights, fusion), ratio)
        a = 0.5 * (a + np.eye(a.shape[0]))
        a = a / a.sum(axis=1, keepdims=True)
        result = a if result is None else a @ result
    return result


def main():
    out_dir = ROOT / "tests" / "data" / "rollout"
    out_dir.mkdir(parents=True, exist_ok=True)
    for model, block in MODELS.items():
        tensors, metadata = safetensors_py.load(ROOT / "tests" / "data" / "models" / model /
                                                "reference.safetensors")
        out = {}
        cases = int(metadata["cases"])
        layers = 0
        for c in range(cases):
            weights = []
            while f"case{c}.layer{len(weights)}.{block}.weights" in tensors:
                weights.append(tensors[f"case{c}.layer{len(weights)}.{block}.weights"][0]
                               .astype(np.float64))
            layers = len(weights)
            for fusion in ("mean", "max", "min"):
                for ratio in RATIOS:
                    out[f"case{c}.{fusion}.{ratio:g}"] = rollout(weights, fusion,
                                                                 ratio).astype(np.float32)
        safetensors_py.save(out_dir / f"{model}.safetensors", out,
                            {"block": block, "layers": str(layers), "cases": str(cases)})
        print(f"{model}: {cases} cases, {layers} layers of {block}")


if __name__ == "__main__":
    main()
