#!/usr/bin/python3
"""Tiny Vision Transformer checkpoints (ViT, DeiT) in Hugging Face's layouts, with a float64
reference of every activation, for tests/model/vit_checkpoint_test.cpp.

Run with Debian's torch:  /usr/bin/python3 tools/make_vit_references.py
Writes tests/data/hf/<folder>/ for each row of FOLDERS:
  config.json                as save_pretrained writes it for the family
  preprocessor_config.json   ViTImageProcessor's keys (the image preparation, not used here)
  model.safetensors          F32 weights under the family's names
  reference.safetensors      `pixels` [C, H, W] (an image already prepared) and every activation
                             of one forward pass under the engine's dump names, float64 stored
                             as float32; `logits` [1, classes] where the model has a classifier

`transformers` cannot be installed here, so the model is written below from the published
description (Dosovitskiy et al. 2021; Touvron et al. 2021 for DeiT) and Hugging Face's
modeling_vit.py / modeling_deit.py naming:
- the picture cut into P x P patches by a convolution with kernel = stride = P
  (`embeddings.patch_embeddings.projection`, weight [D, C, P, P]), patches in row-major order;
- a learned CLS token (and DeiT's distillation token) before the patches, learned position
  embeddings [1, N + 1 (+1), D] added;
- pre-norm encoder layers: x + attention(LN_before(x)), then x + MLP(LN_after(x)), exact GELU,
  biases on q, k, v when qkv_bias, on every other projection always;
- a final LayerNorm; the classifier reads the CLS token (DeiT with teacher: the mean of the class
  head on the CLS token and the distillation head on the distillation token).
The patch embedding is checked against torch.nn.functional.conv2d, and the whole pass against a
second formulation with torch.nn.functional's layer_norm, gelu and softmax.
Deterministic: numpy's legacy RandomState with one seed per folder.
"""
import json
import math
import pathlib
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py as st  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "hf"
LABELS = ["circle", "square", "triangle", "cross", "ring"]

BASE = dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
            image_size=32, patch_size=8, num_channels=3, qkv_bias=True, layer_norm_eps=1e-12)
FOLDERS = {
    # ViTForImageClassification: `vit.` prefix, a classifier on the CLS token.
    "vit": dict(model_type="vit", architecture="ViTForImageClassification", prefix="vit.",
                head="classifier", distillation=False, seed=2601, options={}),
    # ViTModel as the Hub stores it: no prefix, a pooler (ignored), no classifier, no q/k/v
    # biases, rectangular patches of 4 on a 24 x 16 picture with 1 channel.
    "vit-model": dict(model_type="vit", architecture="ViTModel", prefix="", head=None,
                      distillation=False, seed=2602,
                      options=dict(qkv_bias=False, image_size=[24, 16], patch_size=4,
                                   num_channels=1, num_attention_heads=4)),
    # DeiTForImageClassificationWithTeacher: `deit.` prefix, the distillation token and both
    # heads.
    "deit": dict(model_type="deit", architecture="DeiTForImageClassificationWithTeacher",
                 prefix="deit.", head="teacher", distillation=True, seed=2603, options={}),
}


class Draw:
    def __init__(self, seed):
        self.random = np.random.RandomState(seed)

    def normal(self, shape, scale):
        return torch.from_numpy((self.random.standard_normal(shape) * scale)
                                .astype(np.float32).astype(np.float64))


def sizes(c):
    size = c["image_size"]
    h, w = (size, size) if isinstance(size, int) else size
    return h, w, c["patch_size"], c["num_channels"]


def make_weights(f, c):
    draw = Draw(f["seed"])
    D, I = c["hidden_size"], c["intermediate_size"]
    h, w_, P, C = sizes(c)
    n = (h // P) * (w_ // P) + (2 if f["distillation"] else 1)
    p = f["prefix"]
    w = {p + "embeddings.cls_token": draw.normal((1, 1, D), 1.0),
         p + "embeddings.position_embeddings": draw.normal((1, n, D), 0.5),
         p + "embeddings.patch_embeddings.projection.weight": draw.normal((D, C, P, P),
                                                                          1 / math.sqrt(C * P * P)),
         p + "embeddings.patch_embeddings.projection.bias": draw.normal((D,), 0.1)}
    if f["distillation"]:
        w[p + "embeddings.distillation_token"] = draw.normal((1, 1, D), 1.0)

    def linear(name, rows, cols, bias=True):
        w[name + ".weight"] = draw.normal((rows, cols), 1.5 / math.sqrt(cols))
        if bias:
            w[name + ".bias"] = draw.normal((rows,), 0.1)

    def norm(name):
        w[name + ".weight"] = 1 + draw.normal((D,), 0.2)
        w[name + ".bias"] = draw.normal((D,), 0.1)

    for L in range(c["num_hidden_layers"]):
        q = f"{p}encoder.layer.{L}."
        for part in ("query", "key", "value"):
            linear(q + "attention.attention." + part, D, D, c["qkv_bias"])
        linear(q + "attention.output.dense", D, D)
        linear(q + "intermediate.dense", I, D)
        linear(q + "output.dense", D, I)
        norm(q + "layernorm_before")
        norm(q + "layernorm_after")
    norm(p + "layernorm")
    if f["head"] == "classifier":
        linear("classifier", len(LABELS), D)
    elif f["head"] == "teacher":
        linear("cls_classifier", len(LABELS), D)
        linear("distillation_classifier", len(LABELS), D)
    if f["architecture"] == "ViTModel":
        linear("pooler.dense", D, D)
    return w


def layer_norm(x, w, name, eps):
    mean = x.mean(-1, keepdim=True)
    var = (x - mean).pow(2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w[name + ".weight"] + w[name + ".bias"]


def linear(w, name, x):
    y = x @ w[name + ".weight"].T
    return y + w[name + ".bias"] if name + ".bias" in w else y


def patches(pixels, P):
    """[C, H, W] -> [N, C * P * P]: row-major over the grid, each patch flattened as (c, y, x),
    the order of the convolution's weight [D, C, P, P]."""
    C, H, W = pixels.shape
    grid = pixels.reshape(C, H // P, P, W // P, P).permute(1, 3, 0, 2, 4)
    return grid.reshape((H // P) * (W // P), C * P * P)


def forward(f, c, w, pixels):
    t = {"pixels": pixels}
    p = f["prefix"]
    D, H = c["hidden_size"], c["num_attention_heads"]
    eps = c["layer_norm_eps"]
    P = c["patch_size"]
    proj = w[p + "embeddings.patch_embeddings.projection.weight"]
    x = patches(pixels, P) @ proj.reshape(D, -1).T + w[p + "embeddings.patch_embeddings.projection.bias"]
    conv = F.conv2d(pixels[None], proj, w[p + "embeddings.patch_embeddings.projection.bias"],
                    stride=P).flatten(2).transpose(1, 2)[0]
    assert torch.allclose(x, conv, atol=1e-12), "patches disagree with the convolution"
    tokens = [w[p + "embeddings.cls_token"][0]]
    if f["distillation"]:
        tokens.append(w[p + "embeddings.distillation_token"][0])
    x = torch.cat(tokens + [x])[None]
    t["encoder.embedding"] = x
    t["encoder.positional"] = w[p + "embeddings.position_embeddings"]
    x = x + t["encoder.positional"]
    t["encoder.input"] = x
    N = x.shape[1]
    dk = D // H
    for L in range(c["num_hidden_layers"]):
        q = f"{p}encoder.layer.{L}."
        s = f"layer{L}.self."
        n = layer_norm(x, w, q + "layernorm_before", eps)
        qp, kp, vp = (linear(w, q + "attention.attention." + k, n) for k in ("query", "key", "value"))
        split = lambda y: y.reshape(1, N, H, dk).transpose(1, 2)  # noqa: E731
        qh, kh, vh = split(qp), split(kp), split(vp)
        scores = qh @ kh.transpose(-1, -2)
        scaled = scores / math.sqrt(dk)
        weights = torch.softmax(scaled, -1)
        context = weights @ vh
        concat = context.transpose(1, 2).reshape(1, N, D)
        out = linear(w, q + "attention.output.dense", concat)
        r = x + out
        for name, v in (("q_proj", qp), ("k_proj", kp), ("v_proj", vp), ("q_heads", qh),
                        ("k_heads", kh), ("v_heads", vh), ("scores", scores), ("scaled", scaled),
                        ("masked", scaled), ("weights", weights), ("context", context),
                        ("concat", concat), ("output", out), ("norm", n), ("residual", r)):
            t[s + name] = v
        x = r
        s = f"layer{L}.enc_ffn."
        n = layer_norm(x, w, q + "layernorm_after", eps)
        pre = linear(w, q + "intermediate.dense", n)
        hidden = 0.5 * pre * (1 + torch.erf(pre / math.sqrt(2)))
        out = linear(w, q + "output.dense", hidden)
        r = x + out
        for name, v in (("hidden_pre", pre), ("hidden", hidden), ("output", out), ("norm", n),
                        ("residual", r)):
            t[s + name] = v
        x = r
    x = layer_norm(x, w, p + "layernorm", eps)
    t["encoder.final_norm"] = x
    if f["head"] == "classifier":
        t["logits"] = linear(w, "classifier", x[:, 0])
    elif f["head"] == "teacher":
        t["logits"] = (linear(w, "cls_classifier", x[:, 0]) +
                       linear(w, "distillation_classifier", x[:, 1])) / 2
    return t


def check(f, c, w, pixels, t):
    """The same pass through torch.nn.functional: layer_norm, gelu, softmax and conv2d."""
    p = f["prefix"]
    D, H = c["hidden_size"], c["num_attention_heads"]
    P, eps = c["patch_size"], c["layer_norm_eps"]
    emb = F.conv2d(pixels[None], w[p + "embeddings.patch_embeddings.projection.weight"],
                   w[p + "embeddings.patch_embeddings.projection.bias"], stride=P)
    x = emb.flatten(2).transpose(1, 2)
    front = [w[p + "embeddings.cls_token"]]
    if f["distillation"]:
        front.append(w[p + "embeddings.distillation_token"])
    x = torch.cat(front + [x], 1) + w[p + "embeddings.position_embeddings"]
    for L in range(c["num_hidden_layers"]):
        q = f"{p}encoder.layer.{L}."
        n = F.layer_norm(x, (D,), w[q + "layernorm_before.weight"], w[q + "layernorm_before.bias"], eps)
        a = F.multi_head_attention_forward(
            n.transpose(0, 1), n.transpose(0, 1), n.transpose(0, 1), D, H, None,
            torch.cat([w.get(q + f"attention.attention.{k}.bias", torch.zeros(D))
                       for k in ("query", "key", "value")]),
            None, None, False, 0.0, w[q + "attention.output.dense.weight"],
            w[q + "attention.output.dense.bias"], training=False, need_weights=False,
            use_separate_proj_weight=True, q_proj_weight=w[q + "attention.attention.query.weight"],
            k_proj_weight=w[q + "attention.attention.key.weight"],
            v_proj_weight=w[q + "attention.attention.value.weight"])[0].transpose(0, 1)
        x = x + a
        n = F.layer_norm(x, (D,), w[q + "layernorm_after.weight"], w[q + "layernorm_after.bias"], eps)
        x = x + F.linear(F.gelu(F.linear(n, w[q + "intermediate.dense.weight"],
                                         w[q + "intermediate.dense.bias"])),
                         w[q + "output.dense.weight"], w[q + "output.dense.bias"])
    x = F.layer_norm(x, (D,), w[p + "layernorm.weight"], w[p + "layernorm.bias"], eps)
    difference = (x - t["encoder.final_norm"]).abs().max().item()
    assert difference < 1e-10, f"the two formulations differ by {difference}"
    return difference


def config_json(f, c):
    j = {"architectures": [f["architecture"]], "attention_probs_dropout_prob": 0.0,
         "encoder_stride": 16, "hidden_act": "gelu", "hidden_dropout_prob": 0.0,
         "initializer_range": 0.02, "model_type": f["model_type"], "torch_dtype": "float32",
         "transformers_version": "4.46.0"}
    j.update({k: c[k] for k in BASE})
    if f["head"]:
        j["id2label"] = {str(i): name for i, name in enumerate(LABELS)}
        j["label2id"] = {name: i for i, name in enumerate(LABELS)}
    return dict(sorted(j.items()))


def preprocessor_json(c):
    h, w, _, channels = sizes(c)
    return {"do_normalize": True, "do_rescale": True, "do_resize": True,
            "image_mean": [0.5] * channels, "image_std": [0.5] * channels,
            "image_processor_type": "ViTImageProcessor", "resample": 2,
            "rescale_factor": 0.00392156862745098, "size": {"height": h, "width": w}}


def main():
    torch.set_default_dtype(torch.float64)
    for name, f in FOLDERS.items():
        c = dict(BASE, **f["options"])
        w = make_weights(f, c)
        h, width, P, C = sizes(c)
        pixels = Draw(f["seed"] + 1000).normal((C, h, width), 1.0)
        t = forward(f, c, w, pixels)
        difference = check(f, c, w, pixels, t)
        out = DATA / name
        out.mkdir(parents=True, exist_ok=True)
        (out / "config.json").write_text(json.dumps(config_json(f, c), indent=2) + "\n")
        (out / "preprocessor_config.json").write_text(json.dumps(preprocessor_json(c), indent=2) + "\n")
        st.save(out / "model.safetensors",
                {k: v.numpy().astype(np.float32) for k, v in sorted(w.items())}, {"format": "pt"})
        st.save(out / "reference.safetensors",
                {k: v.numpy().astype(np.float32) for k, v in sorted(t.items())},
                {"architecture": f["architecture"], "patches": str((h // P) * (width // P))})
        print(f"{name}: {len(t)} reference tensors, formulations agree within {difference:.1e}")


if __name__ == "__main__":
    main()
