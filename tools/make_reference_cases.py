#!/usr/bin/python3
"""Generates the PyTorch reference cases for the multi-head attention engine.

Run with Debian's torch:  /usr/bin/python3 tools/make_reference_cases.py
Writes tests/data/mha/<name>.case.safetensors (inputs, weights, mask: the attnviz-cli mha case
format) and <name>.expected.safetensors (every trace step), plus cases.txt listing them.

The trace is computed with torch operations in float64 and stored as float32. Wherever
torch.nn.MultiheadAttention can express a case, the script also runs the module on the same
weights and asserts that its output and per-head weights equal the traced ones, so the step-by-step
trace is tied to PyTorch's own implementation. Rows whose keys are all blocked get zero weights
and a zero context (PyTorch gives NaN there; AttnViz's convention is documented in
docs/conventions.md).
"""
import math
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "mha"


def blocked_mask(B, Nq, Nk, causal, valid_lens, mask):
    """[B, Nq, Nk] bool, True where the key is blocked (AttnViz semantics)."""
    blocked = torch.zeros(B, Nq, Nk, dtype=torch.bool)
    j = torch.arange(Nk)
    if causal:
        blocked |= j[None, None, :] > torch.arange(Nq)[None, :, None]
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


def trace_with_ops(c):
    """The full trace in float64 from plain torch operations."""
    d = lambda name: torch.from_numpy(c[name]).double() if name in c else None  # noqa: E731
    q, k, v = d("query"), d("key"), d("value")
    H = c["num_heads"]
    B, Nq, _ = q.shape
    Nk = k.shape[1]

    def linear(x, w, b):
        y = x @ w.T
        return y if b is None else y + b

    q_proj = linear(q, d("w_q"), d("b_q"))
    k_proj = linear(k, d("w_k"), d("b_k"))
    v_proj = linear(v, d("w_v"), d("b_v"))
    Pqk = q_proj.shape[-1] // H
    Pv = v_proj.shape[-1] // H
    split = lambda x, p: x.reshape(B, x.shape[1], H, p).permute(0, 2, 1, 3).contiguous()  # noqa
    q_heads, k_heads, v_heads = split(q_proj, Pqk), split(k_proj, Pqk), split(v_proj, Pv)
    scores = q_heads @ k_heads.transpose(-1, -2)
    scaled = scores / math.sqrt(Pqk)
    valid = torch.from_numpy(c["valid_lens"]) if "valid_lens" in c else None
    mask = torch.from_numpy(c["mask"]) if "mask" in c else None
    blocked = blocked_mask(B, Nq, Nk, c.get("causal", False), valid, mask)
    masked = scaled.masked_fill(blocked[:, None], float("-inf"))
    weights = torch.softmax(masked, dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)  # fully blocked rows attend to nothing
    context = weights @ v_heads
    concat = context.permute(0, 2, 1, 3).reshape(B, Nq, H * Pv)
    output = linear(concat, d("w_o"), d("b_o"))
    trace = dict(q_proj=q_proj, k_proj=k_proj, v_proj=v_proj, q_heads=q_heads, k_heads=k_heads,
                 v_heads=v_heads, scores=scores, scaled=scaled, masked=masked, weights=weights,
                 context=context, concat=concat, output=output)
    return trace, blocked


def check_against_module(c, trace, blocked):
    """Runs torch.nn.MultiheadAttention on the case and compares output and weights."""
    q, k, v = (torch.from_numpy(c[n]).double() for n in ("query", "key", "value"))
    H = c["num_heads"]
    E, Dk, Dv = q.shape[-1], k.shape[-1], v.shape[-1]
    bias = "b_q" in c
    m = torch.nn.MultiheadAttention(E, H, bias=bias, batch_first=True, kdim=Dk, vdim=Dv)
    m = m.double().eval()
    with torch.no_grad():
        if m._qkv_same_embed_dim:
            m.in_proj_weight.copy_(torch.from_numpy(
                np.concatenate([c["w_q"], c["w_k"], c["w_v"]])).double())
        else:
            m.q_proj_weight.copy_(torch.from_numpy(c["w_q"]).double())
            m.k_proj_weight.copy_(torch.from_numpy(c["w_k"]).double())
            m.v_proj_weight.copy_(torch.from_numpy(c["w_v"]).double())
        if bias:
            m.in_proj_bias.copy_(torch.from_numpy(
                np.concatenate([c["b_q"], c["b_k"], c["b_v"]])).double())
            m.out_proj.bias.copy_(torch.from_numpy(c["b_o"]).double())
        m.out_proj.weight.copy_(torch.from_numpy(c["w_o"]).double())
        attn_mask = blocked.repeat_interleave(H, dim=0) if blocked.any() else None
        out, w = m(q, k, v, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
    live = ~blocked.all(dim=-1)  # rows that attend to something; PyTorch gives NaN elsewhere
    assert torch.allclose(out[live], trace["output"][live], atol=1e-10), "output differs"
    assert torch.allclose(w.permute(0, 2, 1, 3)[live], trace["weights"].permute(0, 2, 1, 3)[live],
                          atol=1e-10), "weights differ"


def make_case(seed, B, Nq, Nk, Dq, Dk, Dv, H, Pqk, Pv, Po, bias=True, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    r = lambda *shape, s=1.0: (torch.randn(*shape, generator=g) * s).float().numpy()  # noqa
    c = {
        "query": r(B, Nq, Dq, s=scale),
        "key": r(B, Nk, Dk, s=scale),
        "value": r(B, Nk, Dv),
        "w_q": r(H * Pqk, Dq, s=1 / math.sqrt(Dq)),
        "w_k": r(H * Pqk, Dk, s=1 / math.sqrt(Dk)),
        "w_v": r(H * Pv, Dv, s=1 / math.sqrt(Dv)),
        "w_o": r(Po, H * Pv, s=1 / math.sqrt(H * Pv)),
        "num_heads": H,
    }
    if bias:
        c.update(b_q=r(H * Pqk, s=0.1), b_k=r(H * Pqk, s=0.1), b_v=r(H * Pv, s=0.1),
                 b_o=r(Po, s=0.1))
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


def main():
    torch.manual_seed(0)
    OUT.mkdir(parents=True, exist_ok=True)
    listing = []
    for name, description, c, expressible in cases():
        trace, blocked = trace_with_ops(c)
        if expressible:
            check_against_module(c, trace, blocked)
        tensors = {k: v for k, v in c.items() if k not in ("num_heads", "causal")}
        metadata = {"num_heads": c["num_heads"],
                    "causal": "true" if c.get("causal") else "false",
                    "description": description}
        safetensors_py.save(OUT / f"{name}.case.safetensors", tensors, metadata)
        expected = {k: v.float().numpy() for k, v in trace.items()}
        rows = blocked.all(dim=-1).nonzero().tolist()
        safetensors_py.save(OUT / f"{name}.expected.safetensors", expected,
                            {"fully_masked_rows": str(rows).replace(" ", ""),
                             "checked_against_nn_multihead_attention": str(expressible).lower()})
        listing.append(f"{name}\t{description}")
        print(f"{name:22s} {'nn.MHA' if expressible else 'ops   '} output "
              f"{tuple(trace['output'].shape)}")
    (OUT / "cases.txt").write_text("\n".join(listing) + "\n")


if __name__ == "__main__":
    main()
