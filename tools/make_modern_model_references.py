#!/usr/bin/python3
"""Generates PyTorch references for today's decoder-only models (Llama and its kin).

Run with Debian's torch:  /usr/bin/python3 tools/make_modern_model_references.py
Writes tests/data/modern/<name>.safetensors, one file per configuration: the weights under
Hugging Face Llama names (model.embed_tokens.weight, model.layers.{L}.self_attn.q_proj.weight,
model.layers.{L}.mlp.gate_proj.weight, model.norm.weight, lm_head.weight, ...), every
intermediate of one forward pass under `trace.` + the engine's dump name (ModelTrace), and in the
metadata the configuration (`config`, JSON) and the token ids (`ids`, JSON).

`transformers` cannot be installed here, so the model is written below from the definitions in
Hugging Face's modeling_llama.py (and its Mistral, Qwen2 and Gemma siblings):
- RMSNorm: x / sqrt(mean(x^2) + eps) * weight (LlamaRMSNorm); or LayerNorm with or without bias.
- Rotary positions (apply_rotary_pos_emb with rotate_half) on the first `rotary_dim` features of
  every q and k head (all of them when 0; fewer as GPT-NeoX's rotary_pct, Phi's
  partial_rotary_factor), at angle position * theta^(-2i/rotary_dim). The angles are exact float64
  here; Hugging Face builds them in float32.
- Grouped-query attention: query head h reads K/V head h // (H / H_kv) (repeat_kv).
- The causal mask, and with a sliding window W on a layer: query i sees key j only when
  j <= i and i - j < W (Mistral on every layer; Qwen2 on the layers its config lists).
- The MLP: down(act(gate(x)) * up(x)) with SiLU (Llama) or GELU-tanh (Gemma), or a plain
  down(act(up(x))); biases where the configuration says (Qwen2: q, k, v only).
- Pre-norm residual blocks and a final norm (post-norm, as the original Transformer, for the
  options the family cases leave out); logits from lm_head or the tied embedding.

Everything runs in float64 from weights first rounded to float32 (what the engine holds) and is
stored as float32. The script checks the trace against a second forward pass written another way:
Meta's original Llama formulation, with rotary positions as complex numbers over interleaved
feature pairs (the q/k weights permuted the way Hugging Face's conversion script undoes), K/V
heads repeated with repeat_interleave, the mask built element by element, torch.nn.functional's
norms and activations. Layer outputs and logits must agree to 1e-10.

Deterministic: numpy's legacy RandomState with one seed per case, nothing records a date.
"""
import json
import math
import pathlib
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "modern"

# Shared by every case unless it says otherwise.
BASE = dict(vocab_size=40, hidden_size=32, num_heads=4, num_kv_heads=2, head_dim=8, d_ff=48,
            layers=2, max_length=64, tokens=9, norm="rms", norm_eps=1e-5, norm_position="pre",
            final_norm=True, embedding_norm=False, scale_embedding=False, rope_theta=10000.0,
            rotary_dim=0, mlp="gated", activation="silu", attention_bias=False,
            o_proj_bias=False, mlp_bias=False, sliding_window=None, window_layers=[],
            tied=False)

CASES = {
    # Llama 2/3, TinyLlama, SmolLM: RMSNorm, RoPE, GQA, SwiGLU, untied, no biases.
    "llama_like": dict(layers=3, seed=2101),
    # Mistral 7B: the same with theta 1e6 and a sliding window on every layer.
    "mistral_like": dict(rope_theta=1e6, sliding_window=4, seed=2102),
    # Qwen2: q/k/v biases only, the window on the layers from max_window_layers on, tied
    # embeddings.
    "qwen2_like": dict(layers=3, num_kv_heads=1, norm_eps=1e-6, rope_theta=1e6,
                       attention_bias=True, sliding_window=4,
                       window_layers=[False, True, True], tied=True, seed=2103),
    # Gemma: head_dim 16 with D 32 and 4 heads (H * head_dim = 64 != D), multi-query, GELU-tanh
    # gate, embeddings scaled by sqrt(D), tied. Gemma's RMSNorm multiplies by (1 + weight): a
    # checkpoint layout stores weight + 1, so the engine's norm is the plain one.
    "gemma_like": dict(head_dim=16, num_kv_heads=1, norm_eps=1e-6, activation="gelu_tanh",
                       scale_embedding=True, tied=True, seed=2104),
    # What the family cases leave out: post-norm with an embedding norm and no final norm,
    # LayerNorm without bias, partial rotary positions (4 of 8 features), a plain SiLU MLP with
    # biases, biases on every projection including o_proj, as many K/V heads as heads.
    "mixed_options": dict(num_kv_heads=4, norm="layernorm_nobias", norm_position="post",
                          final_norm=False, embedding_norm=True, rotary_dim=4, mlp="plain",
                          attention_bias=True, o_proj_bias=True, mlp_bias=True, seed=2105),
}


class Draw:
    """Seeded weights, rounded to float32 and returned as float64 tensors."""

    def __init__(self, seed):
        self.random = np.random.RandomState(seed)

    def normal(self, shape, scale):
        values = (self.random.standard_normal(shape) * scale).astype(np.float32)
        return torch.from_numpy(values.astype(np.float64))

    def matrix(self, rows, cols):
        return self.normal((rows, cols), 1.0 / math.sqrt(cols))

    def gain(self, size):
        return 1.0 + self.normal((size,), 0.2)

    def bias(self, size):
        return self.normal((size,), 0.1)


def make_weights(c):
    """{Hugging Face Llama name: float64 tensor} for configuration c."""
    draw = Draw(c["seed"])
    D, V, F_ = c["hidden_size"], c["vocab_size"], c["d_ff"]
    q_rows = c["num_heads"] * c["head_dim"]
    kv_rows = c["num_kv_heads"] * c["head_dim"]
    w = {"model.embed_tokens.weight": draw.normal((V, D), 1.0)}

    def norm(name):
        w[name + ".weight"] = draw.gain(D)
        if c["norm"] == "layernorm":
            w[name + ".bias"] = draw.bias(D)

    def linear(name, rows, cols, bias):
        w[name + ".weight"] = draw.matrix(rows, cols)
        if bias:
            w[name + ".bias"] = draw.bias(rows)

    if c["embedding_norm"]:
        norm("model.embed_norm")
    for L in range(c["layers"]):
        p = f"model.layers.{L}."
        norm(p + "input_layernorm")
        linear(p + "self_attn.q_proj", q_rows, D, c["attention_bias"])
        linear(p + "self_attn.k_proj", kv_rows, D, c["attention_bias"])
        linear(p + "self_attn.v_proj", kv_rows, D, c["attention_bias"])
        linear(p + "self_attn.o_proj", D, q_rows, c["o_proj_bias"])
        norm(p + "post_attention_layernorm")
        if c["mlp"] == "gated":
            linear(p + "mlp.gate_proj", F_, D, c["mlp_bias"])
        linear(p + "mlp.up_proj", F_, D, c["mlp_bias"])
        linear(p + "mlp.down_proj", D, F_, c["mlp_bias"])
    if c["final_norm"]:
        norm("model.norm")
    if not c["tied"]:
        linear("lm_head", V, D, False)
    return w


# --- The reference: Hugging Face's definitions, every intermediate recorded -------------------

def norm_of(c, w, name, x):
    """The configured norm over the last axis."""
    gain = w[name + ".weight"]
    if c["norm"] == "rms":
        variance = x.pow(2).mean(-1, keepdim=True)
        return gain * (x * torch.rsqrt(variance + c["norm_eps"]))
    mean = x.mean(-1, keepdim=True)
    variance = (x - mean).pow(2).mean(-1, keepdim=True)
    y = (x - mean) / torch.sqrt(variance + c["norm_eps"]) * gain
    return y + w[name + ".bias"] if c["norm"] == "layernorm" else y


def activation(c, x):
    if c["activation"] == "silu":
        return x * torch.sigmoid(x)
    if c["activation"] == "gelu_tanh":
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def linear(w, name, x):
    y = x @ w[name + ".weight"].T
    return y + w[name + ".bias"] if name + ".bias" in w else y


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def inv_frequencies(theta, r, scaling=None):
    """The r/2 frequencies of rotary positions, stretched as Hugging Face's rope_scaling says
    (_compute_linear_scaling_rope_parameters, _compute_llama3_parameters), vectorised."""
    inv_freq = 1.0 / theta ** (torch.arange(0, r, 2, dtype=torch.float64) / r)
    if scaling is None:
        return inv_freq
    if scaling["rope_type"] == "linear":
        return inv_freq / scaling["factor"]
    factor, low, high = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old_context = scaling["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > old_context / low, inv_freq / factor, inv_freq)
    smooth = (old_context / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old_context / high) & ~(wavelen > old_context / low)
    return torch.where(medium, smoothed, scaled)


def apply_rope(x, theta, rotary_dim, scaling=None):
    """x [1, heads, N, P]: the first rotary_dim features turned by position (apply_rotary_pos_emb
    with rotate_half; the rest pass, as GPT-NeoX's partial rotary)."""
    r = rotary_dim or x.shape[-1]
    inv_freq = inv_frequencies(theta, r, scaling)
    freqs = torch.arange(x.shape[2], dtype=torch.float64)[:, None] * inv_freq  # [N, r/2]
    emb = torch.cat((freqs, freqs), dim=-1)
    turned = x[..., :r] * emb.cos() + rotate_half(x[..., :r]) * emb.sin()
    return torch.cat((turned, x[..., r:]), dim=-1)


def repeat_kv(x, n_rep):
    B, Hkv, N, P = x.shape
    return x[:, :, None].expand(B, Hkv, n_rep, N, P).reshape(B, Hkv * n_rep, N, P)


def blocked(N, window):
    """[N, N] bool, True where query i may not see key j: causal, and a window of W keys."""
    i, j = torch.arange(N)[:, None], torch.arange(N)[None, :]
    mask = j > i
    if window is not None:
        mask |= i - j >= window
    return mask


def windowed(c, layer):
    if c["sliding_window"] is None:
        return False
    return not c["window_layers"] or c["window_layers"][layer]


def attention(c, w, L, x, t):
    """Self-attention of layer L on x [1, N, D]; records every step under layer{L}.masked_self."""
    p, s = f"model.layers.{L}.self_attn.", f"layer{L}.masked_self."
    H, Hkv, P = c["num_heads"], c["num_kv_heads"], c["head_dim"]
    N = x.shape[1]
    q, k, v = (linear(w, p + n, x) for n in ("q_proj", "k_proj", "v_proj"))
    split = lambda y, h: y.reshape(1, N, h, P).transpose(1, 2)  # noqa: E731
    qh, kh, vh = split(q, H), split(k, Hkv), split(v, Hkv)
    qr = apply_rope(qh, c["rope_theta"], c["rotary_dim"], c.get("rope_scaling"))
    kr = apply_rope(kh, c["rope_theta"], c["rotary_dim"], c.get("rope_scaling"))
    scores = qr @ repeat_kv(kr, H // Hkv).transpose(-1, -2)
    scaled = scores / math.sqrt(P)
    window = c["sliding_window"] if windowed(c, L) else None
    masked = scaled.masked_fill(blocked(N, window), float("-inf"))
    weights = torch.softmax(masked, dim=-1)
    context = weights @ repeat_kv(vh, H // Hkv)
    concat = context.transpose(1, 2).reshape(1, N, H * P)
    output = linear(w, p + "o_proj", concat)
    for name, value in (("q_proj", q), ("k_proj", k), ("v_proj", v), ("q_heads", qh),
                        ("k_heads", kh), ("v_heads", vh), ("q_rotated", qr), ("k_rotated", kr),
                        ("scores", scores), ("scaled", scaled), ("masked", masked),
                        ("weights", weights), ("context", context), ("concat", concat),
                        ("output", output)):
        t[s + name] = value
    return output


def mlp(c, w, L, x, t):
    p, s = f"model.layers.{L}.mlp.", f"layer{L}.dec_ffn."
    up = linear(w, p + "up_proj", x)
    if c["mlp"] == "gated":
        gate = linear(w, p + "gate_proj", x)
        hidden = activation(c, gate) * up
        t[s + "gate_pre"] = gate
    else:
        hidden = activation(c, up)
    output = linear(w, p + "down_proj", hidden)
    t[s + "hidden_pre"], t[s + "hidden"], t[s + "output"] = up, hidden, output
    return output


def residual_block(c, w, norm_name, x, sublayer, t, prefix):
    """Pre-norm x + f(N(x)) or post-norm N(x + f(x)), recorded as the engine's norm/residual."""
    if c["norm_position"] == "pre":
        n = norm_of(c, w, norm_name, x)
        r = x + sublayer(n)
        t[prefix + "norm"], t[prefix + "residual"] = n, r
        return r
    r = x + sublayer(x)
    n = norm_of(c, w, norm_name, r)
    t[prefix + "norm"], t[prefix + "residual"] = n, r
    return n


def forward(c, w, ids):
    """{engine dump name: float64 tensor} of one forward pass over ids."""
    t = {}
    D = c["hidden_size"]
    x = w["model.embed_tokens.weight"][ids][None]
    if c["scale_embedding"]:
        x = x * math.sqrt(D)
    t["decoder.embedding"] = x
    t["decoder.positional"] = torch.zeros_like(x)  # rotary positions add nothing
    if c["embedding_norm"]:
        x = norm_of(c, w, "model.embed_norm", x)
    t["decoder.input"] = x
    for L in range(c["layers"]):
        p = f"model.layers.{L}."
        x = residual_block(c, w, p + "input_layernorm", x,
                           lambda n, L=L: attention(c, w, L, n, t), t, f"layer{L}.masked_self.")
        x = residual_block(c, w, p + "post_attention_layernorm", x,
                           lambda n, L=L: mlp(c, w, L, n, t), t, f"layer{L}.dec_ffn.")
    if c["final_norm"]:
        x = norm_of(c, w, "model.norm", x)
        t["decoder.final_norm"] = x
    head = w["model.embed_tokens.weight"] if c["tied"] else w["lm_head.weight"]
    t["decoder.logits"] = x @ head.T
    return t


# --- The second path: Meta's formulation ------------------------------------------------------

def meta_order(P, r):
    """Feature order of one head in Meta's interleaved layout: rotated pair i is (i, i + r/2) of
    the rotate_half layout; features from r on stay."""
    return [f for i in range(r // 2) for f in (i, i + r // 2)] + list(range(r, P))


def meta_frequencies(theta, r, scaling):
    """The frequencies again, pair by pair as Meta's apply_scaling in llama3's reference code
    reads (a loop with three cases), so that a slip in the vectorised form shows."""
    out = []
    for i in range(0, r, 2):
        freq = theta ** (-i / r)
        if scaling is not None and scaling["rope_type"] == "linear":
            freq /= scaling["factor"]
        elif scaling is not None:
            factor, old = scaling["factor"], scaling["original_max_position_embeddings"]
            low, high = scaling["low_freq_factor"], scaling["high_freq_factor"]
            wavelen = 2 * math.pi / freq
            if wavelen > old / low:
                freq /= factor
            elif wavelen >= old / high:
                smooth = (old / wavelen - low) / (high - low)
                freq = (1 - smooth) * freq / factor + smooth * freq
        out.append(freq)
    return torch.tensor(out, dtype=torch.float64)


def meta_attention(c, w, L, x):
    p = f"model.layers.{L}.self_attn."
    H, Hkv, P = c["num_heads"], c["num_kv_heads"], c["head_dim"]
    r = c["rotary_dim"] or P
    N = x.shape[1]
    order = meta_order(P, r)

    def project(name, heads, permute):
        rows = [h * P + f for h in range(heads) for f in (order if permute else range(P))]
        weight = w[p + name + ".weight"][rows]
        y = x[0] @ weight.T
        if p + name + ".bias" in w:
            y = y + w[p + name + ".bias"][rows]
        return y.reshape(N, heads, P)

    q, k, v = project("q_proj", H, True), project("k_proj", Hkv, True), project("v_proj", Hkv,
                                                                                 False)
    angles = torch.outer(torch.arange(N, dtype=torch.float64),
                         meta_frequencies(c["rope_theta"], r, c.get("rope_scaling")))
    turn = torch.polar(torch.ones_like(angles), angles)[:, None, :]  # [N, 1, r/2]

    def rotate(y):
        pairs = torch.view_as_complex(y[..., :r].contiguous().reshape(N, -1, r // 2, 2))
        return torch.cat((torch.view_as_real(pairs * turn).reshape(N, -1, r), y[..., r:]), -1)

    q, k = rotate(q), rotate(k)
    k, v = (y.repeat_interleave(H // Hkv, dim=1) for y in (k, v))
    window = c["sliding_window"] if windowed(c, L) else None
    bias = torch.zeros(N, N, dtype=torch.float64)
    for i in range(N):
        for j in range(N):
            if j > i or (window is not None and i - j >= window):
                bias[i, j] = float("-inf")
    scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(P) + bias
    weights = torch.exp(scores - scores.max(-1, keepdim=True).values)
    weights = weights / weights.sum(-1, keepdim=True)
    context = torch.einsum("hqk,khd->qhd", weights, v).reshape(1, N, H * P)
    return F.linear(context, w[p + "o_proj.weight"], w.get(p + "o_proj.bias"))


def meta_norm(c, w, name, x):
    gain = w[name + ".weight"]
    if c["norm"] == "rms":
        return x / torch.sqrt((x * x).sum(-1, keepdim=True) / x.shape[-1] + c["norm_eps"]) * gain
    return F.layer_norm(x, (x.shape[-1],), gain, w.get(name + ".bias"), c["norm_eps"])


def meta_mlp(c, w, L, x):
    p = f"model.layers.{L}.mlp."
    act = {"silu": F.silu, "gelu_tanh": lambda y: F.gelu(y, approximate="tanh"),
           "gelu": F.gelu}[c["activation"]]
    lin = lambda name, y: F.linear(y, w[p + name + ".weight"], w.get(p + name + ".bias"))  # noqa
    if c["mlp"] == "gated":
        return lin("down_proj", act(lin("gate_proj", x)) * lin("up_proj", x))
    return lin("down_proj", act(lin("up_proj", x)))


def meta_forward(c, w, ids):
    """The layer outputs and logits computed the second way."""
    x = F.embedding(torch.tensor(ids), w["model.embed_tokens.weight"])[None]
    x = x * (c["hidden_size"] ** 0.5 if c["scale_embedding"] else 1.0)
    if c["embedding_norm"]:
        x = meta_norm(c, w, "model.embed_norm", x)
    outputs = []
    for L in range(c["layers"]):
        p = f"model.layers.{L}."
        for norm, sub in (("input_layernorm", meta_attention), ("post_attention_layernorm",
                                                                 meta_mlp)):
            if c["norm_position"] == "pre":
                x = x + sub(c, w, L, meta_norm(c, w, p + norm, x))
            else:
                x = meta_norm(c, w, p + norm, x + sub(c, w, L, x))
        outputs.append(x)
    if c["final_norm"]:
        x = meta_norm(c, w, "model.norm", x)
    head = w["model.embed_tokens.weight"] if c["tied"] else w["lm_head.weight"]
    return outputs, x @ head.T


def layer_output(c, t, L):
    block = f"layer{L}.dec_ffn."
    return t[block + ("residual" if c["norm_position"] == "pre" else "norm")]


def check(name, c, w, ids, t):
    outputs, logits = meta_forward(c, w, ids)
    for L, out in enumerate(outputs):
        error = (out - layer_output(c, t, L)).abs().max().item()
        assert error < 1e-10, f"{name} layer {L}: the two paths differ by {error}"
    error = (logits - t["decoder.logits"]).abs().max().item()
    assert error < 1e-10, f"{name} logits: the two paths differ by {error}"
    print(f"{name}: {len(t)} trace tensors; Meta's formulation agrees (logits within {error:.1e})")


def main():
    torch.set_default_dtype(torch.float64)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, case in CASES.items():
        c = dict(BASE, **case)
        ids = np.random.RandomState(c["seed"] + 1000).randint(0, c["vocab_size"], c["tokens"])
        ids = [int(i) for i in ids]
        w = make_weights(c)
        t = forward(c, w, ids)
        check(name, c, w, ids, t)
        tensors = {k: v.numpy().astype(np.float32) for k, v in w.items()}
        tensors.update({"trace." + k: v.numpy().astype(np.float32) for k, v in t.items()})
        config = {k: v for k, v in c.items() if k not in ("seed", "tokens")}
        safetensors_py.save(OUT / f"{name}.safetensors", tensors,
                            {"config": json.dumps(config), "ids": json.dumps(ids)})


if __name__ == "__main__":
    main()
