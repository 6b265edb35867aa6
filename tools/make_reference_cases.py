#!/usr/bin/python3
"""Generates the PyTorch reference cases for the multi-head attention engine.

Run with Debian's torch:  /usr/bin/python3 tools/make_reference_cases.py
Writes tests/data/mha/<name>.case.safetensors (inputs, weights, mask: the attnviz-cli mha case
format), <name>.expected.safetensors (every trace step, float32), <name>.float64.safetensors (the
same steps unrounded, F64) and cases.txt listing them; and torch_float32_error.json: per case and
step, the largest error against the float64 trace of PyTorch's own float32 computation (the trace's
operations in float32, and nn.MultiheadAttention in float32 for output and weights where it takes
the case), the yardstick of tests/engine/float32_exactness_test.cpp (issue #28).

The trace is computed with torch operations in float64 and stored as float32. Wherever
torch.nn.MultiheadAttention can express a case, the script also runs the module on the same
weights and asserts that its output and per-head weights equal the traced ones, so the step-by-step
trace is tied to PyTorch's own implementation. Rows whose keys are all blocked get zero weights
and a zero context (PyTorch gives NaN there; AttnViz's convention is documented in
docs/conventions.md).

Three variants, written from their definitions as Hugging Face's Llama and Mistral compute them,
are switched on by optional case metadata (a case without them is the original multi-head
attention, and its files carry none of these keys):
- `num_kv_heads` H_kv (grouped-query attention; 1 is multi-query): w_k, w_v and their biases have
  H_kv heads' rows, k_heads and v_heads are [B, H_kv, Nk, P], and query head h reads K/V head
  floor(h / (H / H_kv)) (`repeat_kv` order). Every later step keeps one matrix per query head.
- `rope_theta` (rotary positions): after the split, every q and k head is turned as
  `apply_rotary_pos_emb` does, feature i paired with i + Pqk/2 at angle pos * theta^(-2i/Pqk).
  Positions are 0..N-1 unless the case holds `query_positions` [B, Nq] / `key_positions` [B, Nk]
  (I32 or I64; either alone, the other then counts from 0). The expected file gains q_rotated
  [B, H, Nq, Pqk] and k_rotated [B, H_kv, Nk, Pqk], and the scores come from them.
- `sliding_window` W (needs causal): query i sees key j only when j <= i and i - j < W, by index,
  on top of valid lengths and the mask.
nn.MultiheadAttention cannot take such a case as it stands, so the new cases are also derived a
second way, number by number in Python floats (RoPE in its complex-number form), and must agree
to 1e-10; a grouped case must equal the plain multi-head case whose K/V rows are repeated per
group, and that one is run through nn.MultiheadAttention when it has no rotary positions.
"""
import cmath
import json
import math
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "mha"

# Case entries that are settings of the module, written as metadata rather than as tensors.
SETTINGS = ("num_heads", "causal", "num_kv_heads", "rope_theta", "sliding_window", "rotary_dim",
            "qk_norm", "qk_norm_eps", "qk_norm_unit_offset", "score_scale",
            "attn_logit_softcapping")
# The settings of a variant, in the case file's metadata only when the case uses the variant.
VARIANT_SETTINGS = ("num_kv_heads", "rope_theta", "sliding_window", "rotary_dim", "qk_norm",
                    "qk_norm_eps", "qk_norm_unit_offset", "score_scale", "attn_logit_softcapping")
# Tensors of a treatment: a case that holds one is a variant too.
VARIANT_TENSORS = ("q_norm", "k_norm", "sinks", "alibi_slopes")
# What nn.MultiheadAttention cannot compute, metadata and tensors.
TREATMENTS = ("qk_norm", "rotary_dim", "score_scale", "attn_logit_softcapping", "sinks",
              "alibi_slopes")


def blocked_mask(B, Nq, Nk, causal, valid_lens, mask, window=None):
    """[B, Nq, Nk] bool, True where the key is blocked (AttnViz semantics)."""
    blocked = torch.zeros(B, Nq, Nk, dtype=torch.bool)
    j = torch.arange(Nk)
    if causal:
        blocked |= j[None, None, :] > torch.arange(Nq)[None, :, None]
    if window is not None:
        assert causal, "a sliding window only limits how far back a causal query looks"
        # by index, as Mistral's mask: W keys, the query's own one included
        blocked |= torch.arange(Nq)[None, :, None] - j[None, None, :] >= window
    if valid_lens is not None:
        lens = valid_lens.to(torch.int64)
        if lens.dim() == 1:
            lens = lens[:, None].expand(B, Nq)
        blocked |= j[None, None, :] >= lens[:, :, None]
    if mask is not None:
        allowed = mask.to(torch.bool)
        if allowed.dim() == 2:
            allowed = allowed[None].expand(B, Nq, Nk)
        blocked |= ~allowed
    return blocked


def positions(c, name, B, N):
    """[B, N] int64: the case's positions, or 0..N-1 in every batch item."""
    if name in c:
        return torch.from_numpy(c[name]).to(torch.int64)
    return torch.arange(N)[None].expand(B, N)


def rotate_half(x):
    """Hugging Face's rotate_half: (x1, x2) -> (-x2, x1) over the two halves of the features."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(x, pos, theta, rotary_dim=None):
    """x [B, heads, N, P] turned by position as apply_rotary_pos_emb does, in float64 (Hugging
    Face builds inv_freq in float32; the reference keeps the angles exact instead). With
    rotary_dim R (Phi-3's partial_rotary_factor), only the first R features turn, pair i at
    pos * theta^(-2i/R), and the others pass unchanged."""
    R = x.shape[-1] if rotary_dim is None else rotary_dim
    x_rot, x_pass = x[..., :R], x[..., R:]
    inv_freq = 1.0 / theta ** (torch.arange(0, R, 2, dtype=torch.float64) / R)
    freqs = pos.double()[..., None] * inv_freq  # [B, N, R/2]
    emb = torch.cat((freqs, freqs), dim=-1)  # cos and sin repeat over both halves
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]  # one angle for every head
    turned = x_rot * cos.to(x.dtype) + rotate_half(x_rot) * sin.to(x.dtype)
    return torch.cat((turned, x_pass), dim=-1)


def rms_norm(x, gain, eps, unit_offset):
    """RMSNorm over the last axis as Qwen3RMSNorm (and Gemma's, with the gain 1 + w) computes it:
    x * rsqrt(mean(x^2) + eps) * w."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (gain + unit_offset)


def repeat_kv(x, n_rep):
    """Hugging Face's repeat_kv: [B, H_kv, N, P] -> [B, H_kv * n_rep, N, P], each K/V head
    repeated for the n_rep query heads of its group (query head h reads K/V head h // n_rep)."""
    if n_rep == 1:
        return x
    B, Hkv, N, P = x.shape
    return x[:, :, None].expand(B, Hkv, n_rep, N, P).reshape(B, Hkv * n_rep, N, P)


def trace_with_ops(c, dtype=torch.float64):
    """The full trace from plain torch operations, in float64 (the reference) or in float32 (what
    PyTorch computes at the engine's precision, to measure its error against the reference)."""
    d = lambda name: torch.from_numpy(c[name]).to(dtype) if name in c else None  # noqa: E731
    q, k, v = d("query"), d("key"), d("value")
    H = c["num_heads"]
    Hkv = c.get("num_kv_heads", H)
    B, Nq, _ = q.shape
    Nk = k.shape[1]

    def linear(x, w, b):
        y = x @ w.T
        return y if b is None else y + b

    q_proj = linear(q, d("w_q"), d("b_q"))
    k_proj = linear(k, d("w_k"), d("b_k"))
    v_proj = linear(v, d("w_v"), d("b_v"))
    Pqk = q_proj.shape[-1] // H
    Pv = v_proj.shape[-1] // Hkv
    split = lambda x, h, p: x.reshape(B, x.shape[1], h, p).permute(0, 2, 1, 3).contiguous()  # noqa
    q_heads = split(q_proj, H, Pqk)
    k_heads, v_heads = split(k_proj, Hkv, Pqk), split(v_proj, Hkv, Pv)  # H_kv heads each
    trace = dict(q_proj=q_proj, k_proj=k_proj, v_proj=v_proj, q_heads=q_heads, k_heads=k_heads,
                 v_heads=v_heads)
    q_used, k_used = q_heads, k_heads
    if "qk_norm" in c:
        # Qwen3 and Gemma 3 normalise each head after the view (q_norm(q_proj(x).view(...))),
        # OLMo 2 the whole projection before it; both before rotary positions.
        eps, offset = c.get("qk_norm_eps", 1e-6), 1.0 if c.get("qk_norm_unit_offset") else 0.0
        if c["qk_norm"] == "per_head":
            q_used = rms_norm(q_heads, d("q_norm"), eps, offset)
            k_used = rms_norm(k_heads, d("k_norm"), eps, offset)
        else:
            q_used = split(rms_norm(q_proj, d("q_norm"), eps, offset), H, Pqk)
            k_used = split(rms_norm(k_proj, d("k_norm"), eps, offset), Hkv, Pqk)
        trace.update(q_normed=q_used, k_normed=k_used)
    if "rope_theta" in c:
        assert c.get("rotary_dim", Pqk) % 2 == 0, "rotary positions turn features in pairs"
        q_used = apply_rope(q_used, positions(c, "query_positions", B, Nq), c["rope_theta"],
                            c.get("rotary_dim"))
        k_used = apply_rope(k_used, positions(c, "key_positions", B, Nk), c["rope_theta"],
                            c.get("rotary_dim"))
        trace.update(q_rotated=q_used, k_rotated=k_used)
    scores = q_used @ repeat_kv(k_used, H // Hkv).transpose(-1, -2)
    scaled = scores * c["score_scale"] if "score_scale" in c else scores / math.sqrt(Pqk)
    trace.update(scores=scores, scaled=scaled)
    before = scaled
    if "attn_logit_softcapping" in c:  # Gemma 2: after the scale, before the mask
        cap = c["attn_logit_softcapping"]
        before = torch.tanh(before / cap) * cap
        trace["capped"] = before
    if "alibi_slopes" in c:  # ALiBi: - m_h * (p_i - p_j), added where the mask is added
        distance = (positions(c, "query_positions", B, Nq)[:, :, None]
                    - positions(c, "key_positions", B, Nk)[:, None, :]).to(dtype)
        before = before - d("alibi_slopes")[None, :, None, None] * distance[:, None]
        trace["biased"] = before
    valid = torch.from_numpy(c["valid_lens"]) if "valid_lens" in c else None
    mask = torch.from_numpy(c["mask"]) if "mask" in c else None
    blocked = blocked_mask(B, Nq, Nk, c.get("causal", False), valid, mask,
                           c.get("sliding_window"))
    masked = before.masked_fill(blocked[:, None], float("-inf"))
    trace["masked"] = masked
    if "sinks" in c:
        # gpt-oss' eager attention: the sink logit joins each row, the maximum is subtracted,
        # the softmax is taken and the sink's column dropped.
        sinks = d("sinks").reshape(1, H, 1, 1).expand(B, H, Nq, 1)
        combined = torch.cat([masked, sinks], dim=-1)
        combined = combined - combined.max(dim=-1, keepdim=True).values
        probs = torch.softmax(combined, dim=-1)
        weights, sink_weights = probs[..., :-1], probs[..., -1]
        trace.update(weights=weights, sink_weights=sink_weights)
    else:
        weights = torch.softmax(masked, dim=-1)
        weights = torch.nan_to_num(weights, nan=0.0)  # fully blocked rows attend to nothing
        trace["weights"] = weights
    context = weights @ repeat_kv(v_heads, H // Hkv)
    concat = context.permute(0, 2, 1, 3).reshape(B, Nq, H * Pv)
    output = linear(concat, d("w_o"), d("b_o"))
    trace.update(context=context, concat=concat, output=output)
    return trace, blocked


def trace_with_loops(c):
    """The same trace again from the definitions, one number at a time in Python floats, sharing
    no code with trace_with_ops: its own mask rule, K/V head h // group, RoPE as complex numbers
    (the pair (x[i], x[i + P/2]) times e^(i * angle)) and a softmax written out."""
    f = lambda name: c[name].astype(np.float64).tolist() if name in c else None  # noqa: E731
    q, k, v = f("query"), f("key"), f("value")
    H = c["num_heads"]
    Hkv = c.get("num_kv_heads", H)
    group = H // Hkv
    B, Nq, Nk = len(q), len(q[0]), len(k[0])
    Pqk, Pv = len(c["w_q"]) // H, len(c["w_v"]) // Hkv

    def linear(x, w, b):
        return [[[sum(xi * wi for xi, wi in zip(row, w[o])) + (b[o] if b else 0.0)
                  for o in range(len(w))] for row in xb] for xb in x]

    def heads(x, h, p):
        return [[[row[i * p:(i + 1) * p] for row in xb] for i in range(h)] for xb in x]

    def rotate(x, pos):
        r = c.get("rotary_dim", len(x))
        half = r // 2
        out = list(x)  # features from r on pass unchanged
        for i in range(half):
            angle = pos * c["rope_theta"] ** (-2 * i / r)
            z = complex(x[i], x[i + half]) * cmath.exp(1j * angle)
            out[i], out[i + half] = z.real, z.imag
        return out

    def normed(rows, gains):
        """Rows of one token, RMS-normalised together: [row] for a head, every head's for the
        whole projection."""
        eps = c.get("qk_norm_eps", 1e-6)
        offset = 1.0 if c.get("qk_norm_unit_offset") else 0.0
        flat = [x for row in rows for x in row]
        root = math.sqrt(sum(x * x for x in flat) / len(flat) + eps)
        out, k = [], 0
        for row in rows:
            out.append([x / root * (gains[(k + p) % len(gains)] + offset)
                        for p, x in enumerate(row)])
            k += len(row)
        return out

    def pos_of(name, b, n):
        return int(c[name][b][n]) if name in c else n

    def allowed(b, i, j):
        if c.get("causal") and j > i:
            return False
        if "sliding_window" in c and i - j >= c["sliding_window"]:
            return False
        if "valid_lens" in c:
            lens = c["valid_lens"]
            if j >= (lens[b] if lens.ndim == 1 else lens[b][i]):
                return False
        if "mask" in c:
            m = c["mask"]
            return bool(m[i][j] if m.ndim == 2 else m[b][i][j])
        return True

    t = {}
    t["q_proj"] = linear(q, f("w_q"), f("b_q"))
    t["k_proj"] = linear(k, f("w_k"), f("b_k"))
    t["v_proj"] = linear(v, f("w_v"), f("b_v"))
    t["q_heads"], t["k_heads"] = heads(t["q_proj"], H, Pqk), heads(t["k_proj"], Hkv, Pqk)
    t["v_heads"] = heads(t["v_proj"], Hkv, Pv)
    qs, ks = t["q_heads"], t["k_heads"]
    if "qk_norm" in c:
        whole = c["qk_norm"] == "whole_projection"

        def norm_heads(x, gains, heads):
            out = [[[None] * len(x[b][0]) for _ in range(heads)] for b in range(len(x))]
            for b in range(len(x)):
                for n in range(len(x[b][0])):
                    groups = [[x[b][h][n] for h in range(heads)]] if whole else \
                        [[x[b][h][n]] for h in range(heads)]
                    done = [normed(g, gains) for g in groups]
                    rows = done[0] if whole else [g[0] for g in done]
                    for h in range(heads):
                        out[b][h][n] = rows[h]
            return out
        qs = norm_heads(qs, f("q_norm"), H)
        ks = norm_heads(ks, f("k_norm"), Hkv)
        t["q_normed"], t["k_normed"] = qs, ks
    if "rope_theta" in c:
        qs = [[[rotate(qs[b][h][n], pos_of("query_positions", b, n)) for n in range(Nq)]
               for h in range(H)] for b in range(B)]
        ks = [[[rotate(ks[b][h][n], pos_of("key_positions", b, n)) for n in range(Nk)]
               for h in range(Hkv)] for b in range(B)]
        t["q_rotated"], t["k_rotated"] = qs, ks
    shape4 = lambda fill: [[[[fill(b, h, i, j) for j in range(Nk)] for i in range(Nq)]  # noqa: E731
                            for h in range(H)] for b in range(B)]
    t["scores"] = shape4(lambda b, h, i, j: sum(
        x * y for x, y in zip(qs[b][h][i], ks[b][h // group][j])))
    scale = c.get("score_scale", 1 / math.sqrt(Pqk))
    t["scaled"] = shape4(lambda b, h, i, j: t["scores"][b][h][i][j] * scale)
    before = t["scaled"]
    if "attn_logit_softcapping" in c:
        cap = c["attn_logit_softcapping"]
        t["capped"] = shape4(lambda b, h, i, j: cap * math.tanh(before[b][h][i][j] / cap))
        before = t["capped"]
    if "alibi_slopes" in c:
        slopes = f("alibi_slopes")
        scaled_before = before
        t["biased"] = shape4(lambda b, h, i, j: scaled_before[b][h][i][j] - slopes[h] * (
            pos_of("query_positions", b, i) - pos_of("key_positions", b, j)))
        before = t["biased"]
    t["masked"] = shape4(lambda b, h, i, j: before[b][h][i][j] if allowed(b, i, j)
                         else -math.inf)
    weights, sink_weights = [], []
    sinks = f("sinks")
    for b in range(B):
        weights.append([])
        sink_weights.append([])
        for h in range(H):
            weights[b].append([])
            sink_weights[b].append([])
            for i in range(Nq):
                row = t["masked"][b][h][i]
                # the sink is one more logit of the row, dropped after the softmax
                top = max(row + ([sinks[h]] if sinks else []))
                if top == -math.inf:  # every key blocked: the row attends to nothing
                    weights[b][h].append([0.0] * Nk)
                    continue
                e = [math.exp(x - top) for x in row]
                sink = math.exp(sinks[h] - top) if sinks else 0.0
                total = sum(e) + sink
                weights[b][h].append([x / total for x in e])
                sink_weights[b][h].append(sink / total)
    t["weights"] = weights
    if sinks:
        t["sink_weights"] = sink_weights
    t["context"] = [[[[sum(weights[b][h][i][j] * t["v_heads"][b][h // group][j][p]
                           for j in range(Nk)) for p in range(Pv)] for i in range(Nq)]
                     for h in range(H)] for b in range(B)]
    t["concat"] = [[[x for h in range(H) for x in t["context"][b][h][i]] for i in range(Nq)]
                   for b in range(B)]
    t["output"] = linear(t["concat"], f("w_o"), f("b_o"))
    return {name: np.array(value, dtype=np.float64) for name, value in t.items()}


def check_against_loops(c, trace):
    """Asserts that trace_with_loops gives every step of the trace, -inf where it has -inf."""
    loops = trace_with_loops(c)
    assert list(loops) == list(trace), f"steps differ: {list(loops)} vs {list(trace)}"
    for name, ops in trace.items():
        a, b = ops.numpy(), loops[name]
        assert a.shape == b.shape, f"{name}: shape {a.shape} vs {b.shape}"
        assert np.array_equal(np.isinf(a), np.isinf(b)), f"{name}: -inf in other places"
        finite = np.isfinite(a)
        assert np.abs(a[finite] - b[finite]).max(initial=0.0) <= 1e-10, f"{name} differs"


def repeated_kv_heads(c):
    """The plain multi-head case equal to a grouped one: every K/V head's rows of w_k, b_k, w_v
    and b_v repeated for the query heads of its group, num_kv_heads dropped."""
    H, Hkv = c["num_heads"], c["num_kv_heads"]
    m = {k: v for k, v in c.items() if k != "num_kv_heads"}
    names = ("w_k", "b_k", "w_v", "b_v")
    if c.get("qk_norm") == "whole_projection":
        names += ("k_norm",)  # the gain of each K/V head's features goes with the head
    for name in names:
        if name in c:
            rows = c[name].reshape(Hkv, -1, *c[name].shape[1:])
            m[name] = np.repeat(rows, H // Hkv, axis=0).reshape(-1, *c[name].shape[1:])
    return m


def check_grouped(c, trace, blocked):
    """A grouped case must give the same attention as its plain multi-head twin; without rotary
    positions the twin is what nn.MultiheadAttention computes."""
    twin = repeated_kv_heads(c)
    twin_trace, twin_blocked = trace_with_ops(twin)
    assert torch.equal(blocked, twin_blocked)
    group = c["num_heads"] // c["num_kv_heads"]
    for name in ("k_heads", "v_heads") + (("k_normed",) if "qk_norm" in c else ()) + \
            (("k_rotated",) if "rope_theta" in c else ()):
        assert torch.allclose(trace[name].repeat_interleave(group, dim=1), twin_trace[name],
                              rtol=0, atol=1e-12), f"{name}: not the twin's, one per group"
    for name in ("q_heads", "scores", "weights", "context", "concat", "output"):
        assert torch.allclose(trace[name], twin_trace[name], rtol=0, atol=1e-12), \
            f"{name} differs from the plain multi-head twin"
    if not any(k in c for k in ("rope_theta",) + TREATMENTS) and module_shaped(twin):
        check_against_module(twin, twin_trace, twin_blocked)


def module_shaped(c):
    """Whether nn.MultiheadAttention has these sizes: heads of E / H features, output E wide."""
    E, H = c["query"].shape[-1], c["num_heads"]
    return c["w_q"].shape[0] == c["w_v"].shape[0] == c["w_o"].shape[0] == E and E % H == 0


def run_module(c, blocked, dtype):
    """torch.nn.MultiheadAttention on the case in `dtype`: (output, per-head weights)."""
    q, k, v = (torch.from_numpy(c[n]).to(dtype) for n in ("query", "key", "value"))
    H = c["num_heads"]
    E, Dk, Dv = q.shape[-1], k.shape[-1], v.shape[-1]
    bias = "b_q" in c
    m = torch.nn.MultiheadAttention(E, H, bias=bias, batch_first=True, kdim=Dk, vdim=Dv)
    m = m.to(dtype).eval()
    t = lambda *names: torch.from_numpy(np.concatenate([c[n] for n in names])).to(dtype)  # noqa
    with torch.no_grad():
        if m._qkv_same_embed_dim:
            m.in_proj_weight.copy_(t("w_q", "w_k", "w_v"))
        else:
            m.q_proj_weight.copy_(t("w_q"))
            m.k_proj_weight.copy_(t("w_k"))
            m.v_proj_weight.copy_(t("w_v"))
        if bias:
            m.in_proj_bias.copy_(t("b_q", "b_k", "b_v"))
            m.out_proj.bias.copy_(t("b_o"))
        m.out_proj.weight.copy_(t("w_o"))
        attn_mask = blocked.repeat_interleave(H, dim=0) if blocked.any() else None
        return m(q, k, v, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)


def check_against_module(c, trace, blocked):
    """Runs torch.nn.MultiheadAttention on the case and compares output and weights."""
    out, w = run_module(c, blocked, torch.float64)
    live = ~blocked.all(dim=-1)  # rows that attend to something; PyTorch gives NaN elsewhere
    assert torch.allclose(out[live], trace["output"][live], atol=1e-10), "output differs"
    assert torch.allclose(w.permute(0, 2, 1, 3)[live], trace["weights"].permute(0, 2, 1, 3)[live],
                          atol=1e-10), "weights differ"


def largest_error(actual, reference, live=None):
    """max |actual - reference| over the reference's finite entries (of the live query rows)."""
    a, r = actual.double(), reference
    keep = torch.isfinite(r)
    if live is not None:
        keep &= live
    return float((a - r).abs()[keep].max()) if keep.any() else 0.0


def float32_errors(c, trace, blocked, expressible):
    """PyTorch's own error at float32 on the case, step by step, against the float64 trace:
    "ops" is the trace's operations run in float32; "module" is nn.MultiheadAttention in float32
    (output and weights, rows that attend to something), where it can take the case."""
    trace32, _ = trace_with_ops(c, torch.float32)
    errors = {step: {"ops": largest_error(trace32[step], trace[step])} for step in trace}
    if expressible:
        out, w = run_module(c, blocked, torch.float32)
        live = ~blocked.all(dim=-1)  # [B, Nq]
        errors["output"]["module"] = largest_error(out, trace["output"], live[..., None])
        errors["weights"]["module"] = largest_error(w, trace["weights"], live[:, None, :, None])
    return errors


def make_case(seed, B, Nq, Nk, Dq, Dk, Dv, H, Pqk, Pv, Po, bias=True, scale=1.0, kv_heads=None):
    """kv_heads: grouped-query attention with that many K/V heads (None: as many as H, and no
    num_kv_heads entry, so the original cases draw the same numbers as ever)."""
    Hkv = H if kv_heads is None else kv_heads
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape, s=1.0: (torch.randn(*shape, generator=g) * s).float().numpy()  # noqa
    c = {
        "query": r(B, Nq, Dq, s=scale),
        "key": r(B, Nk, Dk, s=scale),
        "value": r(B, Nk, Dv),
        "w_q": r(H * Pqk, Dq, s=1 / math.sqrt(Dq)),
        "w_k": r(Hkv * Pqk, Dk, s=1 / math.sqrt(Dk)),
        "w_v": r(Hkv * Pv, Dv, s=1 / math.sqrt(Dv)),
        "w_o": r(Po, H * Pv, s=1 / math.sqrt(H * Pv)),
        "num_heads": H,
    }
    if bias:
        c.update(b_q=r(H * Pqk, s=0.1), b_k=r(Hkv * Pqk, s=0.1), b_v=r(Hkv * Pv, s=0.1),
                 b_o=r(Po, s=0.1))
    if kv_heads is not None:
        c["num_kv_heads"] = kv_heads
    return c


def self_case(seed, B, N, D, H, **kw):
    return make_case(seed, B, N, N, D, D, D, H, D // H, D // H, D, **kw)


def self_attention(c):
    """Self-attention is query = key = value."""
    c["key"] = c["query"]
    c["value"] = c["query"]
    return c


def d2l_example():
    """D2L 10.3's example: 100 hidden units, 5 heads, batch 2, 4 queries, 6 key-value pairs,
    inputs of ones, no bias, valid lengths [3, 2] -> output (2, 4, 100)."""
    c = make_case(18, 2, 4, 6, 100, 100, 100, 5, 20, 20, 100, bias=False)
    c["query"] = np.ones((2, 4, 100), np.float32)
    c["key"] = np.ones((2, 6, 100), np.float32)
    c["value"] = np.ones((2, 6, 100), np.float32)
    c["valid_lens"] = np.array([3, 2], np.int64)
    return c


def cases():
    """(name, description, case, expressible by nn.MultiheadAttention)"""
    yield "self_attention", "self-attention, B=1, N=5, D=16, H=4", \
        self_attention(self_case(1, 1, 5, 16, 4)), True
    yield "cross_attention", "cross-attention, Nq=4, Nk=7, Dq=12, Dk=10, Dv=6, H=2", \
        make_case(2, 1, 4, 7, 12, 10, 6, 2, 6, 6, 12), True
    yield "batched", "B=3 self-attention, N=6, D=16, H=4", \
        self_attention(self_case(3, 3, 6, 16, 4)), True
    c = self_case(4, 2, 6, 16, 4)
    c["causal"] = True
    yield "causal", "causal mask, B=2, N=6", c, True
    c = make_case(5, 2, 4, 6, 16, 16, 16, 4, 4, 4, 16)
    c["valid_lens"] = np.array([3, 5], np.int32)
    yield "valid_lens_per_batch", "valid lengths [B] = [3, 5] (I32)", c, True
    c = make_case(6, 2, 4, 6, 16, 16, 16, 4, 4, 4, 16)
    c["valid_lens"] = np.array([[1, 2, 3, 4], [6, 5, 4, 3]], np.int64)
    yield "valid_lens_per_query", "valid lengths [B, Nq] (I64)", c, True
    c = make_case(7, 2, 5, 6, 16, 16, 16, 4, 4, 4, 16)
    c["mask"] = (torch.rand(5, 6, generator=torch.Generator().manual_seed(70)) > 0.4).numpy()
    c["mask"][:, 0] = True
    yield "mask_shared", "explicit BOOL mask [Nq, Nk]", c, True
    c = make_case(8, 2, 5, 6, 16, 16, 16, 4, 4, 4, 16)
    m = (torch.rand(2, 5, 6, generator=torch.Generator().manual_seed(80)) > 0.4).numpy()
    m[:, :, 0] = True
    c["mask"] = m.astype(np.uint8)
    yield "mask_per_batch", "explicit U8 mask [B, Nq, Nk]", c, True
    c = self_case(9, 2, 6, 16, 4)
    c["causal"] = True
    c["valid_lens"] = np.array([4, 6], np.int64)
    m = np.ones((6, 6), np.uint8)
    m[3, 1] = 0
    m[5, 2:4] = 0
    c["mask"] = m
    yield "combined_masks", "causal + valid lengths + explicit mask", c, True
    yield "no_bias", "no bias on any projection", \
        self_attention(self_case(10, 2, 5, 16, 4, bias=False)), True
    yield "single_head", "H=1", self_attention(self_case(11, 1, 5, 8, 1)), True
    yield "head_size_one", "head size 1: D=4, H=4", \
        self_attention(self_case(12, 2, 5, 4, 4)), True
    yield "pqk_ne_pv", "Pqk=3 differs from Pv=5, Po=7, H=2", \
        make_case(13, 2, 4, 5, 8, 6, 9, 2, 3, 5, 7), False
    yield "po_ne_hpv", "Po=11 differs from H*Pv=8", \
        make_case(14, 1, 3, 4, 6, 6, 6, 2, 4, 4, 11), False
    c = make_case(15, 2, 4, 5, 8, 8, 8, 2, 4, 4, 8)
    c["valid_lens"] = np.array([[2, 0, 3, 5], [0, 1, 0, 4]], np.int64)
    yield "fully_masked_rows", "valid length 0 blocks whole query rows", c, True
    yield "large_logits", "inputs x30: scaled scores in the hundreds, softmax must not overflow", \
        self_attention(self_case(16, 1, 6, 16, 2, scale=30.0)), True
    yield "large_128", "128 tokens, 256 wide, 8 heads", \
        self_attention(self_case(17, 1, 128, 256, 8)), True
    yield "d2l_example", "D2L 10.3: 100 hidden, 5 heads, B=2, 4 queries, 6 pairs, valid [3, 2]", \
        d2l_example(), True
    yield from variant_cases()


def with_settings(c, **settings):
    """The case with module settings added (causal, rope_theta, sliding_window)."""
    c.update(settings)
    return c


def variant_cases():
    """Grouped-query attention, rotary positions and sliding windows: cases nn.MultiheadAttention
    cannot take as they stand, after the original ones so that those keep their seeds."""
    yield "gqa", "grouped-query attention: H=8 query heads share H_kv=2 K/V heads, B=2, N=5, " \
        "D=32", \
        self_attention(self_case(19, 2, 5, 32, 8, kv_heads=2)), False
    yield "mqa", "multi-query attention: H=4 query heads share one K/V head, causal, N=6, D=16", \
        with_settings(self_attention(self_case(20, 1, 6, 16, 4, kv_heads=1)), causal=True), False
    yield "gqa_cross", "grouped cross-attention: H=6, H_kv=3, Nq=4, Nk=6, Dq=12, Dk=10, Dv=7, " \
        "Pqk=4, Pv=3, Po=9", make_case(21, 1, 4, 6, 12, 10, 7, 6, 4, 3, 9, kv_heads=3), False
    yield "rope", "rotary positions (theta 10000), causal self-attention, H=4, Pqk=8, N=6", \
        with_settings(self_attention(self_case(22, 1, 6, 32, 4)), causal=True,
                      rope_theta=10000.0), False
    yield "rope_positions", "rotary positions from a KV cache: queries at [5,6,7] and [3,4,5] " \
        "(I64 query_positions), 8 keys at 0..7, mask blocks keys after the query", \
        rope_positions(), False
    c = with_settings(self_attention(self_case(24, 2, 6, 16, 2)), rope_theta=100.0)
    c["valid_lens"] = np.array([4, 6], np.int32)
    # key_positions alone: the queries count from 0, batch item 1's keys from 2
    c["key_positions"] = np.array([[0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6, 7]], np.int32)
    yield "rope_theta_small", "rotary positions, theta 100, valid lengths [4, 6], " \
        "I32 key_positions alone (batch 1's keys shifted by 2)", c, False
    yield "rope_gqa", "Llama-like: rotary positions + H=4, H_kv=2 + causal, no bias, N=7, D=32", \
        with_settings(self_attention(self_case(25, 1, 7, 32, 4, bias=False, kv_heads=2)),
                      causal=True, rope_theta=10000.0), False
    yield "sliding_window", "causal sliding window W=3, N=7, H=2", \
        with_settings(self_attention(self_case(26, 1, 7, 16, 2)), causal=True,
                      sliding_window=3), False
    yield "sliding_window_one", "sliding window W=1: each query sees only itself, N=5", \
        with_settings(self_attention(self_case(27, 1, 5, 8, 2)), causal=True,
                      sliding_window=1), False
    yield "sliding_window_wide", "sliding window W=10 wider than N=6: the causal mask, B=2", \
        with_settings(self_attention(self_case(28, 2, 6, 16, 4)), causal=True,
                      sliding_window=10), False
    c = with_settings(self_attention(self_case(29, 2, 9, 32, 4, bias=False, kv_heads=2)),
                      causal=True, rope_theta=10000.0, sliding_window=4)
    # batch item 1 holds 5 tokens: its last query's window (keys 5..8) is all padding
    c["valid_lens"] = np.array([9, 5], np.int64)
    yield "mistral_like", "Mistral-like: rotary positions + H=4, H_kv=2 + sliding window 4 + " \
        "causal, B=2, N=9, valid lengths [9, 5]", c, False
    yield from treatment_cases()


def gains(seed, n, around=1.0):
    """A learned norm gain of n values near `around` (1 for w, 0 for Gemma's 1 + w)."""
    g = torch.Generator().manual_seed(seed)
    return (around + 0.3 * torch.randn(n, generator=g)).float().numpy()


def treatment_cases():
    """The treatments of 2025-26 models (issue #44), each as its family computes it, alone and
    combined with grouped K/V heads, rotary positions, windows and batches."""
    # Qwen3: head_dim independent of the width (24 wide, 4 query heads of 8 = 32), RMSNorm of
    # each head's q and k (one gain shared by the heads) before rotary positions, 2 K/V heads.
    c = with_settings(self_attention(make_case(30, 1, 7, 7, 24, 24, 24, 4, 8, 8, 24, bias=False,
                                               kv_heads=2)),
                      causal=True, rope_theta=1000000.0, qk_norm="per_head")
    c["q_norm"], c["k_norm"] = gains(300, 8), gains(301, 8)
    yield "qk_norm_per_head", "Qwen3-like: QK-norm per head before RoPE, H=4, H_kv=2, " \
        "head_dim 8 with width 24, causal, N=7", c, False
    # OLMo 2: the whole projection normalised before the split, gains of H*P and H_kv*P.
    c = with_settings(self_attention(make_case(31, 2, 6, 6, 16, 16, 16, 4, 4, 4, 16, bias=False,
                                               kv_heads=2)),
                      causal=True, rope_theta=500000.0, qk_norm="whole_projection",
                      qk_norm_eps=1e-5)
    c["q_norm"], c["k_norm"] = gains(310, 16), gains(311, 8)
    yield "qk_norm_whole_projection", "OLMo 2-like: QK-norm of the whole projection (eps " \
        "1e-5) before the split, H=4, H_kv=2, RoPE, causal, B=2, N=6", c, False
    # Gemma 3: QK-norm per head with the gain 1 + w, scores multiplied by
    # query_pre_attn_scalar^-1/2 (256 for a head of 16 here), a sliding window.
    c = with_settings(self_attention(make_case(32, 1, 8, 8, 32, 32, 32, 2, 16, 16, 32, bias=False,
                                               kv_heads=1)),
                      causal=True, rope_theta=10000.0, qk_norm="per_head",
                      qk_norm_unit_offset=True, score_scale=256 ** -0.5, sliding_window=4)
    c["q_norm"], c["k_norm"] = gains(320, 16, 0.0), gains(321, 16, 0.0)
    yield "qk_norm_gemma", "Gemma 3-like: QK-norm per head with (1 + w), score_scale " \
        "256^-0.5, sliding window 4, H=2, H_kv=1, N=8", c, False
    # Gemma 2: soft-capping at 50 after the scale; inputs x25 so that scores reach the cap.
    c = with_settings(self_attention(make_case(33, 1, 6, 6, 16, 16, 16, 4, 4, 4, 16,
                                               scale=25.0, kv_heads=2)),
                      causal=True, rope_theta=10000.0, score_scale=0.125,
                      attn_logit_softcapping=50.0)
    yield "softcap", "Gemma 2-like: scores x 0.125 then capped at 50 (inputs x25: many reach " \
        "the cap), H=4, H_kv=2, RoPE, causal, N=6", c, False
    c = make_case(34, 2, 4, 6, 12, 12, 12, 3, 4, 4, 12, scale=3.0)
    c["attn_logit_softcapping"] = 1.5
    c["valid_lens"] = np.array([[2, 0, 6, 4], [6, 5, 0, 1]], np.int64)
    yield "softcap_small", "soft-capping at 1.5 with valid lengths that block whole rows, " \
        "cross-attention, B=2", c, False
    # gpt-oss: a learned sink per head, with a window and grouped heads.
    c = with_settings(self_attention(make_case(35, 1, 8, 8, 16, 16, 16, 4, 4, 4, 16,
                                               kv_heads=2)),
                      causal=True, rope_theta=150000.0, sliding_window=3)
    c["sinks"] = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    yield "sinks", "gpt-oss-like: learned sinks (0.5, -1, 2, 0), H=4, H_kv=2, RoPE, sliding " \
        "window 3, N=8", c, False
    c = make_case(36, 2, 4, 5, 8, 8, 8, 2, 4, 4, 8)
    c["valid_lens"] = np.array([[2, 0, 3, 5], [0, 1, 0, 4]], np.int64)
    c["sinks"] = np.array([1.0, -3.0], np.float32)
    yield "sinks_fully_masked", "learned sinks on fully blocked rows: the sink takes all the " \
        "weight, B=2", c, False
    # Phi-3 / Qwen3-Next: rotary positions on the first 4 of each head's 8 features.
    c = with_settings(self_attention(make_case(37, 2, 6, 6, 32, 32, 32, 4, 8, 8, 32, kv_heads=2)),
                      causal=True, rope_theta=10000.0, rotary_dim=4)
    c["query_positions"] = np.array([[0, 1, 2, 3, 4, 5], [10, 11, 12, 13, 14, 15]], np.int64)
    c["key_positions"] = c["query_positions"].copy()
    yield "rope_partial", "Phi-3-like: rotary_dim 4 of head 8, H=4, H_kv=2, causal, B=2, " \
        "batch 1 at positions 10..15", c, False
    # BLOOM: ALiBi's geometric slopes, no other position.
    c = with_settings(self_attention(self_case(38, 2, 7, 16, 4)), causal=True)
    c["alibi_slopes"] = np.array([2 ** (-2 * (h + 1)) for h in range(4)], np.float32)
    c["valid_lens"] = np.array([7, 5], np.int64)
    yield "alibi", "BLOOM-like: ALiBi slopes 2^-2, 2^-4, 2^-6, 2^-8, causal, valid lengths " \
        "[7, 5], B=2, N=7", c, False
    # Everything at once.
    c = with_settings(self_attention(make_case(39, 2, 9, 9, 24, 24, 24, 6, 8, 4, 20, kv_heads=3)),
                      causal=True, rope_theta=10000.0, rotary_dim=6, qk_norm="per_head",
                      qk_norm_unit_offset=True, score_scale=0.3, attn_logit_softcapping=4.0,
                      sliding_window=5)
    c["q_norm"], c["k_norm"] = gains(390, 8, 0.0), gains(391, 8, 0.0)
    c["sinks"] = np.array([0.0, 1.0, -1.0, 2.0, -2.0, 0.5], np.float32)
    c["valid_lens"] = np.array([9, 6], np.int64)
    yield "treatments_combined", "QK-norm (1 + w) + rotary_dim 6 of 8 + score_scale 0.3 + cap " \
        "4 + sinks + H=6, H_kv=3 + window 5 + causal, B=2, N=9, Pv=4, Po=20", c, False


def rope_positions():
    """Decoding with a KV cache: the last three tokens query the eight cached ones, so their
    positions continue the cache's instead of starting at 0. Batch item 1's prompt is two tokens
    shorter, its last two cache slots empty. Hugging Face's causal mask then compares positions,
    not indices: an explicit mask says the same here."""
    c = with_settings(make_case(23, 2, 3, 8, 16, 16, 16, 4, 4, 4, 16), rope_theta=10000.0)
    qpos = np.array([[5, 6, 7], [3, 4, 5]], np.int64)
    c["mask"] = (np.arange(8)[None, None, :] <= qpos[:, :, None]).astype(np.uint8)
    c["query_positions"] = qpos
    return c


def setting_text(value):
    """A variant's metadata value: "2", "10000", "0.5", "per_head", "true"."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def check_variant(name, c, trace, blocked):
    """The second derivations of a case with a variant (module docstring)."""
    check_against_loops(c, trace)
    if "num_kv_heads" in c:
        check_grouped(c, trace, blocked)
    elif not any(k in c for k in ("rope_theta",) + TREATMENTS) and module_shaped(c):
        # a sliding window is a mask, which the module takes as one
        check_against_module(c, trace, blocked)
    if "sliding_window" in c and c["sliding_window"] >= c["query"].shape[1]:
        # a window that reaches back past the first token changes nothing: plain causal
        causal = {k: v for k, v in c.items() if k != "sliding_window"}
        plain, plain_blocked = trace_with_ops(causal)
        assert torch.equal(blocked, plain_blocked), f"{name}: not the causal mask"
        assert torch.equal(trace["weights"], plain["weights"]), f"{name}: not causal weights"


def check_plain_is_grouped_with_every_head():
    """num_kv_heads = num_heads is the original multi-head attention: stating it changes no
    number of a plain case's trace (causal + valid lengths + mask; cross-attention, Pqk != Pv)."""
    for name, _, c, _ in cases():
        if name not in ("combined_masks", "pqk_ne_pv"):
            continue
        plain, _ = trace_with_ops(c)
        grouped, _ = trace_with_ops(dict(c, num_kv_heads=c["num_heads"]))
        assert list(plain) == list(grouped)
        for step in plain:
            assert torch.equal(plain[step], grouped[step]), f"{step} changes with H_kv = H"
        check_against_loops(dict(c, num_kv_heads=c["num_heads"]), plain)


def save_case(path, c, description):
    """Writes the case in attnviz-cli's case format (docs/case-format.md)."""
    tensors = {k: v for k, v in c.items() if k not in SETTINGS}
    metadata = {"num_heads": c["num_heads"],
                "causal": "true" if c.get("causal") else "false",
                "description": description}
    metadata.update({k: setting_text(c[k]) for k in VARIANT_SETTINGS if k in c})
    safetensors_py.save(path, tensors, metadata)


def main():
    torch.manual_seed(0)
    OUT.mkdir(parents=True, exist_ok=True)
    listing = []
    errors = {}
    for name, description, c, expressible in cases():
        trace, blocked = trace_with_ops(c)
        errors[name] = float32_errors(c, trace, blocked, expressible)
        if expressible:
            check_against_module(c, trace, blocked)
        variant = any(k in c for k in VARIANT_SETTINGS + VARIANT_TENSORS)
        if variant:
            check_variant(name, c, trace, blocked)
        save_case(OUT / f"{name}.case.safetensors", c, description)
        expected = {k: v.float().numpy() for k, v in trace.items()}
        rows = blocked.all(dim=-1).nonzero().tolist()
        safetensors_py.save(OUT / f"{name}.expected.safetensors", expected,
                            {"fully_masked_rows": str(rows).replace(" ", ""),
                             "checked_against_nn_multihead_attention": str(expressible).lower()})
        safetensors_py.save(OUT / f"{name}.float64.safetensors",
                            {k: v.numpy() for k, v in trace.items()})
        listing.append(f"{name}\t{description}")
        print(f"{name:22s} {'nn.MHA' if expressible else 'loops ' if variant else 'ops   '} "
              f"output {tuple(trace['output'].shape)}")
    check_plain_is_grouped_with_every_head()
    (OUT / "cases.txt").write_text("\n".join(listing) + "\n")
    (OUT / "torch_float32_error.json").write_text(json.dumps(
        {"torch": torch.__version__, "errors": errors}, indent=1) + "\n")


if __name__ == "__main__":
    main()
