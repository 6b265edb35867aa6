"""A small PyTorch Transformer written to match AttnViz's model format (docs/model-format.md).

Module names are the tensor names of model.safetensors, and `forward(..., rec=dict)` records every
intermediate under the trace names of `attnviz-cli trace` (layer{L}.{block}.{step}), so the
reference activations and the C++ engine can be compared name by name. Used by
tools/train_demo_models.py; written independently of the C++ engine.
"""
import json
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

ATTENTION_STEPS = ["q_proj", "k_proj", "v_proj", "q_heads", "k_heads", "v_heads", "scores",
                   "scaled", "masked", "weights", "context", "concat", "output"]


class Attention(nn.Module):
    def __init__(self, d, heads, bias):
        super().__init__()
        self.heads = heads
        self.q_proj = nn.Linear(d, d, bias=bias)
        self.k_proj = nn.Linear(d, d, bias=bias)
        self.v_proj = nn.Linear(d, d, bias=bias)
        self.o_proj = nn.Linear(d, d, bias=bias)

    def forward(self, xq, xkv, blocked, rec, prefix):
        B, Nq, D = xq.shape
        Nk = xkv.shape[1]
        H = self.heads
        dk = D // H
        q, k, v = self.q_proj(xq), self.k_proj(xkv), self.v_proj(xkv)
        qh = q.view(B, Nq, H, dk).transpose(1, 2)
        kh = k.view(B, Nk, H, dk).transpose(1, 2)
        vh = v.view(B, Nk, H, dk).transpose(1, 2)
        scores = qh @ kh.transpose(-1, -2)
        scaled = scores / math.sqrt(dk)
        masked = scaled if blocked is None else scaled.masked_fill(blocked[:, None], float("-inf"))
        weights = F.softmax(masked, dim=-1)
        context = weights @ vh
        concat = context.transpose(1, 2).reshape(B, Nq, D)
        out = self.o_proj(concat)
        if rec is not None:
            values = [q, k, v, qh, kh, vh, scores, scaled, masked, weights, context, concat, out]
            for name, value in zip(ATTENTION_STEPS, values):
                rec[f"{prefix}.{name}"] = value.detach()
        return out


class FeedForward(nn.Module):
    def __init__(self, d, hidden, activation, bias):
        super().__init__()
        self.linear1 = nn.Linear(d, hidden, bias=bias)
        self.linear2 = nn.Linear(hidden, d, bias=bias)
        self.activation = activation

    def forward(self, x, rec, prefix):
        pre = self.linear1(x)
        if self.activation == "relu":
            hidden = F.relu(pre)
        elif self.activation == "gelu":
            hidden = F.gelu(pre)
        else:
            hidden = F.gelu(pre, approximate="tanh")
        out = self.linear2(hidden)
        if rec is not None:
            rec[f"{prefix}.hidden_pre"] = pre.detach()
            rec[f"{prefix}.hidden"] = hidden.detach()
            rec[f"{prefix}.output"] = out.detach()
        return out


def sublayer(x, norm, fn, pre_norm, rec, prefix):
    """Residual connection around fn, LayerNorm before (pre-norm) or after (post-norm)."""
    if pre_norm:
        n = norm(x)
        r = x + fn(n)
        out = r
    else:
        r = x + fn(x)
        n = norm(r)
        out = n
    if rec is not None:
        rec[f"{prefix}.norm"] = n.detach()
        rec[f"{prefix}.residual"] = r.detach()
    return out


def sinusoidal(positions, d):
    pe = torch.zeros(positions, d, dtype=torch.float64)
    pos = torch.arange(positions, dtype=torch.float64)[:, None]
    rate = torch.exp(-math.log(10000.0) * torch.arange(0, d, 2, dtype=torch.float64) / d)
    pe[:, 0::2] = torch.sin(pos * rate)
    pe[:, 1::2] = torch.cos(pos * rate)[:, : d // 2]
    return pe


class Stack(nn.Module):
    """The embedding, the layers and the optional final LayerNorm of an encoder or a decoder."""

    def __init__(self, cfg, n_layers, decoder, cross):
        super().__init__()
        D, V = cfg["d_model"], cfg["vocab_size"]
        self.cfg = cfg
        self.decoder = decoder
        self.embedding = nn.Embedding(V, D)
        if cfg["positional"] == "learned":
            self.positional = nn.Embedding(cfg["max_length"], D)
        self.register_buffer("sinusoid", sinusoidal(cfg["max_length"], D).float(), persistent=False)
        self.layers = nn.ModuleList()
        eps, bias, H, Fh, act = cfg["layer_norm_eps"], cfg["bias"], cfg["num_heads"], cfg["d_ff"], cfg["activation"]
        for _ in range(n_layers):
            blocks = {}
            if decoder:
                blocks["masked_self"] = Attention(D, H, bias)
                blocks["masked_self_norm"] = nn.LayerNorm(D, eps=eps)
                if cross:
                    blocks["cross"] = Attention(D, H, bias)
                    blocks["cross_norm"] = nn.LayerNorm(D, eps=eps)
                blocks["dec_ffn"] = FeedForward(D, Fh, act, bias)
                blocks["dec_ffn_norm"] = nn.LayerNorm(D, eps=eps)
            else:
                blocks["self"] = Attention(D, H, bias)
                blocks["self_norm"] = nn.LayerNorm(D, eps=eps)
                blocks["enc_ffn"] = FeedForward(D, Fh, act, bias)
                blocks["enc_ffn_norm"] = nn.LayerNorm(D, eps=eps)
            self.layers.append(nn.ModuleDict(blocks))
        if cfg["final_norm"]:
            self.final_norm = nn.LayerNorm(D, eps=eps)

    def embed(self, tokens, rec, name):
        N = tokens.shape[1]
        e = self.embedding(tokens)
        if self.cfg["scale_embedding"]:
            e = e * math.sqrt(self.cfg["d_model"])
        if self.cfg["positional"] == "learned":
            p = self.positional.weight[:N][None]
        elif self.cfg["positional"] == "sinusoidal":
            p = self.sinusoid[:N][None].to(e.dtype)
        else:
            p = torch.zeros_like(e[:1])
        x = e + p
        if rec is not None:
            rec[f"{name}.embedding"] = e.detach()
            rec[f"{name}.positional"] = p.detach()
            rec[f"{name}.input"] = x.detach()
        return x

    def forward(self, tokens, memory, self_blocked, cross_blocked, rec, name):
        pre = self.cfg["norm"] == "pre"
        x = self.embed(tokens, rec, name)
        for L, layer in enumerate(self.layers):
            if self.decoder:
                x = sublayer(x, layer["masked_self_norm"],
                             lambda n: layer["masked_self"](n, n, self_blocked, rec, f"layer{L}.masked_self"),
                             pre, rec, f"layer{L}.masked_self")
                if "cross" in layer:
                    x = sublayer(x, layer["cross_norm"],
                                 lambda n: layer["cross"](n, memory, cross_blocked, rec, f"layer{L}.cross"),
                                 pre, rec, f"layer{L}.cross")
                x = sublayer(x, layer["dec_ffn_norm"], lambda n: layer["dec_ffn"](n, rec, f"layer{L}.dec_ffn"),
                             pre, rec, f"layer{L}.dec_ffn")
            else:
                x = sublayer(x, layer["self_norm"],
                             lambda n: layer["self"](n, n, self_blocked, rec, f"layer{L}.self"),
                             pre, rec, f"layer{L}.self")
                x = sublayer(x, layer["enc_ffn_norm"], lambda n: layer["enc_ffn"](n, rec, f"layer{L}.enc_ffn"),
                             pre, rec, f"layer{L}.enc_ffn")
        if self.cfg["final_norm"]:
            x = self.final_norm(x)
            if rec is not None:
                rec[f"{name}.final_norm"] = x.detach()
        return x


class Transformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        arch = cfg["architecture"]
        if arch in ("encoder-decoder", "encoder-only"):
            self.encoder = Stack(cfg, cfg["encoder_layers"], decoder=False, cross=False)
        if arch in ("encoder-decoder", "decoder-only"):
            self.decoder = Stack(cfg, cfg["decoder_layers"], decoder=True, cross=arch == "encoder-decoder")
            self.decoder.output = nn.Linear(cfg["d_model"], cfg["vocab_size"], bias=cfg["bias"])

    def forward(self, source=None, target=None, source_pad=None, rec=None):
        """source [B, Ns], target [B, Nt] token ids; source_pad [B, Ns] True at padding.
        Returns the decoder's logits (or the encoder's output for an encoder-only model)."""
        memory = None
        pad_keys = None
        if source is not None:
            Ns = source.shape[1]
            if source_pad is not None:
                pad_keys = source_pad[:, None, :].expand(-1, Ns, -1)
            memory = self.encoder(source, None, pad_keys, None, rec, "encoder")
            if self.cfg["architecture"] == "encoder-only":
                return memory
        Nt = target.shape[1]
        causal = torch.ones(Nt, Nt, dtype=torch.bool).triu(1)[None].expand(target.shape[0], -1, -1)
        cross = None if source_pad is None else source_pad[:, None, :].expand(-1, Nt, -1)
        x = self.decoder(target, memory, causal, cross, rec, "decoder")
        logits = self.decoder.output(x)
        if rec is not None:
            rec["decoder.logits"] = logits.detach()
        return logits


class Vocabulary:
    def __init__(self, tokens):
        self.tokens = list(tokens)
        self.index = {t: i for i, t in enumerate(self.tokens)}

    def encode(self, text, tokenizer="char"):
        pieces = list(text) if tokenizer == "char" else text.split()
        return [self.index[p] for p in pieces]

    def decode(self, ids):
        return "".join(self.tokens[i] for i in ids)


def save_model(folder, cfg, vocab, model, save_tensors):
    """Writes config.json, vocab.json and model.safetensors (float32) into folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg, indent=2, ensure_ascii=False) + "\n")
    (folder / "vocab.json").write_text(json.dumps(vocab.tokens, ensure_ascii=False) + "\n")
    state = {k: v.detach().float().numpy() for k, v in model.state_dict().items()}
    save_tensors(folder / "model.safetensors", state, {"format": "attnviz-model"})
