"""GPT-2 and BERT forward passes in plain float64 PyTorch, written from the papers' descriptions.

Used by tools/make_hf_references.py to compute the reference activations of the random-weight
Hugging Face checkpoints in tests/data/hf/. Nothing here comes from Hugging Face `transformers`,
and no torch.nn layer is used: the matrix products, LayerNorm, softmax, masks and GELUs are written
out, so the references are an independent reading of each architecture. The script checks them
against a second path built from torch.nn modules (nn.MultiheadAttention, F.layer_norm, F.gelu).

Weights are a dict {name: float64 tensor} under the names of Hugging Face's base models without a
prefix: GPT2Model (`wte.weight`, `h.0.attn.c_attn.weight`, ...) and BertModel
(`embeddings.word_embeddings.weight`, `encoder.layer.0.attention.self.query.weight`, ...) plus
BERT's heads (`pooler.dense.*`, `cls.predictions.*`).

Every forward pass returns {name: tensor} for one sequence, without a batch axis:
  embeddings.token [T, D], embeddings.position [T, D], embeddings.token_type [T, D] (BERT),
  embeddings.sum [T, D], embeddings.output [T, D] (BERT: after the embedding LayerNorm)
  layer{L}.attn_input [T, D]   GPT-2: ln_1(x), what the attention reads
  layer{L}.q / .k / .v [H, T, hd]  projections split into heads (bias included)
  layer{L}.scores [H, T, T]    q kᵀ / sqrt(hd), before any mask
  layer{L}.weights [H, T, T]   softmax over keys after the mask (causal for GPT-2, padding for BERT)
  layer{L}.context [T, D]      weights · v, heads concatenated (head h in columns h*hd .. h*hd+hd-1)
  layer{L}.attn_output [T, D]  context through the output projection (before the residual)
  layer{L}.after_attn [T, D]   GPT-2: x + attn_output; BERT: LayerNorm(x + attn_output)
  layer{L}.ffn_input [T, D]    GPT-2: ln_2(after_attn)
  layer{L}.ffn_hidden [T, F]   activation(x W1 + b1)
  layer{L}.ffn_output [T, D]   ffn_hidden W2 + b2 (before the residual)
  layer{L}.hidden [T, D]       the layer's output
  final_hidden [T, D]          GPT-2: ln_f(last hidden); BERT: the last layer's hidden
  logits [T, V]                GPT-2: final_hidden · wteᵀ
  pooler [D], mlm.transform [T, D], mlm_logits [T, V]   BERT heads
"""
import math

import torch


def layer_norm(x, gain, bias, eps):
    """LayerNorm over the last axis with the biased variance (Ba et al. 2016)."""
    mean = x.mean(dim=-1, keepdim=True)
    centred = x - mean
    var = (centred * centred).mean(dim=-1, keepdim=True)
    return centred / torch.sqrt(var + eps) * gain + bias


def gelu_tanh(x):
    """GPT-2's gelu_new: the tanh approximation of Hendrycks & Gimpel."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


def gelu_erf(x):
    """BERT's gelu: the exact x * Phi(x)."""
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def softmax(s):
    """Softmax over the last axis; -inf entries get weight 0 (rows must keep one finite entry)."""
    m = s.max(dim=-1, keepdim=True).values
    e = torch.exp(s - m)
    return e / e.sum(dim=-1, keepdim=True)


def split_heads(x, heads):
    """[T, D] -> [H, T, D/H]: head h is columns h*hd .. h*hd+hd-1."""
    T, D = x.shape
    return x.reshape(T, heads, D // heads).permute(1, 0, 2)


def merge_heads(x):
    """[H, T, hd] -> [T, H*hd]."""
    H, T, hd = x.shape
    return x.permute(1, 0, 2).reshape(T, H * hd)


def attention(q, k, v, heads, blocked, rec, prefix):
    """Scaled dot-product attention over heads; blocked [T, T] bool is True where a query may not
    read a key. Records q, k, v, scores, weights, context under prefix."""
    qh, kh, vh = split_heads(q, heads), split_heads(k, heads), split_heads(v, heads)
    hd = qh.shape[-1]
    scores = (qh @ kh.transpose(-1, -2)) / math.sqrt(hd)
    masked = scores if blocked is None else scores.masked_fill(blocked[None], float("-inf"))
    weights = softmax(masked)
    context = merge_heads(weights @ vh)
    rec.update({f"{prefix}.q": qh, f"{prefix}.k": kh, f"{prefix}.v": vh,
                f"{prefix}.scores": scores, f"{prefix}.weights": weights,
                f"{prefix}.context": context})
    return context


def gpt2_forward(w, cfg, ids):
    """GPT-2 (Radford et al. 2019): learned token and position embeddings, pre-norm blocks
    x + attn(ln_1(x)), x + mlp(ln_2(x)), causal attention, gelu_new, final ln_f, tied output.
    Linear layers are Conv1D: weight [in, out], y = x W + b; c_attn's columns are Q | K | V."""
    eps, H, D = cfg["layer_norm_epsilon"], cfg["n_head"], cfg["n_embd"]
    ids = torch.as_tensor(ids, dtype=torch.int64)
    T = ids.shape[0]
    rec = {}
    tok = w["wte.weight"][ids]
    pos = w["wpe.weight"][:T]
    x = tok + pos
    rec.update({"embeddings.token": tok, "embeddings.position": pos, "embeddings.sum": x})
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    for L in range(cfg["n_layer"]):
        p = f"h.{L}."
        a = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = a @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:]
        ctx = attention(q, k, v, H, causal, rec, f"layer{L}")
        out = ctx @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        x = x + out
        m = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        hid = gelu_tanh(m @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
        f = hid @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        rec.update({f"layer{L}.attn_input": a, f"layer{L}.attn_output": out,
                    f"layer{L}.after_attn": x, f"layer{L}.ffn_input": m,
                    f"layer{L}.ffn_hidden": hid, f"layer{L}.ffn_output": f})
        x = x + f
        rec[f"layer{L}.hidden"] = x
    h = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps)
    rec["final_hidden"] = h
    rec["logits"] = h @ w["wte.weight"].T
    return rec


def bert_forward(w, cfg, ids, token_type_ids=None, attention_mask=None):
    """BERT (Devlin et al. 2019): word + position + token-type embeddings, LayerNorm, post-norm
    layers LN(x + attn(x)), LN(h + ffn(h)), exact GELU, no causal mask. Linear layers are
    nn.Linear: weight [out, in], y = x Wᵀ + b. attention_mask [T] (1 = real token, 0 = padding)
    blocks padding keys for every query, padding queries included. Also the pooler (tanh of a
    dense layer on the first token) and the masked-LM head (dense, GELU, LayerNorm, then the
    word embeddings transposed plus cls.predictions.bias)."""
    eps, H = cfg["layer_norm_eps"], cfg["num_attention_heads"]
    ids = torch.as_tensor(ids, dtype=torch.int64)
    T = ids.shape[0]
    types = torch.zeros(T, dtype=torch.int64) if token_type_ids is None \
        else torch.as_tensor(token_type_ids, dtype=torch.int64)
    blocked = None
    if attention_mask is not None:
        keep = torch.as_tensor(attention_mask).to(torch.bool)
        blocked = (~keep)[None, :].expand(T, T)
    rec = {}
    e = "embeddings."
    tok = w[e + "word_embeddings.weight"][ids]
    pos = w[e + "position_embeddings.weight"][:T]
    typ = w[e + "token_type_embeddings.weight"][types]
    s = tok + pos + typ
    x = layer_norm(s, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    rec.update({"embeddings.token": tok, "embeddings.position": pos, "embeddings.token_type": typ,
                "embeddings.sum": s, "embeddings.output": x})

    def linear(x, name):
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    for L in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{L}."
        q = linear(x, p + "attention.self.query")
        k = linear(x, p + "attention.self.key")
        v = linear(x, p + "attention.self.value")
        ctx = attention(q, k, v, H, blocked, rec, f"layer{L}")
        out = linear(ctx, p + "attention.output.dense")
        a = layer_norm(x + out, w[p + "attention.output.LayerNorm.weight"],
                       w[p + "attention.output.LayerNorm.bias"], eps)
        hid = gelu_erf(linear(a, p + "intermediate.dense"))
        f = linear(hid, p + "output.dense")
        x = layer_norm(a + f, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        rec.update({f"layer{L}.attn_output": out, f"layer{L}.after_attn": a,
                    f"layer{L}.ffn_hidden": hid, f"layer{L}.ffn_output": f,
                    f"layer{L}.hidden": x})
    rec["final_hidden"] = x
    if "pooler.dense.weight" in w:
        rec["pooler"] = torch.tanh(linear(x[0], "pooler.dense"))
    if "cls.predictions.bias" in w:
        c = "cls.predictions.transform."
        t = layer_norm(gelu_erf(linear(x, c + "dense")), w[c + "LayerNorm.weight"],
                       w[c + "LayerNorm.bias"], eps)
        rec["mlm.transform"] = t
        rec["mlm_logits"] = t @ w[e + "word_embeddings.weight"].T + w["cls.predictions.bias"]
    return rec
