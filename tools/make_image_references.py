#!/usr/bin/python3
"""Pictures of every kind a Vision Transformer may be given, and what Pillow (Debian's
python3-pil) and Hugging Face's ViT preprocessing make of them, for
tests/io/image_preparation_test.cpp.

    /usr/bin/python3 tools/make_image_references.py

Writes tests/data/images/:
  <name>.png / <name>.jpg      the pictures: PNG of every colour type and bit depth (grey 1, 2,
                               4, 8 and 16 bits; grey + alpha 8 and 16; RGB 8 and 16; RGBA 8 and
                               16; palette with and without transparency), JPEG in RGB and grey,
                               written here byte by byte (PNG) or by Pillow (JPEG)
  bad/...                      what must be refused: a truncated PNG, a PNG whose header claims
                               more than 2^26 pixels, an animated PNG, a CMYK JPEG, a text file
  reference.safetensors        `<name>.rgb` [H, W, 3] uint8 as Pillow's convert("RGB") gives it,
                               and `<name>.<preparation>` [3, h, w] float32: the picture prepared
                               as transformers' ViTImageProcessor / DeiTImageProcessor prepare it
                               (Pillow's resize with the resample named, a centre crop, x / 255,
                               (x - mean) / std), for the preparations of PREPARATIONS

Deterministic: numpy's legacy RandomState, and nothing records a date.
"""
import io
import pathlib
import struct
import sys
import zlib

import numpy as np
from PIL import Image

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py as st  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "images"

# name: (resample, size (h, w), crop (h, w) or None, mean, std): ViT's default, DeiT's (resize to
# 256, crop 224), a bicubic enlargement, and one that needs no resize for the 24 x 32 pictures.
PREPARATIONS = {
    "vit": (2, (32, 32), None, [0.5] * 3, [0.5] * 3),
    "deit": (3, (40, 40), (32, 32), [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    "bicubic_up": (3, (50, 37), None, [0.5] * 3, [0.25] * 3),
    "same": (2, (24, 32), None, [0.0] * 3, [1.0] * 3),
}


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(width, height, colour, depth, rows, extra=b"", header_size=None):
    """A PNG written byte by byte: `rows` is a list of bytes, one per scanline, without the
    filter byte (filter 0 is used)."""
    w, h = header_size or (width, height)
    ihdr = struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0)
    raw = b"".join(b"\0" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def pack_bits(values, depth):
    """One scanline of `depth`-bit samples, most significant first."""
    if depth == 16:
        return b"".join(struct.pack(">H", int(v)) for v in values)
    if depth == 8:
        return bytes(int(v) for v in values)
    out, acc, n = bytearray(), 0, 0
    for v in values:
        acc = (acc << depth) | int(v)
        n += depth
        if n == 8:
            out.append(acc)
            acc, n = 0, 0
    if n:
        out.append(acc << (8 - n))
    return bytes(out)


def pictures(rng):
    """{name: bytes} of every picture to test, 24 x 32 (height x width)."""
    H, W = 24, 32
    out = {}
    for depth in (1, 2, 4, 8, 16):
        grey = rng.randint(0, 2 ** depth, (H, W))
        out[f"grey{depth}.png"] = png(W, H, 0, depth, [pack_bits(r, depth) for r in grey])
    for depth in (8, 16):
        ga = rng.randint(0, 2 ** depth, (H, W, 2))
        out[f"grey_alpha{depth}.png"] = png(W, H, 4, depth, [pack_bits(r.ravel(), depth) for r in ga])
        rgb = rng.randint(0, 2 ** depth, (H, W, 3))
        out[f"rgb{depth}.png"] = png(W, H, 2, depth, [pack_bits(r.ravel(), depth) for r in rgb])
        rgba = rng.randint(0, 2 ** depth, (H, W, 4))
        out[f"rgba{depth}.png"] = png(W, H, 6, depth, [pack_bits(r.ravel(), depth) for r in rgba])
    palette = rng.randint(0, 256, (16, 3)).astype(np.uint8)
    index = rng.randint(0, 16, (H, W))
    plte = chunk(b"PLTE", palette.tobytes())
    out["palette4.png"] = png(W, H, 3, 4, [pack_bits(r, 4) for r in index], plte)
    trns = chunk(b"tRNS", bytes(range(0, 256, 16)))
    out["palette_alpha8.png"] = png(W, H, 3, 8, [pack_bits(r, 8) for r in index], plte + trns)
    # A smooth picture, so that resampling shows its weights, as RGB and grey JPEG.
    y, x = np.mgrid[0:H, 0:W]
    smooth = np.stack([128 + 100 * np.sin(x / 5.0), 128 + 100 * np.cos(y / 4.0),
                       (x * 7 + y * 3) % 256], -1).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(smooth).save(buffer, "JPEG", quality=90)
    out["smooth.jpg"] = buffer.getvalue()
    buffer = io.BytesIO()
    Image.fromarray(smooth[..., 0]).save(buffer, "JPEG", quality=85)
    out["grey.jpg"] = buffer.getvalue()
    out["smooth.png"] = png(W, H, 2, 8, [r.tobytes() for r in smooth])
    return out


def bad_pictures(good):
    rng = np.random.RandomState(5)
    rows = [rng.randint(0, 256, 96).astype(np.uint8).tobytes() for _ in range(24)]
    whole = png(32, 24, 2, 8, rows)
    bad = {"truncated.png": whole[: len(whole) // 2],
           # The header claims 16384 x 16384 = 2^28 pixels; the data is tiny.
           "bomb.png": png(32, 24, 2, 8, rows, header_size=(16384, 16384)),
           "not_an_image.png": b"this is text, not a picture\n",
           "empty.jpg": b""}
    actl = chunk(b"acTL", struct.pack(">II", 2, 0))
    bad["animated.png"] = png(32, 24, 2, 8, rows, actl)
    cmyk = Image.new("CMYK", (8, 8), (10, 20, 30, 40))
    buffer = io.BytesIO()
    cmyk.save(buffer, "JPEG")
    bad["cmyk.jpg"] = buffer.getvalue()
    return bad


def resized(image, size, resample):
    """transformers' resize: Pillow's resize to (width, height), reducing_gap None."""
    h, w = size
    if image.size == (w, h):
        return image
    return image.resize((w, h), resample=resample)


def prepare(image, preparation):
    resample, size, crop, mean, std = preparation
    x = np.asarray(resized(image, size, resample)).astype(np.float32)  # [h, w, 3]
    if crop:
        top, left = (x.shape[0] - crop[0]) // 2, (x.shape[1] - crop[1]) // 2
        x = x[top:top + crop[0], left:left + crop[1]]
    x = x * np.float32(1 / 255)
    x = (x - np.array(mean, np.float32)) / np.array(std, np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1))


def main():
    rng = np.random.RandomState(2626)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bad").mkdir(exist_ok=True)
    tensors = {}
    for name, data in pictures(rng).items():
        (OUT / name).write_bytes(data)
        image = Image.open(io.BytesIO(data))
        rgb = image.convert("RGB")
        tensors[f"{name}.rgb"] = np.asarray(rgb).astype(np.uint8)
        for key, preparation in PREPARATIONS.items():
            tensors[f"{name}.{key}"] = prepare(rgb, preparation)
        print(f"{name}: Pillow mode {image.mode}")
    for name, data in bad_pictures(None).items():
        (OUT / "bad" / name).write_bytes(data)
    st.save(OUT / "reference.safetensors", dict(sorted(tensors.items())))


if __name__ == "__main__":
    main()
