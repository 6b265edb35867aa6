#!/usr/bin/python3
"""Writes a real-size Llama-family checkpoint with random weights as a Hugging Face folder.

Issue #24; docs/performance.md, "Real size: Llama 3.2 1B and SmolLM2 135M".

    /usr/bin/python3 tools/make_real_size_llama.py [--model llama-1b|smollm2-135m] [--out DIR]
                                                   [--force]

  llama-1b      Llama-3.2-1B's shape: 16 layers, 32 query heads, 8 K/V heads, head_dim 64, width
                2048, MLP 8192, vocabulary 128,256, tied, llama3 RoPE scaling. 2.47 GB of BF16.
                Default folder /tmp/attnviz-llama-1b.
  smollm2-135m  SmolLM2-135M's shape: 30 layers, 9 heads, 3 K/V heads, width 576, MLP 1536,
                vocabulary 49,152, tied. 0.27 GB of BF16. Default folder /tmp/attnviz-smollm2-135m.

The folder holds
  config.json        the keys and values of the real model's config.json on the Hugging Face Hub
                     (as transformers' save_pretrained wrote them there)
  model.safetensors  BF16, one tensor per weight, names sorted, `__metadata__` {"format": "pt"},
                     as save_pretrained writes a single-file checkpoint; no lm_head (tied)
  tokenizer.json     llama-1b: tests/data/hf/llama3/tokenizer.json (Llama 3's BPE with the Hub's
                     BOS template; tokenizer_config.json is copied too). smollm2-135m: see below.
  attnviz-generated.json  what wrote the folder (model, seed); a second run with the same stamp
                     leaves the folder alone unless --force

Weights: every matrix and the embedding are drawn from N(0, 0.02²) as float32 and rounded to
bfloat16 (to nearest, ties to even); RMSNorm weights are 1.0. Each tensor has its own numpy
Generator (default_rng seeded with SEED and the tensor's name), filled in fixed chunks, so the
file is the same bytes on every run and Python never holds more than one chunk of float32.

SmolLM2's tokenizer is not available offline. Its stand-in keeps SmolLM's pipeline
(tests/data/tokenizers/smollm/tokenizer.json: single digits, byte-level BPE, no BOS) but the
vocabulary is cut to the first 49,152 entries of the Llama 3 vocabulary that file carries (ids
0-49151, which include all 256 byte pieces), with only the merges whose two parts and result
are all kept, and no added tokens. It encodes any text, into more tokens than the real SmolLM2
tokenizer would; the ids are real Llama 3 ids, not SmolLM2's.
"""
import argparse
import json
import pathlib
import shutil
import struct
import sys
import time
import zlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
SEED = 2424
CHUNK = 1 << 22  # values drawn and written at a time (16 MiB of float32)
STD = 0.02

# config.json of meta-llama/Llama-3.2-1B and HuggingFaceTB/SmolLM2-135M on the Hub, key for key.
CONFIGS = {
    "llama-1b": {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 128000,
        "eos_token_id": 128001,
        "head_dim": 64,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "initializer_range": 0.02,
        "intermediate_size": 8192,
        "max_position_embeddings": 131072,
        "mlp_bias": False,
        "model_type": "llama",
        "num_attention_heads": 32,
        "num_hidden_layers": 16,
        "num_key_value_heads": 8,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-05,
        "rope_scaling": {
            "factor": 32.0,
            "high_freq_factor": 4.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "rope_theta": 500000.0,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.45.0.dev0",
        "use_cache": True,
        "vocab_size": 128256,
    },
    "smollm2-135m": {
        "architectures": ["LlamaForCausalLM"],
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 0,
        "eos_token_id": 0,
        "hidden_act": "silu",
        "hidden_size": 576,
        "initializer_range": 0.041666666666666664,
        "intermediate_size": 1536,
        "is_llama_config": True,
        "max_position_embeddings": 8192,
        "model_type": "llama",
        "num_attention_heads": 9,
        "num_hidden_layers": 30,
        "num_key_value_heads": 3,
        "pretraining_tp": 1,
        "rms_norm_eps": 1e-05,
        "rope_interleaved": False,
        "rope_scaling": None,
        "rope_theta": 100000,
        "tie_word_embeddings": True,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.40.1",
        "use_cache": True,
        "vocab_size": 49152,
    },
}
DEFAULT_FOLDERS = {"llama-1b": "/tmp/attnviz-llama-1b",
                   "smollm2-135m": "/tmp/attnviz-smollm2-135m"}


def tensor_shapes(c):
    """{name: shape} of a tied Llama checkpoint, in Hugging Face's names."""
    d, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = c.get("head_dim") or d // c["num_attention_heads"]
    q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    shapes = {"model.embed_tokens.weight": (v, d), "model.norm.weight": (d,)}
    for L in range(c["num_hidden_layers"]):
        p = f"model.layers.{L}."
        shapes.update({
            p + "input_layernorm.weight": (d,),
            p + "post_attention_layernorm.weight": (d,),
            p + "self_attn.q_proj.weight": (q, d),
            p + "self_attn.k_proj.weight": (kv, d),
            p + "self_attn.v_proj.weight": (kv, d),
            p + "self_attn.o_proj.weight": (d, q),
            p + "mlp.gate_proj.weight": (ff, d),
            p + "mlp.up_proj.weight": (ff, d),
            p + "mlp.down_proj.weight": (d, ff),
        })
    return dict(sorted(shapes.items()))


def to_bf16_bits(x):
    """float32 array -> uint16 bfloat16 bit patterns, rounded to nearest, ties to even."""
    bits = x.view(np.uint32)
    bits += np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (bits >> np.uint32(16)).astype("<u2")


def tensor_chunks(name, shape):
    """The tensor's bfloat16 bytes, chunk by chunk."""
    count = int(np.prod(shape))
    if name.endswith("norm.weight"):
        yield np.full(count, 0x3F80, dtype="<u2").tobytes()  # 1.0
        return
    rng = np.random.default_rng([SEED, zlib.crc32(name.encode())])
    for begin in range(0, count, CHUNK):
        x = rng.standard_normal(min(CHUNK, count - begin), dtype=np.float32)
        x *= np.float32(STD)
        yield to_bf16_bits(x).tobytes()


def write_safetensors(path, shapes):
    """Streams the checkpoint to path (through a temporary name) and returns its size."""
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape in shapes.items():
        size = int(np.prod(shape)) * 2
        header[name] = {"dtype": "BF16", "shape": list(shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape in shapes.items():
            for chunk in tensor_chunks(name, shape):
                f.write(chunk)
    partial.replace(path)
    return path.stat().st_size


def smollm2_tokenizer(vocab_size):
    """SmolLM's tokenizer pipeline over the first vocab_size ids of its (Llama 3) vocabulary."""
    t = json.loads((DATA / "tokenizers/smollm/tokenizer.json").read_text(encoding="utf-8"))
    vocab = {piece: i for piece, i in t["model"]["vocab"].items() if i < vocab_size}
    merges = []
    for merge in t["model"]["merges"]:
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        if left in vocab and right in vocab and left + right in vocab:
            merges.append(merge)
    t["model"]["vocab"] = vocab
    t["model"]["merges"] = merges
    t["added_tokens"] = [a for a in t["added_tokens"] if a["id"] < vocab_size]
    byte_pieces = sum(1 for piece in vocab if len(piece) == 1)
    assert len(vocab) == vocab_size and byte_pieces >= 256, (len(vocab), byte_pieces)
    return t, len(merges)


def write_folder(model, out, force=False):
    c = CONFIGS[model]
    stamp = {"model": model, "seed": SEED, "std": STD, "chunk": CHUNK,
             "writer": "tools/make_real_size_llama.py"}
    stamp_path = out / "attnviz-generated.json"
    if (not force and stamp_path.exists() and (out / "model.safetensors").exists()
            and json.loads(stamp_path.read_text()) == stamp):
        return False
    out.mkdir(parents=True, exist_ok=True)
    stamp_path.unlink(missing_ok=True)
    start = time.perf_counter()
    (out / "config.json").write_text(json.dumps(c, indent=2) + "\n")
    if model == "llama-1b":
        for file in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copyfile(DATA / "hf/llama3" / file, out / file)
    else:
        tokenizer, merges = smollm2_tokenizer(c["vocab_size"])
        (out / "tokenizer.json").write_text(
            json.dumps(tokenizer, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        print(f"tokenizer.json: {c['vocab_size']} pieces, {merges} merges (stand-in, see --help)")
    shapes = tensor_shapes(c)
    size = write_safetensors(out / "model.safetensors", shapes)
    params = sum(int(np.prod(s)) for s in shapes.values())
    stamp_path.write_text(json.dumps(stamp, indent=2) + "\n")
    print(f"{out}: {model}, {params:,} parameters, model.safetensors {size / 1e9:.2f} GB, "
          f"{time.perf_counter() - start:.0f} s")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n", 2)[2])
    parser.add_argument("--model", choices=sorted(CONFIGS), default="llama-1b")
    parser.add_argument("--out", help="the folder (default: /tmp/attnviz-<model>)")
    parser.add_argument("--force", action="store_true", help="rewrite even when up to date")
    args = parser.parse_args()
    out = pathlib.Path(args.out or DEFAULT_FOLDERS[args.model])
    if not write_folder(args.model, out, args.force):
        print(f"{out} already holds {args.model} (seed {SEED}); --force rewrites it")


if __name__ == "__main__":
    sys.exit(main())
