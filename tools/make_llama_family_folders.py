#!/usr/bin/python3
"""Writes tiny random-weight Llama, Mistral, Qwen2 and SmolLM folders in Hugging Face's layout,
with the real tokenizer files and a float64 PyTorch reference of one forward pass.

Run with Debian's torch, after node tools/fetch_modern_tokenizers.mjs and
node tools/make_modern_tokenizer_references.mjs:
    /usr/bin/python3 tools/make_llama_family_folders.py
Writes tests/data/hf/<folder>/ for each row of FOLDERS (see tests/data/hf/README.md):
  config.json              as save_pretrained writes it for the family (extra keys included)
  model.safetensors        or model-0000{1,2}-of-00002.safetensors + model.safetensors.index.json
  tokenizer.json           copied from tests/data/tokenizers/<tokenizer>/ (with
  tokenizer_config.json    tokenizer_config.json when that folder has one)
  reference.safetensors    the trace of one forward pass over the tokenizer reference's first text

The model is tools/make_modern_model_references.py's (written from Hugging Face's
modeling_llama.py, modeling_mistral.py and modeling_qwen2.py, checked there against Meta's
formulation with interleaved complex rotations); this script only chooses each family's options
and stores the result as the family's checkpoints do. Every weight is rounded to bfloat16 and
cleared below 1e-4, so F32, F16 and BF16 files hold the same numbers and the reference is exact
for the stored weights. Token ids are the first case of tests/data/tokenizers/<tokenizer>_
reference.json with special tokens, which Hugging Face's own tokenizers computed (the llama3
folder's tokenizer.json gains the Hub's BOS template, so its ids start with 128000).

reference.safetensors holds `trace.<engine dump name>` for every intermediate except the logits,
which at a vocabulary of 128,256 would be megabytes of noise: `trace.decoder.logits_columns` holds
the logits of every position at the vocabulary columns listed in the metadata `logit_columns`
(every id of the text, then a stride over the vocabulary). Metadata: `text`, `ids`, `config`.
Deterministic: numpy's legacy RandomState with one seed per folder; nothing records a date.
"""
import json
import pathlib
import shutil
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_modern_model_references as model  # noqa: E402
import safetensors_py as st  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
TRANSFORMERS_VERSION = "4.46.0"

LLAMA3_SCALING = dict(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
                      original_max_position_embeddings=64)

# Each folder: the family's config.json keys, the options of the shared reference model, the
# tokenizer, how the weights are stored, and a seed. Sizes are tiny except the vocabulary, which
# is the real tokenizer's.
FOLDERS = {
    # Llama 3.2-shaped: grouped K/V heads (4 query heads share 2), head_dim 8 set explicitly
    # (4 × 8 ≠ hidden 16, so o_proj takes 32 inputs), llama3 rope scaling, tied, BF16 in two
    # shards, BOS <|begin_of_text|> from the tokenizer's template (added here: see
    # with_bos_template).
    "llama3": dict(
        model_type="llama", architecture="LlamaForCausalLM", tokenizer="llama3", dtype="BF16",
        shards=2, seed=2401, bos_template=("<|begin_of_text|>", 128000),
        model=dict(hidden_size=16, num_heads=4, num_kv_heads=2, head_dim=8, d_ff=40, layers=2,
                   rope_theta=500000.0, rope_scaling=LLAMA3_SCALING, tied=True, norm_eps=1e-5),
        config=dict(head_dim=8, rope_scaling=LLAMA3_SCALING, bos_token_id=128000,
                    eos_token_id=128001)),
    # TinyLlama / Llama 2-shaped: SentencePiece BPE with byte fallback, as many K/V heads as
    # query heads (num_key_value_heads null), linear rope scaling, biases on q, k, v and o
    # (attention_bias), untied, F16.
    "tinyllama": dict(
        model_type="llama", architecture="LlamaForCausalLM", tokenizer="llama2", dtype="F16",
        shards=1, seed=2402,
        model=dict(hidden_size=16, num_heads=4, num_kv_heads=4, head_dim=4, d_ff=40, layers=2,
                   rope_theta=10000.0, rope_scaling=dict(rope_type="linear", factor=2.0),
                   attention_bias=True, o_proj_bias=True, tied=False, norm_eps=1e-5),
        config=dict(num_key_value_heads=None, rope_scaling=dict(type="linear", factor=2.0),
                    attention_bias=True, bos_token_id=1, eos_token_id=2)),
    # Mistral 7B-shaped: one K/V head for four query heads, θ 1e6, a sliding window of 4 keys on
    # every layer, untied, F32.
    "mistral": dict(
        model_type="mistral", architecture="MistralForCausalLM", tokenizer="llama2",
        dtype="F32", shards=1, seed=2403,
        model=dict(hidden_size=16, num_heads=4, num_kv_heads=1, head_dim=4, d_ff=40, layers=2,
                   rope_theta=1e6, sliding_window=4, tied=False, norm_eps=1e-5),
        config=dict(sliding_window=4, bos_token_id=1, eos_token_id=2)),
    # Qwen2-shaped: biases on q, k and v only, the window on layers 1 and 2 of 3
    # (use_sliding_window, max_window_layers 1), tied, BF16, Qwen2's pre-tokenizer and NFC.
    "qwen2": dict(
        model_type="qwen2", architecture="Qwen2ForCausalLM", tokenizer="qwen2", dtype="BF16",
        shards=1, seed=2404,
        model=dict(hidden_size=16, num_heads=4, num_kv_heads=2, head_dim=4, d_ff=40, layers=3,
                   rope_theta=1e6, attention_bias=True, sliding_window=4,
                   window_layers=[False, True, True], tied=True, norm_eps=1e-6),
        config=dict(use_sliding_window=True, sliding_window=4, max_window_layers=1,
                    bos_token_id=None, eos_token_id=128001)),
    # SmolLM2-shaped (9 heads, 3 K/V heads, width 576 shrunk to 3, 1 and 12): Llama names,
    # SmolLM's digit-splitting byte-level tokenizer, tied, BF16.
    "smollm": dict(
        model_type="llama", architecture="LlamaForCausalLM", tokenizer="smollm", dtype="BF16",
        shards=1, seed=2405,
        model=dict(hidden_size=12, num_heads=3, num_kv_heads=1, head_dim=4, d_ff=32, layers=2,
                   rope_theta=100000.0, tied=True, norm_eps=1e-5),
        config=dict(bos_token_id=None, eos_token_id=None)),
}


def bf16_exact(x):
    """x (float64 tensor) rounded to bfloat16 (to nearest, ties to even), values below 1e-4 set
    to 0 so that F16 holds them exactly too."""
    bits = x.numpy().astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    values = rounded.view(np.float32).copy()
    values[np.abs(values) < 1e-4] = 0
    assert np.all(values.astype(np.float16).astype(np.float32) == values)
    return torch.from_numpy(values.astype(np.float64))


def model_options(folder):
    c = dict(model.BASE, **folder["model"])
    c.update(vocab_size=VOCAB[folder["tokenizer"]], max_length=128, seed=folder["seed"])
    return c


def config_json(name, folder, c):
    """config.json as the family's save_pretrained writes it."""
    j = {
        "architectures": [folder["architecture"]],
        "attention_dropout": 0.0,
        "bos_token_id": None,
        "eos_token_id": None,
        "hidden_act": "silu",
        "hidden_size": c["hidden_size"],
        "initializer_range": 0.02,
        "intermediate_size": c["d_ff"],
        "max_position_embeddings": c["max_length"],
        "model_type": folder["model_type"],
        "num_attention_heads": c["num_heads"],
        "num_hidden_layers": c["layers"],
        "num_key_value_heads": c["num_kv_heads"],
        "rms_norm_eps": c["norm_eps"],
        "rope_theta": c["rope_theta"],
        "tie_word_embeddings": c["tied"],
        "torch_dtype": {"BF16": "bfloat16", "F16": "float16", "F32": "float32"}[folder["dtype"]],
        "transformers_version": TRANSFORMERS_VERSION,
        "use_cache": True,
        "vocab_size": c["vocab_size"],
    }
    if folder["model_type"] == "llama":
        j.update(attention_bias=False, mlp_bias=False, pretraining_tp=1, rope_scaling=None)
    if folder["model_type"] == "mistral":
        j.update(sliding_window=None)
    j.update(folder["config"])
    return dict(sorted(j.items()))


def with_bos_template(path, bos, bos_id):
    """The tokenizer.json with the post-processor the Hub's Llama 3 files have today: ByteLevel,
    then a template that puts BOS before the text (the npm copy predates it and adds nothing)."""
    tokenizer = json.loads(path.read_text(encoding="utf-8"))
    tokenizer["post_processor"] = {"type": "Sequence", "processors": [
        tokenizer["post_processor"],
        {"type": "TemplateProcessing",
         "single": [{"SpecialToken": {"id": bos, "type_id": 0}},
                    {"Sequence": {"id": "A", "type_id": 0}}],
         "pair": [{"SpecialToken": {"id": bos, "type_id": 0}},
                  {"Sequence": {"id": "A", "type_id": 0}},
                  {"SpecialToken": {"id": bos, "type_id": 1}},
                  {"Sequence": {"id": "B", "type_id": 1}}],
         "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}}}]}
    path.write_text(json.dumps(tokenizer, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def stored(values, dtype):
    array = values.numpy().astype(np.float32)
    if dtype == "BF16":
        return st.BF16(array)
    return array.astype(np.float16) if dtype == "F16" else array


def write_weights(out, w, dtype, shards):
    tensors = {k: stored(v, dtype) for k, v in sorted(w.items())}
    if shards == 1:
        st.save(out / "model.safetensors", tensors, {"format": "pt"})
        return
    # save_pretrained's split: the embedding alone in the second shard, the rest in the first.
    names = [sorted(k for k in tensors if k != "model.embed_tokens.weight"),
             ["model.embed_tokens.weight"]]
    weight_map, total = {}, 0
    for i, part in enumerate(names, start=1):
        file = f"model-{i:05d}-of-{len(names):05d}.safetensors"
        st.save(out / file, {k: tensors[k] for k in part}, {"format": "pt"})
        for k in part:
            weight_map[k] = file
            total += np.asarray(getattr(tensors[k], "bits", tensors[k])).nbytes
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    (out / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")


def read_back(out, w):
    """Every stored tensor reads back to exactly the weights the reference used."""
    found = {}
    for file in sorted(out.glob("model*.safetensors")):
        found.update(st.load(file)[0])
    assert sorted(found) == sorted(w), f"{out.name}: the files hold other tensors"
    for k, v in w.items():
        assert np.array_equal(found[k].astype(np.float64), v.numpy()), f"{out.name}: {k} differs"


def logit_columns(ids, vocab):
    return sorted(set(ids) | set(range(0, vocab, max(1, vocab // 256))))


def main():
    torch.set_default_dtype(torch.float64)
    for name, folder in FOLDERS.items():
        reference = json.loads((DATA / "tokenizers" / f"{folder['tokenizer']}_reference.json")
                               .read_text())
        case = reference["cases"][0]
        text, ids = case["text"], case["ids_with_special"]
        if folder.get("bos_template"):
            ids = [folder["bos_template"][1]] + ids
        c = model_options(folder)
        w = {k: bf16_exact(v) for k, v in model.make_weights(c).items()}
        t = model.forward(c, w, ids)
        model.check(name, c, w, ids, t)

        out = DATA / "hf" / name
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        (out / "config.json").write_text(json.dumps(config_json(name, folder, c), indent=2) + "\n")
        source = DATA / "tokenizers" / folder["tokenizer"]
        for file in ("tokenizer.json", "tokenizer_config.json"):
            if (source / file).exists():
                shutil.copyfile(source / file, out / file)
        if folder.get("bos_template"):
            with_bos_template(out / "tokenizer.json", *folder["bos_template"])
        write_weights(out, w, folder["dtype"], folder["shards"])
        read_back(out, w)

        columns = logit_columns(ids, c["vocab_size"])
        trace = {"trace." + k: v.numpy().astype(np.float32) for k, v in sorted(t.items())
                 if k != "decoder.logits"}
        trace["trace.decoder.logits_columns"] = (
            t["decoder.logits"][..., columns].numpy().astype(np.float32))
        options = {k: v for k, v in c.items() if k != "seed"}
        st.save(out / "reference.safetensors", trace,
                {"text": text, "ids": json.dumps(ids), "config": json.dumps(options),
                 "logit_columns": json.dumps(columns)})
        print(f"{name}: {len(ids)} tokens, vocabulary {c['vocab_size']}, {folder['dtype']}, "
              f"{len(trace)} reference tensors")


VOCAB = {"llama3": 128256, "llama2": 32000, "qwen2": 128256, "smollm": 128256}

if __name__ == "__main__":
    main()
