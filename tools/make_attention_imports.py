#!/usr/bin/python3
"""Writes the attention-import fixtures in tests/data/attentions/ (docs/attention-import.md).

Run with Debian's torch:  /usr/bin/python3 tools/make_attention_imports.py

An attention import is what the snippet in docs/attention-import.md writes: the attention weights
a model returns for `model(**inputs, output_attentions=True)`, saved with
`safetensors.torch.save_file` and the tokens in the metadata. Neither `transformers` nor the
`safetensors` package is installed here, so this script stands in for both and keeps the snippet's
own last lines unchanged:

- `TinyModel` is a random-weight transformer in float64 torch whose output has what a Hugging Face
  model output has with output_attentions=True: `.attentions`, a tuple of one [1, heads, query,
  key] tensor per layer, and for an encoder-decoder `.cross_attentions`. Masked keys get
  `finfo.min` added, as Hugging Face does, so their weight is exactly 0.
- `save_file` has safetensors.torch.save_file's signature and refuses what it refuses (metadata
  that is not str -> str, a non-contiguous tensor); it writes through tools/safetensors_py.py.

For every valid file `<name>.safetensors` the script also writes `<name>.expected.safetensors`:
`weights` F32 [layers, heads, query, key] holding exactly the numbers written (F16 and BF16 values
widened to float, F64 values rounded to float), and metadata `query_tokens`, `key_tokens` (JSON),
`model`, `causal` ("true"/"false") and `fully_masked_rows` (JSON [[layer, query], ...]). The
malformed files `bad_*.safetensors` each break one rule. README.md in the same folder lists them.

The script is deterministic: running it twice gives byte-identical files.
"""
import json
import math
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "attentions"

ROW_SUM_TOLERANCE = 0.01  # docs/attention-import.md
DTYPE_NAMES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
               torch.float64: "F64", torch.int64: "I64"}


# ---------------------------------------------------------------------------------------------
# Stand-ins for transformers and safetensors.torch


class Output:
    """What a Hugging Face model returns with output_attentions=True (the parts used here)."""

    def __init__(self, attentions, cross_attentions=None):
        self.attentions = attentions
        self.cross_attentions = cross_attentions


class TinyModel:
    """A random-weight transformer in float64: self-attention blocks (optionally causal), and for
    an encoder-decoder a cross-attention block per decoder layer. Only the attention weights
    matter here, so each block is attention plus a residual with a LayerNorm-free rescale."""

    def __init__(self, seed, layers, heads, d=16, vocab=64, causal=False, cross=False):
        g = torch.Generator().manual_seed(seed)
        self.r = lambda *s, scale=1.0: torch.randn(*s, generator=g, dtype=torch.float64) * scale
        self.heads, self.d, self.causal = heads, d, causal
        self.embedding = self.r(vocab, d)
        self.position = self.r(64, d, scale=0.5)
        block = lambda: {n: self.r(d, d, scale=2.0 / math.sqrt(d)) for n in "qkvo"}  # noqa: E731
        self.blocks = [block() for _ in range(layers)]
        self.cross_blocks = [block() for _ in range(layers)] if cross else None

    def attend(self, w, x, memory, blocked):
        """(new x, weights [1, H, Nq, Nk]); `blocked` [Nq, Nk] is True where a key is masked."""
        H, hd = self.heads, self.d // self.heads
        split = lambda t: t.reshape(t.shape[0], H, hd).permute(1, 0, 2)  # noqa: E731
        q, k, v = split(x @ w["q"].T), split(memory @ w["k"].T), split(memory @ w["v"].T)
        scores = q @ k.transpose(-1, -2) / math.sqrt(hd)
        scores = scores + blocked.double() * torch.finfo(torch.float64).min
        weights = torch.softmax(scores, dim=-1)
        context = (weights @ v).permute(1, 0, 2).reshape(x.shape[0], self.d)
        y = x + context @ w["o"].T
        return y / y.std(dim=-1, keepdim=True), weights[None]

    def __call__(self, input_ids, attention_mask=None, decoder_input_ids=None,
                 output_attentions=True):
        ids = input_ids[0]
        n = len(ids)
        x = self.embedding[ids] + self.position[:n]
        pad = torch.zeros(n, dtype=torch.bool) if attention_mask is None else attention_mask[0] == 0
        blocked = pad[None, :].expand(n, n).clone()
        if self.causal:
            blocked |= torch.ones(n, n, dtype=torch.bool).triu(1)
        attentions = []
        for w in self.blocks:
            x, a = self.attend(w, x, x, blocked)
            attentions.append(a)
        if self.cross_blocks is None:
            return Output(tuple(attentions))
        # Encoder-decoder: the decoder's queries look at the encoder's output x.
        dec = decoder_input_ids[0]
        y = self.embedding[dec] + self.position[: len(dec)]
        cross = []
        for w in self.cross_blocks:
            y, a = self.attend(w, y, x, pad[None, :].expand(len(dec), n))
            cross.append(a)
        return Output(tuple(attentions), tuple(cross))


def save_file(tensors, filename, metadata=None):
    """safetensors.torch.save_file's signature and refusals, written with safetensors_py."""
    if metadata is not None and not all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise TypeError("metadata must be Dict[str, str], as in safetensors.torch.save_file")
    arrays = {}
    for name, t in tensors.items():
        if not t.is_contiguous():
            raise ValueError(f"{name} is not contiguous; safetensors refuses it")
        if t.dtype == torch.bfloat16:
            arrays[name] = safetensors_py.BF16(t.float().numpy())
        else:
            arrays[name] = t.numpy()
    safetensors_py.save(filename, arrays, metadata)


# ---------------------------------------------------------------------------------------------
# The files


def gpt_run():
    """A decoder-only model (GPT-2-like tokens, causal): 3 layers, 4 heads, 6 tokens."""
    tokens = ["The", "Ġcat", "Ġsat", "Ġon", "Ġthe", "Ġmat"]
    model = TinyModel(seed=10, layers=3, heads=4, causal=True)
    out = model(torch.tensor([[5, 17, 23, 9, 31, 40]]), output_attentions=True)
    return out, tokens


def bert_run():
    """An encoder (BERT-like tokens, not causal) with one padded key: 2 layers, 2 heads."""
    tokens = ["[CLS]", "the", "cat", "sat", "[SEP]", "[PAD]"]
    model = TinyModel(seed=11, layers=2, heads=2)
    inputs = {"input_ids": torch.tensor([[1, 7, 17, 23, 2, 0]]),
              "attention_mask": torch.tensor([[1, 1, 1, 1, 1, 0]])}
    return model(**inputs, output_attentions=True), tokens


def t5_run():
    """An encoder-decoder: cross-attention from 3 decoder tokens to 5 encoder tokens."""
    key_tokens = ["▁The", "▁cat", "▁sat", ".", "</s>"]
    query_tokens = ["<pad>", "▁Le", "▁chat"]
    model = TinyModel(seed=12, layers=2, heads=2, cross=True)
    out = model(torch.tensor([[3, 17, 23, 4, 1]]), decoder_input_ids=torch.tensor([[0, 30, 41]]),
                output_attentions=True)
    return out, query_tokens, key_tokens


def masked_run():
    """One layer, 2 heads, 4 tokens whose row 2 has every key masked. With -inf masking (as
    torch.nn.MultiheadAttention and SDPA do) that row is NaN; the snippet's advice,
    torch.nan_to_num, turns it into the all-zero row the format allows. The tokens hold a
    newline, a tab, an accent and an emoji, which must come back unchanged."""
    g = torch.Generator().manual_seed(13)
    scores = torch.randn(1, 2, 4, 4, generator=g, dtype=torch.float64) * 2
    blocked = torch.zeros(4, 4, dtype=torch.bool)
    blocked[:, 3] = True
    blocked[2, :] = True
    a = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
    assert torch.isnan(a[0, :, 2]).all()
    return (torch.nan_to_num(a, nan=0.0),), ["café", "\n", "🙂", "\tend"]


def tokens_json(tokens):
    return json.dumps(tokens)


def as_written(t):
    """The float32 numbers a reader gets from tensor t as stored."""
    return t.float().numpy() if t.dtype != torch.float64 else t.numpy().astype(np.float32)


def check_rules(weights, causal):
    """Asserts that [L, H, Nq, Nk] float32 weights follow docs/attention-import.md."""
    assert np.isfinite(weights).all() and (weights >= 0).all()
    sums = weights.astype(np.float64).sum(axis=-1)
    ok = (np.abs(sums - 1) <= ROW_SUM_TOLERANCE) | (sums == 0)
    assert ok.all(), "a row is not a probability distribution"
    if causal:
        above = np.triu(np.ones(weights.shape[-2:], dtype=bool), 1)
        assert (weights[..., above] <= 1e-6).all(), "weight above the diagonal"


def write_valid(name, tensors, metadata, layers, query_tokens, key_tokens, about, readme):
    """Writes <name>.safetensors through the snippet's save_file and its expected twin."""
    save_file(tensors, OUT / f"{name}.safetensors", metadata=metadata)
    # Read back with the independent reader: the bytes hold what was meant.
    stored, stored_meta = safetensors_py.load(OUT / f"{name}.safetensors")
    assert stored_meta == metadata
    for k, t in tensors.items():
        native = t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
        assert stored[k].dtype == native.dtype and np.array_equal(stored[k], native), k
    weights = np.stack([as_written(t).reshape(t.shape[-3:]) for t in layers]).astype(np.float32)
    causal = metadata.get("causal", "false").lower() == "true"
    check_rules(weights, causal)
    zero_rows = (weights.astype(np.float64).sum(axis=-1) == 0).all(axis=1)  # [L, Nq]
    fully_masked = [[int(l), int(q)] for l, q in zip(*np.nonzero(zero_rows))]
    safetensors_py.save(OUT / f"{name}.expected.safetensors", {"weights": weights}, {
        "query_tokens": json.dumps(query_tokens),
        "key_tokens": json.dumps(key_tokens),
        "model": metadata.get("model", ""),
        "causal": "true" if causal else "false",
        "fully_masked_rows": json.dumps(fully_masked),
    })
    shapes = ", ".join(f"`{k}` {DTYPE_NAMES[t.dtype]} {list(t.shape)}" for k, t in tensors.items())
    readme.append(f"| `{name}` | {about} | {shapes} |")


def write_bad(name, tensors, metadata, about, readme):
    save_file(tensors, OUT / f"bad_{name}.safetensors", metadata=metadata)
    readme.append(f"| `bad_{name}` | {about} |")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.safetensors"):
        old.unlink()
    valid, bad = [], []

    # --- valid: one causal run in every layout and dtype -------------------------------------
    out, tokens = gpt_run()
    atts = out.attentions  # float64, as the stand-in computes; a float32 model gives float32
    f32 = tuple(a.float() for a in atts)
    meta = {"tokens": tokens_json(tokens), "model": "tiny-gpt", "causal": "true"}
    # The snippet's line, verbatim: one [heads, query, key] tensor per layer.
    write_valid("gpt_layers", {f"layer{i}": a[0] for i, a in enumerate(f32)}, meta, f32,
                tokens, tokens, "the snippet: `layer{i}` = `a[0]`, causal", valid)
    write_valid("gpt_layers_batch", {f"layer{i}": a for i, a in enumerate(f32)}, meta, f32,
                tokens, tokens, "`layer{i}` = `a`, keeping HF's batch axis of 1", valid)
    write_valid("gpt_stacked", {"attentions": torch.cat(f32)}, meta, f32, tokens, tokens,
                "`attentions` = `torch.cat(out.attentions)`", valid)
    write_valid("gpt_stacked_batch", {"attentions": torch.stack(f32)}, meta, f32, tokens, tokens,
                "`attentions` = `torch.stack(out.attentions)`", valid)
    f16 = tuple(a.half() for a in atts)
    write_valid("gpt_f16", {f"layer{i}": a[0] for i, a in enumerate(f16)}, meta, f16, tokens,
                tokens, "the same run stored as F16", valid)
    bf16 = tuple(a.bfloat16() for a in atts)
    write_valid("gpt_bf16", {"attentions": torch.stack(bf16)}, meta, bf16, tokens, tokens,
                "the same run stored as BF16, stacked with the batch axis", valid)
    write_valid("gpt_f64", {f"layer{i}": a for i, a in enumerate(atts)}, meta, atts, tokens,
                tokens, "the same run stored as F64 with the batch axis", valid)

    # --- valid: an encoder with padding, cross-attention, a fully masked row ------------------
    bert, bert_tokens = bert_run()
    bert32 = tuple(a.float() for a in bert.attentions)
    write_valid("bert_padded", {"attentions": torch.cat(bert32)},
                {"tokens": tokens_json(bert_tokens), "model": "tiny-bert"}, bert32, bert_tokens,
                bert_tokens, "encoder, no `causal`; the `[PAD]` key has weight 0", valid)
    t5, q_tokens, k_tokens = t5_run()
    cross32 = tuple(a.float() for a in t5.cross_attentions)
    write_valid("cross", {f"layer{i}": a[0] for i, a in enumerate(cross32)},
                {"query_tokens": tokens_json(q_tokens), "key_tokens": tokens_json(k_tokens),
                 "model": "tiny-t5"}, cross32, q_tokens, k_tokens,
                "cross-attention (`out.cross_attentions`), 3 queries × 5 keys", valid)
    masked, odd_tokens = masked_run()
    masked32 = tuple(a.float() for a in masked)
    write_valid("masked_row", {"layer0": masked32[0][0]},
                {"tokens": tokens_json(odd_tokens), "causal": str(False)}, masked32, odd_tokens,
                odd_tokens, "query 2 fully masked (zeros after `nan_to_num`); tokens with "
                "control characters and an emoji; `causal` written as Python's `str(False)`",
                valid)

    # --- malformed: each breaks one rule --------------------------------------------------------
    layers = {f"layer{i}": a[0] for i, a in enumerate(f32)}

    def with_layers(**changes):
        t = dict(layers)
        for k, v in changes.items():
            if v is None:
                del t[k]
            else:
                t[k] = v
        return t

    def with_value(layer, index, value):
        t = f32[layer][0].clone()
        t[index] = value
        return t

    write_bad("no_tensors", {}, meta, "metadata only, no tensor at all", bad)
    write_bad("unknown_tensor", with_layers(input_ids=torch.tensor([[5, 17, 23, 9, 31, 40]])), meta,
              "the three layers plus an `input_ids` tensor", bad)
    write_bad("layer_typo", {"layer_0": layers["layer0"]}, meta,
              "one tensor named `layer_0` instead of `layer0`", bad)
    write_bad("both_forms", with_layers(attentions=torch.cat(f32)), meta,
              "`layer0`…`layer2` and `attentions` together", bad)
    write_bad("gap", with_layers(layer1=None), meta, "`layer0` and `layer2`, no `layer1`", bad)
    write_bad("heads_differ", with_layers(layer1=f32[1][0, :2].contiguous()), meta,
              "`layer1` has 2 heads, the others 4", bad)
    write_bad("tokens_differ", with_layers(layer2=f32[2][0, :, :5, :5].contiguous()), meta,
              "`layer2` covers 5 tokens, the others 6", bad)
    write_bad("rank2", {"layer0": f32[0][0, 0].contiguous()}, meta,
              "`layer0` is one head's [query, key] matrix", bad)
    write_bad("stacked_rank3", {"attentions": f32[0][0].contiguous()}, meta,
              "`attentions` is one layer's [heads, query, key]", bad)
    write_bad("batch2", with_layers(layer0=torch.cat([f32[0], f32[0]])), meta,
              "`layer0` has a batch axis of 2", bad)
    write_bad("dtype", with_layers(layer0=(f32[0][0] * 1000).to(torch.int64)), meta,
              "`layer0` is I64", bad)
    write_bad("zero_heads", {"layer0": torch.zeros(0, 6, 6)}, meta, "`layer0` has 0 heads", bad)
    no_tokens = {k: v for k, v in meta.items() if k != "tokens"}
    write_bad("no_tokens", layers, no_tokens, "no `tokens` in the metadata", bad)
    write_bad("tokens_repr", layers, {**meta, "tokens": str(tokens)},
              "`tokens` written with `str(list)`: Python's repr, not JSON", bad)
    write_bad("tokens_ids", layers, {**meta, "tokens": json.dumps([5, 17, 23, 9, 31, 40])},
              "`tokens` holds ids, not strings", bad)
    write_bad("tokens_string", layers, {**meta, "tokens": json.dumps(" ".join(tokens))},
              "`tokens` is one JSON string, not an array", bad)
    write_bad("tokens_length", layers, {**meta, "tokens": tokens_json(tokens[:5])},
              "5 tokens for 6 positions", bad)
    write_bad("huge_token", layers,
              {**meta, "tokens": tokens_json(tokens[:3] + ["\x1b[31m" + "A" * 2000] + tokens[4:])},
              "token 3 has 2005 bytes and starts with a terminal escape", bad)
    write_bad("query_tokens_only", {f"layer{i}": a[0] for i, a in enumerate(cross32)},
              {"query_tokens": tokens_json(q_tokens)}, "`query_tokens` without `key_tokens`",
              bad)
    write_bad("key_tokens_length", {f"layer{i}": a[0] for i, a in enumerate(cross32)},
              {"query_tokens": tokens_json(q_tokens), "key_tokens": tokens_json(k_tokens[:4])},
              "4 `key_tokens` for 5 keys", bad)
    write_bad("nan", with_layers(layer1=with_value(1, (2, 3, 0), math.nan)), meta,
              "NaN in `layer1` at head 2, query 3, key 0", bad)
    stacked = torch.cat(f32)
    stacked[2, 1, 4, 4] = math.inf
    write_bad("inf", {"attentions": stacked}, meta,
              "+Inf in `attentions` at layer 2, head 1, query 4, key 4", bad)
    negative = f32[0][0].clone()
    negative[0, 5, 2] += negative[0, 5, 1] + 0.25  # the row still sums to 1
    negative[0, 5, 1] = -0.25
    write_bad("negative", with_layers(layer0=negative), meta,
              "-0.25 in `layer0` at head 0, query 5, key 1; the row still sums to 1", bad)
    g = torch.Generator().manual_seed(14)
    scores = torch.randn(4, 6, 6, generator=g) * 3
    write_bad("scores", with_layers(layer0=scores), meta,
              "pre-softmax scores stored instead of weights", bad)
    torch.manual_seed(15)
    dropped = torch.nn.functional.dropout(f32[0][0], p=0.1, training=True)
    write_bad("dropout", with_layers(layer0=dropped), meta,
              "weights after dropout in training mode (kept ones scaled by 1/0.9)", bad)
    write_bad("transposed",
              with_layers(layer0=f32[0][0].transpose(-1, -2).contiguous()), meta,
              "`layer0` stored [heads, key, query]", bad)
    write_bad("causal_violated", {"attentions": torch.cat(bert32)},
              {"tokens": tokens_json(bert_tokens), "causal": "true"},
              "an encoder's weights marked `causal`", bad)
    write_bad("causal_value", layers, {**meta, "causal": "yes"}, "`causal` is `yes`", bad)
    write_bad("causal_cross", {f"layer{i}": a[0] for i, a in enumerate(cross32)},
              {"query_tokens": tokens_json(q_tokens), "key_tokens": tokens_json(k_tokens),
               "causal": "true"}, "`causal` on 3 queries × 5 keys", bad)
    write_bad("model_long", layers, {**meta, "model": "m" * 1500},
              "a 1500-byte model name", bad)

    readme = [
        "# Attention-import fixtures",
        "",
        "Written by `/usr/bin/python3 tools/make_attention_imports.py`, which says how (a",
        "random-weight stand-in for a Hugging Face model, the snippet's own `save_file` line); the",
        "format is docs/attention-import.md. Each valid file has `<name>.expected.safetensors`:",
        "`weights` F32 [layers, heads, query, key] holding exactly the numbers written, and",
        "metadata `query_tokens`, `key_tokens`, `model`, `causal`, `fully_masked_rows`.",
        "",
        "## Valid",
        "",
        "| file | what | tensors |",
        "|---|---|---|",
        *valid,
        "",
        "## Malformed (each must be refused with one sentence)",
        "",
        "| file | what is wrong |",
        "|---|---|",
        *bad,
        "",
    ]
    (OUT / "README.md").write_text("\n".join(readme))
    print(f"wrote {len(valid)} valid and {len(bad)} malformed files to {OUT}")


if __name__ == "__main__":
    main()
