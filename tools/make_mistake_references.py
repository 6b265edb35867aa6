#!/usr/bin/python3
"""Reference results for the common mistakes of hand-written multi-head attention (issue #12).

Run with Debian's torch:  /usr/bin/python3 tools/make_mistake_references.py
Writes tests/data/mistakes/<case>.safetensors for the reference cases combined_masks (causal +
valid lengths + explicit mask, B=2, H=4), causal (B=2, N=6), pqk_ne_pv (no mask, d_k 3 and
d_v 5, Po 7) and fully_masked_rows (valid length 0 for some queries): for every mistake, the masked scores, the
weights, the context and the output as the mistaken PyTorch code computes them, named
"<mistake>.<step>". Each mistake is written the way it is written by hand in PyTorch (the
mistaken line is marked), in float64, stored as float32. Rows or columns with nothing left to
weigh get zero weights (PyTorch gives NaN; AttnViz's convention), except in
fully_masked_rows_as_nan, which keeps PyTorch's NaN.

Every mistake is also checked to change the output, and the correct path is checked against the
expected trace stored with the case.
"""
import math
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py as st  # noqa: E402
from make_reference_cases import blocked_mask  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "data" / "mha"
OUT = ROOT / "tests" / "data" / "mistakes"
MISTAKES = ["split_tokens", "no_scaling", "softmax_over_queries", "mask_after_softmax",
            "inverted_mask", "concat_without_transpose", "mask_discarded",
            "mask_filled_with_1e-9", "no_output_projection", "mask_filled_with_-1e9",
            "fully_masked_rows_as_nan"]
# Conventions that differ from AttnViz's only where a row has every key blocked.
FULLY_MASKED_ONLY = ("mask_filled_with_-1e9", "fully_masked_rows_as_nan")
# With no mask there is nothing to discard, fill or apply late (an inverted "no mask" blocks all).
MASK_MISTAKES_WITHOUT_EFFECT_UNMASKED = ("mask_discarded", "mask_filled_with_1e-9",
                                         "mask_after_softmax")


def forward(c, meta, mistake=None):
    d = lambda name: torch.tensor(c[name], dtype=torch.float64) if name in c else None  # noqa: E731
    H = int(meta["num_heads"])
    x_q, x_k, x_v = d("query"), d("key"), d("value")
    B, Nq, Nk = x_q.shape[0], x_q.shape[1], x_k.shape[1]

    def linear(x, w, b):
        return x @ w.T + (0 if b is None else b)

    q, k, v = (linear(x_q, d("w_q"), d("b_q")), linear(x_k, d("w_k"), d("b_k")),
               linear(x_v, d("w_v"), d("b_v")))
    dk, dv = q.shape[-1] // H, v.shape[-1] // H

    def heads(x, p):
        if mistake == "split_tokens":
            return x.reshape(B, H, x.shape[1], p)  # mistake: a view without the transpose
        return x.reshape(B, x.shape[1], H, p).transpose(1, 2)

    qh, kh, vh = heads(q, dk), heads(k, dk), heads(v, dv)
    scores = qh @ kh.transpose(-1, -2)
    scaled = scores if mistake == "no_scaling" else scores / math.sqrt(dk)  # mistake: no ÷√d_k
    valid = torch.tensor(c["valid_lens"]) if "valid_lens" in c else None
    explicit = torch.tensor(c["mask"]) if "mask" in c else None
    blocked = blocked_mask(B, Nq, Nk, meta.get("causal") == "true", valid, explicit)[:, None]
    if mistake == "inverted_mask":
        blocked = ~blocked  # mistake: 1 read as "blocked"
    if mistake == "mask_discarded":
        scaled.masked_fill(blocked, float("-inf"))  # mistake: the result is thrown away
        masked = scaled
    elif mistake == "mask_after_softmax":
        masked = scaled
    elif mistake == "mask_filled_with_1e-9":
        masked = scaled.masked_fill(blocked, 1e-9)  # mistake: 1e-9, not -1e9
    elif mistake == "mask_filled_with_-1e9":
        masked = scaled.masked_fill(blocked, -1e9)  # The Annotated Transformer's convention
    else:
        masked = scaled.masked_fill(blocked, float("-inf"))
    axis = -2 if mistake == "softmax_over_queries" else -1  # mistake: dim=-2
    weights = torch.softmax(masked, dim=axis)
    if mistake != "fully_masked_rows_as_nan":  # plain PyTorch: 0/0 stays NaN
        weights = torch.nan_to_num(weights, nan=0.0)
    if mistake == "mask_after_softmax":
        weights = weights.masked_fill(blocked, 0.0)  # mistake: masked after the softmax
    context = weights @ vh
    if mistake == "concat_without_transpose":
        concat = context.reshape(B, Nq, H * dv)  # mistake: heads not moved back first
    else:
        concat = context.transpose(1, 2).reshape(B, Nq, H * dv)
    output = concat if mistake == "no_output_projection" else linear(concat, d("w_o"), d("b_o"))
    return dict(masked=masked, weights=weights, context=context, output=output)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for case in ["combined_masks", "causal", "pqk_ne_pv", "fully_masked_rows"]:
        c, meta = st.load(CASES / f"{case}.case.safetensors")
        expected, _ = st.load(CASES / f"{case}.expected.safetensors")
        right = forward(c, meta)
        err = float((right["output"] - torch.from_numpy(expected["output"]).double()).abs().max())
        assert err < 1e-5, f"{case}: the correct path is off by {err}"
        tensors = {}
        for mistake in MISTAKES:
            wrong = forward(c, meta, mistake)
            change = float((wrong["output"][..., :right["output"].shape[-1]] -
                            right["output"][..., :wrong["output"].shape[-1]]).abs().nan_to_num(
                                nan=math.inf).max())
            unmasked = not (meta.get("causal") == "true" or "valid_lens" in c or "mask" in c)
            fully_masked = bool((right["weights"].sum(-1) == 0).any())
            harmless = (unmasked and mistake in MASK_MISTAKES_WITHOUT_EFFECT_UNMASKED) or \
                (not fully_masked and mistake in FULLY_MASKED_ONLY)
            assert change > 1e-3 or harmless, f"{case} {mistake}: no change"
            print(f"{case:16} {mistake:26} output changes by up to {change:.3f}")
            for step, value in wrong.items():
                tensors[f"{mistake}.{step}"] = value.numpy().astype(np.float32)
        st.save(OUT / f"{case}.safetensors", tensors,
                {"case": f"tests/data/mha/{case}.case.safetensors",
                 "made_by": "tools/make_mistake_references.py"})


if __name__ == "__main__":
    main()
