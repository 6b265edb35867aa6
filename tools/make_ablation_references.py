#!/usr/bin/python3
"""Reference results for switching attention heads off (issue #12: `--ablate`).

Run with Debian's torch:  /usr/bin/python3 tools/make_ablation_references.py
Writes tests/data/ablation/*.safetensors (see tests/data/ablation/README.md).

Switching head h off zeroes its columns of the concatenation before the output projection. These
references get the same effect without touching the attention at all: the output projection's
weights that read head h are set to zero, and the unchanged reference implementations run.
  - mha: torch.nn.MultiheadAttention on tests/data/mha/batched.case.safetensors (in_proj from
    w_q | w_k | w_v), out_proj.weight columns of heads 0 and 2 zeroed. Stores output.
  - gpt2: tools/hf_architectures_py.gpt2_forward on tests/data/hf/gpt2 with rows of
    h.1.attn.c_proj.weight (Conv1D, [in, out]) for heads 0 and 3 zeroed. Stores final_hidden
    (ln_f's output, what the logits are made from), layer-1 attn_output and the logits of a few
    vocabulary columns.
  - bert: bert_forward on tests/data/hf/bert with columns of encoder.layer.{0,1}.attention.output
    .dense.weight for head 1 of layer 0 and head 2 of layer 1 zeroed. Stores final_hidden.
  - importance: the trained demos in tools/transformer_py.py's PyTorch Transformer, with
    o_proj.weight columns zeroed: genesis's loss on the first 40 lines of its heldout.txt with every head on and with
    layer 0 head 1 off; reverse's exact-match accuracy (teacher forcing) on the first 40 lines
    of its heldout.txt with every head on and with cross-attention layer 0 head 2 off. Stored as
    metadata of importance.safetensors.
Each of the first three is checked against a second path, Hugging Face's head_mask idea (the head's attention
weights multiplied by 0), and against the run without ablation (it must differ).
"""
import json
import math
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hf_architectures_py as arch  # noqa: E402
import safetensors_py as st  # noqa: E402
import transformer_py as tp  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "ablation"
FOX12 = [464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 416, 262, 7850]
PAIR15 = ([101, 1996, 4937, 2938, 2006, 1996, 13523, 1012, 102, 2009, 2001, 2200, 3407, 1012, 102],
          [0] * 9 + [1] * 6)
LOGIT_COLUMNS = [0, 262, 464, 995, 7850, 15496, 50256]


def close(a, b, what, tol=1e-10):
    err = float((torch.as_tensor(a) - torch.as_tensor(b)).abs().max())
    assert err < tol, f"{what}: {err}"
    print(f"  {what}: max |diff| {err:.2e}")


def differs(a, b, what):
    d = float((torch.as_tensor(a) - torch.as_tensor(b)).abs().max())
    assert d > 1e-3, f"{what}: switching heads off changed nothing ({d})"
    print(f"  {what}: changes by up to {d:.3f}")


def model_weights(folder, prefix):
    tensors, _ = st.load(folder / "model.safetensors")
    return {k[len(prefix):] if k.startswith(prefix) else k: torch.tensor(np.asarray(v, np.float64))
            for k, v in tensors.items() if np.asarray(v).dtype.kind == "f"}


def with_head_mask(fn, heads_by_layer):
    """Runs fn with arch.attention multiplying the weights of the given heads by 0 (HF's
    head_mask); heads_by_layer maps 'layer{L}' to head numbers."""
    original = arch.attention

    def masked(q, k, v, heads, blocked, rec, prefix):
        qh, kh, vh = arch.split_heads(q, heads), arch.split_heads(k, heads), arch.split_heads(v, heads)
        scores = (qh @ kh.transpose(-1, -2)) / math.sqrt(qh.shape[-1])
        if blocked is not None:
            scores = scores.masked_fill(blocked[None], float("-inf"))
        weights = arch.softmax(scores)
        keep = torch.ones(heads, 1, 1, dtype=weights.dtype)
        for h in heads_by_layer.get(prefix, []):
            keep[h] = 0
        return arch.merge_heads((weights * keep) @ vh)

    arch.attention = masked
    try:
        return fn()
    finally:
        arch.attention = original


def mha_reference():
    print("mha: batched case, heads 0 and 2 off")
    tensors, meta = st.load(ROOT / "tests/data/mha/batched.case.safetensors")
    t = {k: torch.tensor(np.asarray(v, np.float64)) for k, v in tensors.items()}
    H = int(meta["num_heads"])
    D = t["w_q"].shape[1]
    hd = t["w_v"].shape[0] // H
    module = torch.nn.MultiheadAttention(D, H, batch_first=True, dtype=torch.float64)
    results = {}
    for name, off in (("full", []), ("ablated", [0, 2])):
        w_o = t["w_o"].clone()
        for h in off:
            w_o[:, h * hd:(h + 1) * hd] = 0
        with torch.no_grad():
            module.in_proj_weight.copy_(torch.cat([t["w_q"], t["w_k"], t["w_v"]]))
            module.in_proj_bias.copy_(torch.cat([t["b_q"], t["b_k"], t["b_v"]]))
            module.out_proj.weight.copy_(w_o)
            module.out_proj.bias.copy_(t["b_o"])
            results[name], _ = module(t["query"], t["key"], t["value"], need_weights=False)
    expected, _ = st.load(ROOT / "tests/data/mha/batched.expected.safetensors")
    close(results["full"], np.asarray(expected["output"], np.float64), "unablated = committed reference", 1e-5)
    differs(results["ablated"], results["full"], "output")
    st.save(OUT / "mha_batched_ablate_0_2.safetensors",
            {"output": results["ablated"].numpy().astype(np.float32)},
            {"case": "tests/data/mha/batched.case.safetensors", "ablate": "0,2"})


def gpt2_reference():
    print("gpt2: fox12, layer 1 heads 0 and 3 off")
    folder = ROOT / "tests/data/hf/gpt2"
    cfg = json.loads((folder / "config.json").read_text())
    w = model_weights(folder, "transformer.")
    hd = cfg["n_embd"] // cfg["n_head"]
    full = arch.gpt2_forward(w, cfg, FOX12)
    zeroed = dict(w)
    proj = w["h.1.attn.c_proj.weight"].clone()
    for h in (0, 3):
        proj[h * hd:(h + 1) * hd, :] = 0  # Conv1D [in, out]: rows read head h
    zeroed["h.1.attn.c_proj.weight"] = proj
    rec = arch.gpt2_forward(zeroed, cfg, FOX12)
    second = with_head_mask(lambda: arch.gpt2_forward(w, cfg, FOX12), {"layer1": [0, 3]})
    close(rec["final_hidden"], second["final_hidden"], "zeroed c_proj rows = head_mask")
    differs(rec["final_hidden"], full["final_hidden"], "final_hidden")
    close(rec["layer0.hidden"], full["layer0.hidden"], "layer 0 untouched")
    st.save(OUT / "gpt2_fox12_ablate_1-0_1-3.safetensors",
            {"final_hidden": rec["final_hidden"].numpy().astype(np.float32),
             "layer1.attn_output": rec["layer1.attn_output"].numpy().astype(np.float32),
             "logits": rec["logits"][:, LOGIT_COLUMNS].numpy().astype(np.float32),
             "logit_columns": np.asarray(LOGIT_COLUMNS, np.int32)},
            {"model": "tests/data/hf/gpt2", "text": "The quick brown fox jumps over the lazy dog by the river",
             "ablate": "1:0,1:3"})


def bert_reference():
    print("bert: pair15, layer 0 head 1 and layer 1 head 2 off")
    folder = ROOT / "tests/data/hf/bert"
    cfg = json.loads((folder / "config.json").read_text())
    w = model_weights(folder, "bert.")
    hd = cfg["hidden_size"] // cfg["num_attention_heads"]
    ids, types = PAIR15
    full = arch.bert_forward(w, cfg, ids, types)
    zeroed = dict(w)
    for layer, h in ((0, 1), (1, 2)):
        name = f"encoder.layer.{layer}.attention.output.dense.weight"
        dense = zeroed[name].clone()
        dense[:, h * hd:(h + 1) * hd] = 0  # nn.Linear [out, in]: columns read head h
        zeroed[name] = dense
    rec = arch.bert_forward(zeroed, cfg, ids, types)
    second = with_head_mask(lambda: arch.bert_forward(w, cfg, ids, types),
                            {"layer0": [1], "layer1": [2]})
    close(rec["final_hidden"], second["final_hidden"], "zeroed dense columns = head_mask")
    differs(rec["final_hidden"], full["final_hidden"], "final_hidden")
    st.save(OUT / "bert_pair15_ablate_0-1_1-2.safetensors",
            {"final_hidden": rec["final_hidden"].numpy().astype(np.float32)},
            {"model": "tests/data/hf/bert",
             "text": "the cat sat on the mat . [SEP] it was very happy .", "ablate": "0:1,1:2"})


def demo_model(name):
    folder = ROOT / "resources/models" / name
    cfg = json.loads((folder / "config.json").read_text())
    vocab = tp.Vocabulary(json.loads((folder / "vocab.json").read_text()))
    model = tp.Transformer(cfg).double().eval()
    tensors, _ = st.load(folder / "model.safetensors")
    model.load_state_dict({k: torch.tensor(np.asarray(v, np.float64)) for k, v in tensors.items()})
    lines = [line for line in (folder / "heldout.txt").read_text().split("\n") if line.strip()]
    return cfg, vocab, model, lines


def switched_off(model, module, head, heads):
    """A copy of o_proj's weight with the head's columns zeroed, put in place; returns a restorer."""
    layer = dict(model.named_modules())[module]
    original = layer.o_proj.weight.detach().clone()
    hd = original.shape[1] // heads
    with torch.no_grad():
        layer.o_proj.weight[:, head * hd:(head + 1) * hd] = 0

    def restore():
        with torch.no_grad():
            layer.o_proj.weight.copy_(original)
    return restore


def genesis_loss(cfg, vocab, model, lines):
    total, count = 0.0, 0
    with torch.no_grad():
        for line in lines:
            ids = torch.tensor([vocab.encode(line)])
            logits = model(target=ids[:, :-1])
            total += float(torch.nn.functional.cross_entropy(logits[0], ids[0, 1:], reduction="sum"))
            count += ids.shape[1] - 1
    return total / count


def reverse_exact(cfg, vocab, model, lines):
    correct = 0
    with torch.no_grad():
        for line in lines:
            source, answer = line.split("\t")
            target = [vocab.index[cfg["bos_token"]]] + vocab.encode(answer)
            wanted = vocab.encode(answer) + [vocab.index[cfg["eos_token"]]]
            logits = model(source=torch.tensor([vocab.encode(source)]), target=torch.tensor([target]))
            correct += int(logits[0].argmax(-1).tolist() == wanted)
    return correct / len(lines)


def importance_reference():
    print("importance: genesis loss, reverse exact match")
    meta = {}
    cfg, vocab, model, lines = demo_model("genesis")
    lines = lines[:40]
    meta["genesis.examples"] = str(len(lines))
    meta["genesis.baseline"] = repr(genesis_loss(cfg, vocab, model, lines))
    restore = switched_off(model, "decoder.layers.0.masked_self", 1, cfg["num_heads"])
    meta["genesis.ablate"] = "0:1"
    meta["genesis.ablated"] = repr(genesis_loss(cfg, vocab, model, lines))
    restore()
    cfg, vocab, model, lines = demo_model("reverse")
    lines = lines[:40]
    meta["reverse.examples"] = str(len(lines))
    meta["reverse.baseline"] = repr(reverse_exact(cfg, vocab, model, lines))
    restore = switched_off(model, "decoder.layers.0.cross", 2, cfg["num_heads"])
    meta["reverse.ablate"] = "0.cross:2"
    meta["reverse.ablated"] = repr(reverse_exact(cfg, vocab, model, lines))
    restore()
    for k, v in meta.items():
        print(f"  {k} = {v}")
    assert float(meta["genesis.ablated"]) > float(meta["genesis.baseline"]) + 0.1
    assert float(meta["reverse.ablated"]) < float(meta["reverse.baseline"]) - 0.1
    st.save(OUT / "importance.safetensors", {"unused": np.zeros(1, np.float32)}, meta)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    torch.set_default_dtype(torch.float64)
    mha_reference()
    gpt2_reference()
    bert_reference()
    importance_reference()
