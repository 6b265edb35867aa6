"""A trainable decoder-only model of today's kind (Llama, Mistral, Qwen2), batched, for
tools/train_demo_models.py's `modern` demo.

Its state_dict() has Hugging Face's Llama/Qwen2 tensor names (model.embed_tokens.weight,
model.layers.{L}.self_attn.q_proj.weight, ..., model.norm.weight), so the trained weights are
saved as a Hugging Face folder as they are. The computation is the one of
tools/make_modern_model_references.py (RMSNorm before each sublayer, rotary positions by
rotate_half, query head h reading K/V head h // (H / H_kv), a causal mask with a sliding window on
the layers that have one, down(silu(gate x) * up x)); the reference activations are written with
that script's float64 forward, not with this module, so a mistake here could only make a worse
model, never a wrong reference.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RmsNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class SelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        D, H, Hkv, P = c["hidden_size"], c["num_heads"], c["num_kv_heads"], c["head_dim"]
        self.H, self.Hkv, self.P = H, Hkv, P
        self.q_proj = nn.Linear(D, H * P, bias=c["attention_bias"])
        self.k_proj = nn.Linear(D, Hkv * P, bias=c["attention_bias"])
        self.v_proj = nn.Linear(D, Hkv * P, bias=c["attention_bias"])
        self.o_proj = nn.Linear(H * P, D, bias=False)

    def forward(self, x, cos, sin, blocked):
        B, N, _ = x.shape
        q = self.q_proj(x).view(B, N, self.H, self.P).transpose(1, 2)
        k = self.k_proj(x).view(B, N, self.Hkv, self.P).transpose(1, 2)
        v = self.v_proj(x).view(B, N, self.Hkv, self.P).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = self.H // self.Hkv
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(self.P)
        weights = F.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
        return self.o_proj((weights @ v).transpose(1, 2).reshape(B, N, self.H * self.P))


class GatedMlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        D, hidden = c["hidden_size"], c["d_ff"]
        self.gate_proj = nn.Linear(D, hidden, bias=False)
        self.up_proj = nn.Linear(D, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, D, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RmsNorm(c["hidden_size"], c["norm_eps"])
        self.self_attn = SelfAttention(c)
        self.post_attention_layernorm = RmsNorm(c["hidden_size"], c["norm_eps"])
        self.mlp = GatedMlp(c)

    def forward(self, x, cos, sin, blocked):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, blocked)
        return x + self.mlp(self.post_attention_layernorm(x))


class Body(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(Layer(c) for _ in range(c["layers"]))
        self.norm = RmsNorm(c["hidden_size"], c["norm_eps"])


class ModernLm(nn.Module):
    """Tied embeddings (the output reads model.embed_tokens.weight), as Qwen2's small models."""

    def __init__(self, c):
        super().__init__()
        assert c["tied"] and c["mlp"] == "gated" and c["norm"] == "rms" and not c["rotary_dim"]
        self.c = c
        self.model = Body(c)
        nn.init.normal_(self.model.embed_tokens.weight, std=0.02)

    def rotary(self, N, device):
        P = self.c["head_dim"]
        inv_freq = 1.0 / self.c["rope_theta"] ** (torch.arange(0, P, 2, dtype=torch.float64) / P)
        angles = torch.arange(N, dtype=torch.float64)[:, None] * inv_freq
        emb = torch.cat((angles, angles), dim=-1)
        dtype = self.model.embed_tokens.weight.dtype
        return emb.cos().to(dtype), emb.sin().to(dtype)

    def blocked(self, N, layer):
        i, j = torch.arange(N)[:, None], torch.arange(N)[None, :]
        mask = j > i
        if self.c["sliding_window"] is not None and self.c["window_layers"][layer]:
            mask |= i - j >= self.c["sliding_window"]
        return mask

    def forward(self, ids):
        N = ids.shape[1]
        cos, sin = self.rotary(N, ids.device)
        x = self.model.embed_tokens(ids)
        for L, layer in enumerate(self.model.layers):
            x = layer(x, cos, sin, self.blocked(N, L))
        return self.model.norm(x) @ self.model.embed_tokens.weight.T
