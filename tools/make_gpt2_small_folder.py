#!/usr/bin/python3
"""A Hugging Face GPT-2 folder of GPT-2 small's shape (12 layers, 12 heads, width 768, the real
vocabulary of tests/data/hf/gpt2) with seeded random weights in float16, for measuring what
AttnViz writes at real size (docs/performance.md: the web page of 128 tokens). numpy only.

    make_gpt2_small_folder.py OUT_DIR [--std 0.02]
"""
import json
import os
import shutil
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = os.path.join(HERE, "..", "tests", "data", "hf", "gpt2")


def main():
    out = sys.argv[1]
    std = float(sys.argv[sys.argv.index("--std") + 1]) if "--std" in sys.argv else 0.02
    os.makedirs(out, exist_ok=True)
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(os.path.join(SMALL, name), out)
    config = json.load(open(os.path.join(SMALL, "config.json")))
    config.update(n_embd=768, n_head=12, n_layer=12, n_ctx=1024, n_positions=1024, torch_dtype="float16")
    json.dump(config, open(os.path.join(out, "config.json"), "w"), indent=2)
    rng = np.random.default_rng(27)
    d, v, p = 768, config["vocab_size"], 1024
    shapes = {"wte.weight": (v, d), "wpe.weight": (p, d), "ln_f.weight": (d,), "ln_f.bias": (d,)}
    for i in range(12):
        h = "h.%d." % i
        shapes.update({h + "ln_1.weight": (d,), h + "ln_1.bias": (d,), h + "attn.c_attn.weight": (d, 3 * d),
                       h + "attn.c_attn.bias": (3 * d,), h + "attn.c_proj.weight": (d, d), h + "attn.c_proj.bias": (d,),
                       h + "ln_2.weight": (d,), h + "ln_2.bias": (d,), h + "mlp.c_fc.weight": (d, 4 * d),
                       h + "mlp.c_fc.bias": (4 * d,), h + "mlp.c_proj.weight": (4 * d, d), h + "mlp.c_proj.bias": (d,)})
    header, blobs, offset = {}, [], 0
    for name, shape in shapes.items():
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
            values = np.ones(shape, np.float16)
        elif name.endswith("bias"):
            values = np.zeros(shape, np.float16)
        else:
            values = (rng.standard_normal(shape, np.float32) * std).astype(np.float16)
        blob = values.tobytes()
        header[name] = {"dtype": "F16", "shape": list(shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            f.write(blob)


if __name__ == "__main__":
    main()
