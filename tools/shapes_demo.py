"""The `shapes` demo of tools/train_demo_models.py: a small Vision Transformer that tells five
shapes apart on pictures this script draws itself, saved as a Hugging Face
ViTForImageClassification folder.

    /usr/bin/python3 tools/train_demo_models.py shapes

Each picture is 48 x 48 RGB: a textured background (a smooth blend of two colours, waves of a
random direction and period, pixel noise) and one shape -- circle, square, triangle, cross or
ring -- upright, of random size, colour and place, drawn with soft (2 x 2 supersampled) edges. The
model cuts it into 6 x 6 patches of 8 pixels, so it reads 37 tokens: CLS and the 36 patches.

The model is written here in PyTorch from the published description; tools/make_vit_references.py
holds the float64 reference pass in Hugging Face's naming (`forward`, `check`, `config_json`,
`preprocessor_json`), which this script reuses for the reference activations and to check its own
batched float32 pass.

Writes
  resources/models/shapes/{config.json, preprocessor_config.json, model.safetensors, README.md}
  resources/models/shapes/examples/*.png     held-out pictures, one or two per class
  resources/models/shapes/examples/shapes.json   per picture: its label and the patches the shape
                                                 covers (row-major over the 6 x 6 grid)
  tests/data/models/shapes/reference.safetensors `case{i}.pixels` and every activation of a
                                                 float64 pass over two examples under the engine's
                                                 dump names, float32; metadata `cases`,
                                                 `case{i}.image`
Everything is seeded.
"""
import json
import math
import pathlib
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_vit_references as vit  # noqa: E402
import safetensors_py  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDER = ROOT / "resources" / "models" / "shapes"
REFERENCE = ROOT / "tests" / "data" / "models" / "shapes"

LABELS = vit.LABELS  # circle, square, triangle, cross, ring
SIZE, PATCH = 48, 8
GRID = SIZE // PATCH
CONFIG = dict(vit.BASE, hidden_size=64, num_hidden_layers=4, num_attention_heads=4,
              intermediate_size=128, image_size=SIZE, patch_size=PATCH, num_channels=3,
              qkv_bias=True, layer_norm_eps=1e-12)
SPEC = dict(vit.FOLDERS["vit"])  # ViTForImageClassification, `vit.` prefix, a classifier
PREFIX = SPEC["prefix"]

STEPS, BATCH, LEARNING_RATE, WEIGHT_DECAY, WARMUP = 8000, 128, 2e-3, 0.05, 300
TRAIN_SEED, HELDOUT_SEED, EXAMPLE_SEED, INIT_SEED = 2611, 2612, 2613, 2614
HELDOUT = 2000
POOL = 96000     # training pictures, each seen mirrored at random
COVERED = 0.10   # a patch "covers the shape" when at least this share of its pixels is shape
REFERENCE_CASES = ["circle.png", "cross.png"]


# ---------------------------------------------------------------------------------------------
# Pictures

def _upsample(grid, size):
    """[n, g, g] -> [n, size, size], bilinear (corners aligned)."""
    g = grid.shape[1]
    t = np.linspace(0, g - 1, size)
    m = np.maximum(0, 1 - np.abs(t[:, None] - np.arange(g)[None])).astype(np.float32)
    return np.einsum("yi,nij,xj->nyx", m, grid, m, optimize=True)


SHAPES = {
    # Each: which samples are inside, from the offsets (dx, dy) from the centre in units of the
    # size r, and (u, v), the same turned by the shape's angle.
    "circle": lambda dx, dy, u, v: dx * dx + dy * dy <= 1,
    "square": lambda dx, dy, u, v: np.maximum(np.abs(u), np.abs(v)) <= 0.85,
    # Equilateral, apex up before the turn, circumradius 1.15.
    "triangle": lambda dx, dy, u, v: ((v <= 0.575) & (np.sqrt(3) * u - v <= 1.15)
                                      & (-np.sqrt(3) * u - v <= 1.15)),
    "cross": lambda dx, dy, u, v: (((np.abs(u) <= 0.34) & (np.abs(v) <= 1))
                                   | ((np.abs(v) <= 0.34) & (np.abs(u) <= 1))),
    "ring": lambda dx, dy, u, v: (dx * dx + dy * dy <= 1) & (dx * dx + dy * dy >= 0.55 ** 2),
}
REACH = 1.15      # the farthest any shape reaches from its centre, in units of its size r
RADIUS = (6.0, 12.0)
TURN = 0.0        # the largest turn of a shape, radians
WINDOW = 30       # pixels around the centre that can hold the shape: 2 * REACH * 12 + margin


def draw(rng, n, labels=None, radius=RADIUS):
    """n pictures: uint8 [n, SIZE, SIZE, 3], labels [n], the shape's coverage of each pixel
    [n, SIZE, SIZE] in [0, 1] (2 x 2 samples per pixel), and the drawing's parameters."""
    f32 = np.float32
    labels = rng.integers(0, len(LABELS), n) if labels is None else np.asarray(labels)
    # Background: two colours blended by a smooth random field, waves of a random direction,
    # period and colour, and pixel noise.
    c1, c2 = rng.uniform(0.1, 0.9, (n, 3)).astype(f32), rng.uniform(0.1, 0.9, (n, 3)).astype(f32)
    blend = _upsample(rng.uniform(0, 1, (n, 4, 4)).astype(f32), SIZE)[:, None]
    background = c1[..., None, None] + (c2 - c1)[..., None, None] * blend  # [n, 3, H, W]
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(f32) + 0.5
    angle = rng.uniform(0, math.pi, n).astype(f32)[:, None, None]
    period = rng.uniform(4, 12, n).astype(f32)[:, None, None]
    phase = rng.uniform(0, 2 * math.pi, n).astype(f32)[:, None, None]
    waves = np.sin(f32(2 * math.pi) * (x * np.cos(angle) + y * np.sin(angle)) / period + phase)
    wave_colour = (rng.uniform(-1, 1, (n, 3)) * rng.uniform(0.04, 0.14, (n, 1))).astype(f32)
    background += waves[:, None] * wave_colour[..., None, None]
    noise = rng.random((n, 3, SIZE, SIZE), dtype=f32) - f32(0.5)
    background += noise * rng.uniform(0.05, 0.15, (n, 1, 1, 1)).astype(f32)
    # The shape: size, place and turn (none while TURN is 0).
    r = rng.uniform(radius[0], radius[1], n)
    cx = rng.uniform(REACH * r + 1, SIZE - REACH * r - 1)
    cy = rng.uniform(REACH * r + 1, SIZE - REACH * r - 1)
    turn = rng.uniform(-1, 1, n) * TURN
    # Sampled 2 x 2 per pixel in a window around the centre.
    ox = np.clip(np.floor(cx).astype(int) - WINDOW // 2, 0, SIZE - WINDOW)
    oy = np.clip(np.floor(cy).astype(int) - WINDOW // 2, 0, SIZE - WINDOW)
    s = np.arange(2 * WINDOW, dtype=f32) / 2 + f32(0.25)
    inside = np.zeros((n, 2 * WINDOW, 2 * WINDOW), dtype=bool)
    for label in range(len(LABELS)):
        i = np.flatnonzero(labels == label)
        if len(i) == 0:
            continue
        scale = r[i].astype(f32)[:, None, None]
        dx = (s[None, None, :] + (ox[i] - cx[i]).astype(f32)[:, None, None]) / scale
        dy = (s[None, :, None] + (oy[i] - cy[i]).astype(f32)[:, None, None]) / scale
        dx, dy = np.broadcast_arrays(dx, dy)
        c = np.cos(turn[i]).astype(f32)[:, None, None]
        sn = np.sin(turn[i]).astype(f32)[:, None, None]
        u, v = c * dx + sn * dy, c * dy - sn * dx
        inside[i] = SHAPES[LABELS[label]](dx, dy, u, v)
    local = inside.reshape(n, WINDOW, 2, WINDOW, 2).mean((2, 4), dtype=f32)
    alpha = np.zeros((n, SIZE, SIZE), dtype=f32)
    for k in range(n):
        alpha[k, oy[k]:oy[k] + WINDOW, ox[k]:ox[k] + WINDOW] = local[k]
    # A shape colour far from the background's mean colour, lit faintly from above.
    candidates = rng.uniform(0, 1, (n, 24, 3)).astype(f32)
    distance = np.linalg.norm(candidates - background.mean((2, 3))[:, None], axis=-1)
    ok = distance >= 0.5
    colour = candidates[np.arange(n), np.where(ok.any(1), ok.argmax(1), distance.argmax(1))]
    shade = 1 + f32(0.08) * (y[None] - cy.astype(f32)[:, None, None]) / r.astype(f32)[:, None, None]
    a = alpha[:, None]
    picture = background + (colour[..., None, None] * shade[:, None] - background) * a
    picture = np.clip(picture * 255 + 0.5, 0, 255).astype(np.uint8).transpose(0, 2, 3, 1)
    return picture, labels, alpha, dict(r=r, cx=cx, cy=cy, turn=turn)


def covered_patches(alpha):
    """[n, SIZE, SIZE] coverage -> [n, GRID * GRID] bool: the patches at least COVERED shape."""
    share = alpha.reshape(-1, GRID, PATCH, GRID, PATCH).mean((2, 4)).reshape(-1, GRID * GRID)
    return share >= COVERED


def prepared(pictures):
    """uint8 [n, H, W, 3] -> [n, 3, H, W] as ViTImageProcessor prepares them (rescale by 1/255,
    normalise by mean 0.5 and deviation 0.5), float64."""
    x = torch.from_numpy(pictures.astype(np.float64)).permute(0, 3, 1, 2)
    return (x * vit.preprocessor_json(CONFIG)["rescale_factor"] - 0.5) / 0.5


# ---------------------------------------------------------------------------------------------
# The model: Hugging Face's ViTForImageClassification weights, one batched float32 pass

def sincos_positions(D):
    """[GRID * GRID, D]: the two-dimensional sine-cosine position embedding of MAE (He et al.
    2022): half the features encode the row, half the column, each as sines and cosines of
    D / 4 frequencies. Only the start: the positions are trained."""
    omega = 1.0 / 10000 ** (torch.arange(D // 4, dtype=torch.float64) / (D // 4))
    row, column = torch.meshgrid(torch.arange(GRID, dtype=torch.float64),
                                 torch.arange(GRID, dtype=torch.float64), indexing="ij")
    parts = []
    for axis in (row.reshape(-1), column.reshape(-1)):
        angle = axis[:, None] * omega[None]
        parts += [torch.sin(angle), torch.cos(angle)]
    return torch.cat(parts, 1).float()


def initial_weights(seed):
    """Weights under Hugging Face's names, initialised as ViTPreTrainedModel does (normal with
    deviation initializer_range, clipped at two deviations; biases 0; LayerNorm 1 and 0)."""
    g = torch.Generator().manual_seed(seed)
    c, p = CONFIG, PREFIX
    D, I, C, P = c["hidden_size"], c["intermediate_size"], c["num_channels"], c["patch_size"]

    def normal(*shape):
        return (torch.randn(*shape, generator=g) * 0.02).clamp(-0.04, 0.04)

    w = {p + "embeddings.cls_token": normal(1, 1, D),
         p + "embeddings.position_embeddings": torch.cat([torch.zeros(1, 1, D),
                                                           sincos_positions(D)[None]], 1),
         p + "embeddings.patch_embeddings.projection.weight": normal(D, C, P, P),
         p + "embeddings.patch_embeddings.projection.bias": torch.zeros(D)}

    def linear(name, rows, cols):
        w[name + ".weight"] = normal(rows, cols)
        w[name + ".bias"] = torch.zeros(rows)

    def norm(name):
        w[name + ".weight"] = torch.ones(D)
        w[name + ".bias"] = torch.zeros(D)

    for L in range(c["num_hidden_layers"]):
        q = f"{p}encoder.layer.{L}."
        for part in ("query", "key", "value"):
            linear(q + "attention.attention." + part, D, D)
        linear(q + "attention.output.dense", D, D)
        linear(q + "intermediate.dense", I, D)
        linear(q + "output.dense", D, I)
        norm(q + "layernorm_before")
        norm(q + "layernorm_after")
    norm(p + "layernorm")
    linear("classifier", len(LABELS), D)
    return {k: v.requires_grad_() for k, v in w.items()}


def batched_forward(w, pixels):
    """[B, 3, H, W] -> logits [B, classes] and each layer's attention weights [B, heads, N, N]."""
    c, p = CONFIG, PREFIX
    D, H, eps = c["hidden_size"], c["num_attention_heads"], c["layer_norm_eps"]
    B, dk = pixels.shape[0], D // H
    x = F.conv2d(pixels, w[p + "embeddings.patch_embeddings.projection.weight"],
                 w[p + "embeddings.patch_embeddings.projection.bias"], stride=PATCH)
    x = torch.cat([w[p + "embeddings.cls_token"].expand(B, -1, -1),
                   x.flatten(2).transpose(1, 2)], 1)
    x = x + w[p + "embeddings.position_embeddings"]
    N = x.shape[1]
    weights = []
    for L in range(c["num_hidden_layers"]):
        q = f"{p}encoder.layer.{L}."

        def lin(name, y):
            return F.linear(y, w[q + name + ".weight"], w[q + name + ".bias"])

        n = F.layer_norm(x, (D,), w[q + "layernorm_before.weight"],
                         w[q + "layernorm_before.bias"], eps)
        qh, kh, vh = (lin("attention.attention." + k, n).reshape(B, N, H, dk).transpose(1, 2)
                      for k in ("query", "key", "value"))
        a = torch.softmax(qh @ kh.transpose(-1, -2) / math.sqrt(dk), -1)
        weights.append(a)
        x = x + lin("attention.output.dense", (a @ vh).transpose(1, 2).reshape(B, N, D))
        n = F.layer_norm(x, (D,), w[q + "layernorm_after.weight"],
                         w[q + "layernorm_after.bias"], eps)
        x = x + lin("output.dense", F.gelu(lin("intermediate.dense", n)))
    x = F.layer_norm(x, (D,), w[p + "layernorm.weight"], w[p + "layernorm.bias"], eps)
    return F.linear(x[:, 0], w["classifier.weight"], w["classifier.bias"]), weights


def as_float64(w):
    return {k: v.detach().to(torch.float64) for k, v in w.items()}


# ---------------------------------------------------------------------------------------------
# Training and measuring

def draw_many(seed, n, chunk=1000, **options):
    rng = np.random.default_rng(seed)
    parts = [draw(rng, min(chunk, n - i), **options) for i in range(0, n, chunk)]
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def run_batches(w, pictures, batch=500):
    """Logits and attention weights (float32) over uint8 pictures [n, H, W, 3]."""
    logits, weights = [], []
    with torch.no_grad():
        for i in range(0, len(pictures), batch):
            out, a = batched_forward(w, prepared(pictures[i:i + batch]).float())
            logits.append(out)
            weights.append(torch.stack(a, 1))  # [B, layers, heads, N, N]
    return torch.cat(logits), torch.cat(weights).double()


def rollout(weights):
    """Attention rollout (Abnar & Zuidema 2020) as lesson/attention_rollout.cpp computes it:
    heads averaged, 1/2 (A + I) with rows renormalised, multiplied from the first layer up.
    weights [B, layers, heads, N, N] -> [B, N, N]."""
    a = weights.mean(2)
    eye = torch.eye(a.shape[-1], dtype=a.dtype)
    result = eye.expand(a.shape[0], -1, -1)
    for L in range(a.shape[1]):
        m = 0.5 * (a[:, L] + eye)
        m = m / m.sum(-1, keepdim=True)
        result = m @ result
    return result


def shape_share(rows, covered):
    """The share of each row's weight over the patches [B, patches] that falls on the shape's
    patches (covered: bool [B, patches])."""
    patches = rows / rows.sum(-1, keepdim=True)
    return (patches * torch.from_numpy(covered).double()).sum(-1)


def patch_centres():
    i = torch.arange(GRID * GRID)
    return torch.stack([(i % GRID).double(), (i // GRID).double()], 1) * PATCH + PATCH / 2


def head_table(weights, covered):
    """Per layer and head over held-out pictures: what the CLS query and the patch queries
    attend to."""
    cov = torch.from_numpy(covered).double()               # [B, 36]
    area = cov.mean(-1)                                     # share of patches on the shape
    centres = patch_centres()
    distance = torch.cdist(centres, centres)               # [36, 36] pixels
    neighbours = ((distance > 0) & (distance <= PATCH * math.sqrt(2) + 1e-9)).double()
    rows = []
    for L in range(weights.shape[1]):
        for h in range(weights.shape[2]):
            a = weights[:, L, h]                            # [B, N, N]
            cls = a[:, 0, 1:]
            cls_shape = (cls / cls.sum(-1, keepdim=True) * cov).sum(-1)
            p = a[:, 1:, 1:]                                # patch queries over patch keys
            to_cls = a[:, 1:, 0].mean().item()
            p = p / p.sum(-1, keepdim=True)
            self_share = torch.diagonal(p, dim1=-2, dim2=-1).mean().item()
            near = (p * neighbours).sum(-1).mean().item()
            reach = (p * distance).sum(-1).mean().item()
            # Patches off the shape: the share of their weight on the shape's patches.
            off = 1 - cov
            on_shape = (p * cov[:, None, :]).sum(-1)        # [B, 36]
            off_to_shape = ((on_shape * off).sum() / off.sum()).item()
            rows.append(dict(layer=L, head=h, cls_self=a[:, 0, 0].mean().item(),
                             cls_shape=cls_shape.mean().item(), area=area.mean().item(),
                             to_cls=to_cls, self=self_share, near=near, reach=reach,
                             off_to_shape=off_to_shape))
    for row in rows:
        row["reading"] = reading(row)
    return rows


def reading(row):
    parts = []
    lift = row["cls_shape"] / row["area"]
    if row["cls_self"] >= 0.5:
        parts.append("CLS reads itself")
    elif lift >= 2:
        parts.append("CLS finds the shape")
    elif lift >= 1.3:
        parts.append("CLS leans to the shape")
    elif lift <= 0.7:
        parts.append("CLS reads the background")
    else:
        parts.append("CLS looks everywhere")
    if row["to_cls"] >= 0.5:
        parts.append("patches read CLS")
    elif row["self"] >= 0.5:
        parts.append("each patch reads itself")
    elif row["self"] + row["near"] >= 0.6:
        parts.append("patches read their neighbours")
    elif row["off_to_shape"] / row["area"] >= 2:
        parts.append("every patch reads the shape")
    else:
        parts.append("patches read broadly")
    return "; ".join(parts)


def train(w, pictures, labels, log):
    """AdamW with warm-up and a cosine decay; each batch drawn from the pool of pictures, each
    picture mirrored left to right at random."""
    g = torch.Generator().manual_seed(TRAIN_SEED)
    decay = [v for k, v in w.items()
             if v.dim() >= 2 and "embeddings" not in k or "projection.weight" in k]
    rest = [v for v in w.values() if all(v is not d for d in decay)]
    optimiser = torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                                   {"params": rest, "weight_decay": 0.0}],
                                  lr=LEARNING_RATE, betas=(0.9, 0.98))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: min(
        (s + 1) / WARMUP, 0.5 * (1 + math.cos(math.pi * min(1.0, s / STEPS)))))
    targets = torch.from_numpy(labels)
    running = None
    for step in range(STEPS):
        i = torch.randint(0, len(pictures), (BATCH,), generator=g)
        x = prepared(pictures[i.numpy()]).float()
        flip = torch.rand(BATCH, generator=g) < 0.5
        x = torch.where(flip[:, None, None, None], x.flip(-1), x)
        logits, _ = batched_forward(w, x)
        loss = F.cross_entropy(logits, targets[i])
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(list(w.values()), 1.0)
        optimiser.step()
        schedule.step()
        running = loss.item() if running is None else 0.98 * running + 0.02 * loss.item()
        if step % 250 == 0 or step == STEPS - 1:
            log(f"step {step:5d}  loss {running:.4f}  lr {schedule.get_last_lr()[0]:.2e}")
    return running


# ---------------------------------------------------------------------------------------------
# Examples, reference and folder

EXAMPLES = [  # (file, label, size range): from EXAMPLE_SEED, the first draw the model names right
    ("circle.png", "circle", (8.5, 11.0)),
    ("square.png", "square", (8.5, 11.0)),
    ("triangle.png", "triangle", (9.0, 11.5)),
    ("cross.png", "cross", (9.0, 11.5)),
    ("ring.png", "ring", (9.0, 11.5)),
    ("cross_small.png", "cross", (6.0, 7.0)),
]


def draw_examples(w):
    """Per row k of EXAMPLES, pictures drawn one after the other from the seed (EXAMPLE_SEED, k)
    until the model names one right; the ones it misnamed on the way are returned too, for the
    README."""
    out, misnamed = [], []
    for k, (name, label, radius) in enumerate(EXAMPLES):
        rng = np.random.default_rng([EXAMPLE_SEED, k])
        while True:
            picture, _, alpha, p = draw(rng, 1, labels=[LABELS.index(label)], radius=radius)
            logits, _ = run_batches(w, picture)
            probability = torch.softmax(logits.double(), -1)[0]
            predicted = LABELS[int(probability.argmax())]
            if predicted == label:
                break
            if len(misnamed) >= 20:
                raise RuntimeError("the model misnames every example drawn")
            misnamed.append(dict(file=name, label=label, predicted=predicted,
                                 probability=float(probability.max())))
        out.append(dict(file=name, label=label, picture=picture[0], alpha=alpha[0],
                        centre=[round(float(p["cx"][0]), 2), round(float(p["cy"][0]), 2)],
                        size=round(float(p["r"][0]), 2)))
    return out, misnamed


def png_pixels(path):
    from PIL import Image
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def write_examples(folder, examples, w):
    from PIL import Image
    (folder / "examples").mkdir(parents=True, exist_ok=True)
    pictures = []
    for e in examples:
        path = folder / "examples" / e["file"]
        Image.fromarray(e["picture"]).save(path, optimize=True)
        pictures.append(png_pixels(path))
        assert np.array_equal(pictures[-1], e["picture"]), "the PNG does not read back"
    pictures = np.stack(pictures)
    covered = covered_patches(np.stack([e["alpha"] for e in examples]))
    logits, weights = run_batches(w, pictures)
    probabilities = torch.softmax(logits.double(), -1)
    roll = shape_share(rollout(weights)[:, 0, 1:], covered)
    last = shape_share(weights[:, -1, :, 0, 1:].mean(1), covered)
    described = {}
    for k, e in enumerate(examples):
        described[e["file"]] = dict(
            label=e["label"], centre=e["centre"], size=e["size"],
            shape_patches=[int(i) for i in np.flatnonzero(covered[k])],
            predicted=LABELS[int(probabilities[k].argmax())],
            probability=round(float(probabilities[k].max()), 4),
            rollout_shape_share=round(float(roll[k]), 4),
            last_layer_shape_share=round(float(last[k]), 4))
    meta = {"about": "Held-out pictures drawn by tools/shapes_demo.py. shape_patches: the patches "
                     f"(row-major over the {GRID} x {GRID} grid of {PATCH}-pixel patches, 0 = top "
                     f"left) at least {COVERED:.0%} covered by the shape; rollout_shape_share: the "
                     "share of the CLS row of the attention rollout (heads averaged, no discard) "
                     "over the patches that falls on them; last_layer_shape_share: the same for "
                     "the last layer's CLS row averaged over heads; centre (x, y) and size (the "
                     "shape's half-width r) in pixels.",
            "patch_grid": [GRID, GRID], "covered_share": COVERED, "pictures": described}
    (folder / "examples" / "shapes.json").write_text(json.dumps(meta, indent=2) + "\n")
    return described


def write_reference(folder, reference, w):
    """Every activation of the float64 pass of tools/make_vit_references.py over two examples,
    checked against its torch.nn.functional formulation and this script's batched pass."""
    w64 = as_float64(w)
    tensors, meta = {}, {"cases": str(len(REFERENCE_CASES)), "format": "pt"}
    for i, name in enumerate(REFERENCE_CASES):
        pixels = prepared(png_pixels(folder / "examples" / name)[None])[0]
        t = vit.forward(SPEC, CONFIG, w64, pixels)
        vit.check(SPEC, CONFIG, w64, pixels, t)
        with torch.no_grad():
            ours, _ = batched_forward(w, pixels[None].float())
        assert (ours.double() - t["logits"]).abs().max() < 1e-4, "the batched pass disagrees"
        tensors.update({f"case{i}.{k}": v.numpy().astype(np.float32) for k, v in t.items()})
        meta[f"case{i}.image"] = name
        meta[f"case{i}.label"] = LABELS[int(t["logits"].argmax())]
    reference.mkdir(parents=True, exist_ok=True)
    safetensors_py.save(reference / "reference.safetensors", dict(sorted(tensors.items())), meta)


def write_folder(folder, w):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(vit.config_json(SPEC, CONFIG), indent=2) + "\n")
    (folder / "preprocessor_config.json").write_text(
        json.dumps(vit.preprocessor_json(CONFIG), indent=2) + "\n")
    safetensors_py.save(folder / "model.safetensors",
                        {k: v.detach().numpy().astype(np.float32) for k, v in sorted(w.items())},
                        {"format": "pt"})


def train_shapes(folder=FOLDER, reference=REFERENCE, steps=None, pool=None):
    """Draws the pictures, trains, measures and writes the folder, its README and the reference."""
    global STEPS
    STEPS = steps or STEPS
    torch.set_num_threads(2)
    torch.manual_seed(INIT_SEED)
    started = time.time()

    def log(message):
        print(f"shapes: [{time.time() - started:6.0f} s] {message}", flush=True)

    pool = pool or POOL
    pictures, labels, _ = draw_many(TRAIN_SEED, pool)
    heldout, heldout_labels, heldout_alpha = draw_many(HELDOUT_SEED, HELDOUT)
    log(f"{pool} training and {HELDOUT} held-out pictures drawn")
    w = initial_weights(INIT_SEED)
    parameters = sum(v.numel() for v in w.values())
    training_started = time.time()
    loss = train(w, pictures, labels, log)
    minutes = (time.time() - training_started) / 60
    logits, weights = run_batches(w, heldout)
    predicted = logits.argmax(-1).numpy()
    accuracy = float((predicted == heldout_labels).mean())
    per_class = {name: float((predicted[heldout_labels == k] == k).mean())
                 for k, name in enumerate(LABELS)}
    confusion = np.zeros((len(LABELS), len(LABELS)), dtype=int)
    np.add.at(confusion, (heldout_labels, predicted), 1)
    train_logits, _ = run_batches(w, pictures[:HELDOUT])
    train_accuracy = float((train_logits.argmax(-1).numpy() == labels[:HELDOUT]).mean())
    covered = covered_patches(heldout_alpha)
    area = covered.mean(-1)
    cls_row = rollout(weights)[:, 0, 1:]
    roll = shape_share(cls_row, covered).numpy()
    last = shape_share(weights[:, -1, :, 0, 1:].mean(1), covered).numpy()
    roll_top = covered[np.arange(len(covered)), cls_row.argmax(-1).numpy()]
    attention = dict(area=float(area.mean()), rollout=float(roll.mean()), last=float(last.mean()),
                     rollout_above=int((roll > area).sum()), last_above=int((last > area).sum()),
                     rollout_top=int(roll_top.sum()))
    heads = head_table(weights, covered)
    log(f"held-out accuracy {accuracy:.4f} (training pictures {train_accuracy:.4f}); CLS rollout "
        f"on the shape {attention['rollout']:.3f}, last layer {attention['last']:.3f}, "
        f"area {attention['area']:.3f}")
    write_folder(folder, w)
    chosen, misnamed = draw_examples(w)
    examples = write_examples(folder, chosen, w)
    write_reference(folder, reference, w)
    write_readme(folder, dict(parameters=parameters, loss=loss, minutes=minutes, accuracy=accuracy,
                              train_accuracy=train_accuracy, per_class=per_class,
                              confusion=confusion, attention=attention, heads=heads,
                              examples=examples, misnamed=misnamed, pool=pool,
                              weights_bytes=(folder / "model.safetensors").stat().st_size))
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    log(f"written to {folder} ({size / 1024:.0f} KiB)")
    for row in heads:
        print(row)
    for name, e in examples.items():
        print(name, e)


def write_readme(folder, r):
    c = CONFIG
    a = r["attention"]
    head_rows = "\n".join(
        f"| {h['layer']} | {h['head']} | {h['cls_shape']:.2f} | {h['cls_shape'] / h['area']:.1f}× "
        f"| {h['cls_self']:.2f} | {h['to_cls']:.2f} | {h['self']:.2f} | {h['near']:.2f} "
        f"| {h['off_to_shape']:.2f} | {h['reach']:.1f} | {h['reading']} |" for h in r["heads"])
    example_rows = "\n".join(
        f"| `{name}` | {e['label']} | {e['predicted']} ({e['probability']:.1%}) "
        f"| {len(e['shape_patches'])} | {e['rollout_shape_share']:.2f} "
        f"| {e['last_layer_shape_share']:.2f} |" for name, e in r["examples"].items())
    sizes = (f"Width {c['hidden_size']}, {c['num_hidden_layers']} pre-norm layers of "
             f"{c['num_attention_heads']} heads of size "
             f"{c['hidden_size'] // c['num_attention_heads']}, a GELU feed-forward block of width "
             f"{c['intermediate_size']}")
    heads = r["heads"]
    finders = [h for h in heads if h["cls_shape"] / h["area"] >= 2]
    others = [f"layer {h['layer']} head {h['head']} ({h['reading'].split(';')[0]})"
              for h in heads if h["cls_shape"] / h["area"] < 2]
    reaches = [h["reach"] for h in heads]
    distance = torch.cdist(patch_centres(), patch_centres())
    uniform = float(distance.mean())
    uniform_near = float(((distance > 0) & (distance < 2 * PATCH)).double().mean())
    readers = sum("every patch reads the shape" in h["reading"] for h in heads)
    head_summary = (
        f"{len(finders)} of the {len(heads)} heads send the CLS query to the shape"
        + (f"; the others are {', '.join(others)}" if others else "")
        + f". No head is local: the patch queries' reach lies between {min(reaches):.1f} and "
        f"{max(reaches):.1f} pixels, close to the {uniform:.1f} of attention spread evenly, and "
        f"no head gives a patch's 8 neighbours more than "
        f"{max(h['near'] for h in heads):.2f} of its weight (spread evenly: {uniform_near:.2f} "
        "on average). On pictures of one object on a background that says nothing, attention "
        "follows content, not distance: in "
        f"{readers} of the heads every patch, the background's too, reads the shape, and the "
        "CLS token's rollout follows.")
    confusion = "\n".join(f"| {LABELS[k]} | " + " | ".join(str(v) for v in row) + " |"
                          for k, row in enumerate(r["confusion"]))
    misnamed = ("it misnamed " + "; ".join(
        f"a {m['label']} drawn for `{m['file']}` ({m['predicted']}, {m['probability']:.0%})"
        for m in r["misnamed"]) + " before") if r["misnamed"] else "it named every first one right"
    text = f"""# shapes — a Vision Transformer that finds the shape

A small Vision Transformer (Dosovitskiy et al., 2021) that names the one shape on a picture —
circle, square, triangle, cross or ring — trained on pictures its training script draws itself
and stored as a Hugging Face **ViTForImageClassification** folder (`config.json`,
`preprocessor_config.json`, `model.safetensors` in float32), so AttnViz opens it with the same
code as a downloaded ViT. Trained by `/usr/bin/python3 tools/train_demo_models.py shapes`
(seeded, CPU, {r['minutes']:.0f} min of training on 2 cores).

- **Pictures.** {SIZE} × {SIZE} RGB, drawn with numpy by `tools/shapes_demo.py`: a textured
  background (two random colours blended by a smooth random field, waves of a random direction,
  period of 4 to 12 pixels and colour, pixel noise) and one shape of a random colour far from
  the background's, upright, half-width {RADIUS[0]:.0f} to {RADIUS[1]:.0f} pixels, anywhere it
  fits whole, with soft edges (2 × 2 samples per pixel) and a faint light from above.
  `examples/` holds six held-out pictures (for file k the first picture of its class drawn
  from the seed ({EXAMPLE_SEED}, k) that the model names right — {misnamed});
  `examples/shapes.json` lists for each the patches the shape covers.
- **Model.** Patches of {PATCH} × {PATCH} pixels, a {GRID} × {GRID} grid: {GRID * GRID} patch
  tokens after the CLS token, {GRID * GRID + 1} in all, with learned positions.
  {sizes},
  q/k/v biases, a final LayerNorm and a linear classifier on the CLS token:
  {r['parameters']:,} parameters, {r['weights_bytes'] / 1024:.0f} KiB of weights. The picture is
  prepared as ViTImageProcessor prepares it: ×1/255, then (x − 0.5) / 0.5.
- **Training.** A pool of {r['pool']:,} pictures (seed {TRAIN_SEED}), each batch of {BATCH} drawn
  from it, each picture mirrored left to right at random (which keeps its class); position
  embeddings started from MAE's two-dimensional sines and cosines (He et al., 2022), everything
  else as ViTPreTrainedModel initialises it; {STEPS} steps of AdamW (lr {LEARNING_RATE},
  {WARMUP} warm-up steps, then a cosine to 0; betas 0.9, 0.98; weight decay {WEIGHT_DECAY} on
  the matrices; gradients clipped at 1). Final training loss {r['loss']:.3f}.
- **Result.** On {HELDOUT:,} held-out pictures (seed {HELDOUT_SEED}): accuracy
  **{r['accuracy']:.1%}** (on {HELDOUT:,} of its training pictures: {r['train_accuracy']:.1%});
  per class {", ".join(f"{k} {v:.1%}" for k, v in r['per_class'].items())}.

| true ╲ predicted | {" | ".join(LABELS)} |
|---|{"--:|" * len(LABELS)}
{confusion}

## Where the CLS token looks

A patch *covers the shape* when at least {COVERED:.0%} of its pixels are the shape's; on the
held-out pictures these are on average {a['area']:.1%} of the {GRID * GRID} patches. The CLS row
of the **attention rollout** (Abnar & Zuidema, 2020; heads averaged, no discard — AttnViz's
Experiments ▸ Attention rollout with its defaults), taken over the patches, puts
**{a['rollout']:.1%}** of its weight on them, {a['rollout'] / a['area']:.1f} times their share
of the area: more than that share on {a['rollout_above']:,} of the {HELDOUT:,} pictures, and its
largest patch is one of the shape's on {a['rollout_top']:,}. The last layer's CLS row, heads
averaged, puts {a['last']:.1%} there (more than the area share on {a['last_above']:,}).

| example | shape | predicted | shape patches | rollout on the shape | last layer on the shape |
|---|---|---|--:|--:|--:|
{example_rows}

## What the heads do

Over the {HELDOUT:,} held-out pictures. *CLS → shape*: the share of the CLS query's weight over
the patches that falls on the shape's patches, and that share over the shape's area share
(1× is no preference); *CLS → CLS*: its weight on itself. For the patch queries: *→ CLS*, the
weight on the CLS token; then, over the patch keys, *self* (its own patch), *near* (the 8
surrounding patches), *off → shape* (for patches off the shape, the share on the shape's
patches; the area share is {a['area']:.2f}) and *reach*, the mean attention distance in pixels
between patch centres (Dosovitskiy et al.'s figure 7; neighbours are {PATCH} or
{PATCH * math.sqrt(2):.1f} pixels away, the grid's mean distance is
{torch.cdist(patch_centres(), patch_centres()).mean():.1f}).

| layer | head | CLS → shape | lift | CLS → CLS | → CLS | self | near | off → shape | reach (px) | reading |
|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|
{head_rows}

{head_summary}

In AttnViz, open the model, choose a picture from `examples/`, and look at the first row (the
CLS query) of any head's weights drawn over the picture; Experiments ▸ Attention rollout shows
the rollout's CLS row the same way.

## Regenerate

```
/usr/bin/python3 tools/train_demo_models.py shapes
```

rewrites this folder and `tests/data/models/shapes/reference.safetensors` (every activation of a
float64 pass over `circle.png` and `cross.png`, for `tests/model/shapes_demo_test.cpp`).
"""
    (folder / "README.md").write_text(text)
