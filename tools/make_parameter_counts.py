#!/usr/bin/python3
"""Parameter counts from PyTorch, for AttnViz's counts (issue #12) to be checked against.

Run with Debian's torch:  /usr/bin/python3 tools/make_parameter_counts.py
Writes tests/data/parameters/counts.json:
  "mha": sum(p.numel()) of torch.nn.MultiheadAttention for several shapes (embed_dim, num_heads,
         bias, kdim, vdim), with and without bias;
  "models": for the bundled demos and the Hugging Face fixtures, sum(p.numel()) of the module the
         folder describes: the demos' tools/transformer_py.Transformer built from config.json,
         and for GPT-2 and BERT every parameter tensor in model.safetensors, without the
         persistent buffers (attn.bias, attn.masked_bias, position_ids), the pooler and the
         pre-training heads AttnViz does not run, and with a tied lm_head counted once.
"""
import json
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py as st  # noqa: E402
import transformer_py as tp  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "parameters" / "counts.json"

MHA_SHAPES = [(512, 8, True, None, None), (512, 8, False, None, None), (16, 4, True, None, None),
              (100, 5, False, None, None), (64, 4, True, 32, 48), (768, 12, True, None, None)]

# Matched against whole name components: "attn.bias" must not catch "c_attn.bias".
NOT_RUN_NAMES = ("attn.bias", "attn.masked_bias", "position_ids")
NOT_RUN_PREFIXES = ("pooler.", "cls.", "lm_head.")


def mha_counts():
    out = []
    for d, h, bias, kdim, vdim in MHA_SHAPES:
        m = torch.nn.MultiheadAttention(d, h, bias=bias, kdim=kdim, vdim=vdim)
        out.append({"embed_dim": d, "num_heads": h, "bias": bias, "kdim": kdim or d,
                    "vdim": vdim or d, "parameters": sum(p.numel() for p in m.parameters())})
    return out


def demo_count(name):
    cfg = json.loads((ROOT / "resources/models" / name / "config.json").read_text())
    return sum(p.numel() for p in tp.Transformer(cfg).parameters())


def hf_count(folder):
    tensors, _ = st.load(ROOT / "tests/data/hf" / folder / "model.safetensors")
    def run(name):
        parts = name.split(".")
        tails = {".".join(parts[i:]) for i in range(len(parts))}
        return not (tails & set(NOT_RUN_NAMES)) and \
            not any(("." + p in "." + name) for p in NOT_RUN_PREFIXES)
    return sum(int(np.asarray(v).size) for k, v in tensors.items() if run(k))


if __name__ == "__main__":
    counts = {"mha": mha_counts(),
              "models": {"reverse": demo_count("reverse"), "genesis": demo_count("genesis"),
                         "induction": demo_count("induction"),
                         "gpt2": hf_count("gpt2"), "bert": hf_count("bert")}}
    assert counts["mha"][0]["parameters"] == 1050624, counts["mha"][0]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(counts, indent=2) + "\n")
    print(json.dumps(counts["models"]))
