#!/usr/bin/python3
"""Trains AttnViz's demo models and writes the reference activations the C++ tests compare with.

Run with Debian's torch (tools/install-deps.sh --torch) and, for the text model, Debian's
bible-kjv package (the King James Bible, public domain):

    /usr/bin/python3 tools/train_demo_models.py [reverse] [genesis] [test-models]

Writes
  resources/models/<name>/{config.json, vocab.json, model.safetensors, README.md}
  tests/data/models/<name>/reference.safetensors   every trace tensor for a few inputs, float64
                                                   forward stored as float32, `case{i}.` prefixed
  resources/models/reverse/heldout.txt            inputs never seen in training, with answers
  tests/data/models/<test model>/...               small untrained models covering the options
                                                   the demos do not use (post-norm, tanh GELU, ...)
Everything is seeded; the README beside each model records data, steps, loss and accuracy.
"""
import json
import math
import pathlib
import random
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py  # noqa: E402
from transformer_py import Transformer, Vocabulary, save_model  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = ROOT / "resources" / "models"
REFERENCES = ROOT / "tests" / "data" / "models"
PAD, BOS, EOS = "<pad>", "<s>", "</s>"

torch.set_num_threads(2)


def base_config(**overrides):
    cfg = {
        "format": "attnviz-model",
        "format_version": 1,
        "name": "",
        "description": "",
        "architecture": "encoder-decoder",
        "vocab_size": 0,
        "d_model": 64,
        "num_heads": 4,
        "d_ff": 256,
        "encoder_layers": 2,
        "decoder_layers": 2,
        "activation": "relu",
        "norm": "pre",
        "final_norm": True,
        "positional": "sinusoidal",
        "max_length": 32,
        "scale_embedding": False,
        "layer_norm_eps": 1e-5,
        "bias": True,
        "tokenizer": "char",
        "bos_token": BOS,
        "eos_token": EOS,
    }
    cfg.update(overrides)
    return cfg


def write_reference(name, model, cases, extra_metadata=None):
    """cases: list of dicts with 'source' and/or 'target' token id lists (+ texts for metadata)."""
    model = model.double().eval()
    tensors, metadata = {}, {"cases": str(len(cases)), **(extra_metadata or {})}
    with torch.no_grad():
        for i, case in enumerate(cases):
            rec = {}
            src = torch.tensor([case["source"]]) if "source" in case else None
            tgt = torch.tensor([case["target"]]) if "target" in case else None
            model(source=src, target=tgt, rec=rec)
            for key, value in rec.items():
                tensors[f"case{i}.{key}"] = value.float().numpy()
            metadata[f"case{i}.source"] = json.dumps(case.get("source_tokens", []), ensure_ascii=False)
            metadata[f"case{i}.target"] = json.dumps(case.get("target_tokens", []), ensure_ascii=False)
    folder = REFERENCES / name
    folder.mkdir(parents=True, exist_ok=True)
    safetensors_py.save(folder / "reference.safetensors", tensors, metadata)
    model.float()


def train(name, model, steps, max_lr, pct_start, step_loss):
    """AdamW with a one-cycle schedule and gradient clipping; `step_loss()` draws a batch and
    returns its loss. Returns the last loss and the minutes taken."""
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=max_lr, total_steps=steps, pct_start=pct_start)
    start = time.time()
    loss_value = float("nan")
    for step in range(steps):
        loss = step_loss()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        loss_value = float(loss)
        if step % 500 == 0:
            print(f"{name} step {step} loss {loss_value:.4f}", flush=True)
    return loss_value, (time.time() - start) / 60


def greedy_reverse(model, vocab, text, max_len):
    src = torch.tensor([vocab.encode(text)])
    out = [vocab.index[BOS]]
    with torch.no_grad():
        for _ in range(max_len):
            logits = model(source=src, target=torch.tensor([out]))
            nxt = int(logits[0, -1].argmax())
            if nxt == vocab.index[EOS]:
                break
            out.append(nxt)
    return vocab.decode(out[1:])


# ---------------------------------------------------------------- reverse (encoder-decoder)

REVERSE_LETTERS = "abcdefghijklmnopqrstuvwxyz"
REVERSE_MIN, REVERSE_MAX = 3, 12


def train_reverse():
    rng = random.Random(7)
    torch.manual_seed(7)
    vocab = Vocabulary([PAD, BOS, EOS] + list(REVERSE_LETTERS))
    cfg = base_config(
        name="reverse",
        description="Encoder-decoder trained to write a string of letters backwards; "
                    "its cross-attention is an anti-diagonal.",
        vocab_size=len(vocab.tokens), max_length=REVERSE_MAX + 2,
        example={"text": "attention", "target": "noitnetta"},
    )
    model = Transformer(cfg)

    def sample():
        n = rng.randint(REVERSE_MIN, REVERSE_MAX)
        return "".join(rng.choice(REVERSE_LETTERS) for _ in range(n))

    heldout = set()
    while len(heldout) < 500:
        heldout.add(sample())
    heldout = sorted(heldout)

    def batch(size):
        texts = []
        while len(texts) < size:
            t = sample()
            if t not in heldout:
                texts.append(t)
        Ns = max(len(t) for t in texts)
        Nt = Ns + 1
        src = torch.full((size, Ns), vocab.index[PAD])
        tin = torch.full((size, Nt), vocab.index[PAD])
        tout = torch.full((size, Nt), -100)
        for b, t in enumerate(texts):
            ids = vocab.encode(t)
            rev = vocab.encode(t[::-1])
            src[b, : len(ids)] = torch.tensor(ids)
            tin[b, : len(ids) + 1] = torch.tensor([vocab.index[BOS]] + rev)
            tout[b, : len(ids) + 1] = torch.tensor(rev + [vocab.index[EOS]])
        return src, src == vocab.index[PAD], tin, tout

    steps = 1500

    def step_loss():
        src, pad, tin, tout = batch(128)
        logits = model(source=src, target=tin, source_pad=pad)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tout.reshape(-1), ignore_index=-100)

    loss_value, minutes = train("reverse", model, steps, 1e-3, 0.1, step_loss)
    model.eval()
    correct = sum(greedy_reverse(model, vocab, t, REVERSE_MAX + 1) == t[::-1] for t in heldout)
    accuracy = correct / len(heldout)
    print(f"reverse: final loss {loss_value:.4f}, held-out exact {accuracy:.3f}", flush=True)

    folder = MODELS / "reverse"
    save_model(folder, cfg, vocab, model, safetensors_py.save)
    ref = REFERENCES / "reverse"
    ref.mkdir(parents=True, exist_ok=True)
    (folder / "heldout.txt").write_text("".join(f"{t}\t{t[::-1]}\n" for t in heldout))
    cases = []
    for text in ["attention", "abc", "transformer"]:
        target = [vocab.index[BOS]] + vocab.encode(text[::-1])
        cases.append({"source": vocab.encode(text), "target": target,
                      "source_tokens": list(text), "target_tokens": [BOS] + list(text[::-1])})
    write_reference("reverse", model, cases)
    (folder / "README.md").write_text(f"""# reverse — encoder-decoder demo model

Writes a string of lowercase letters backwards: `attention` → `noitnetta`. Trained by
`/usr/bin/python3 tools/train_demo_models.py reverse` (seeded, CPU, {minutes:.1f} min on 2 cores).

- Architecture: encoder-decoder, {cfg['encoder_layers']} + {cfg['decoder_layers']} layers, d_model {cfg['d_model']},
  {cfg['num_heads']} heads, d_ff {cfg['d_ff']}, ReLU, pre-norm with final LayerNorm, sinusoidal positions.
- Vocabulary: `<pad>`, `<s>`, `</s>` and the 26 letters, one token a character.
- Data: random strings of {REVERSE_MIN}–{REVERSE_MAX} letters drawn on the fly; {len(heldout)} held-out strings
  (`resources/models/reverse/heldout.txt`) never appear in training.
- Training: {steps} steps of 128 strings, AdamW (lr 1e-3, one-cycle, weight decay 0.01), cross-entropy
  on the target followed by `</s>`.
- Final training loss: {loss_value:.4f}. Greedy decoding, exact-sequence accuracy on the held-out
  strings: {accuracy * 100:.1f} % ({correct}/{len(heldout)}).

What to look at: the cross-attention weights of the last decoder layer. Output position i attends
to input position n − 1 − i, an anti-diagonal: the decoder reads the input backwards.
""")
    return accuracy


# ---------------------------------------------------------------- genesis (decoder-only)

def genesis_text():
    """The Book of Genesis (KJV) from Debian's bible-kjv, verse references removed, lowercase."""
    out = subprocess.run(["bible", "-f", "gen1:1-gen50:26"], capture_output=True, text=True, check=True).stdout
    verses = []
    for line in out.splitlines():
        line = line.strip()
        if not line or ":" not in line.split(" ", 1)[0]:
            continue
        verses.append(line.split(" ", 1)[1] if " " in line else "")
    text = " ".join(verses).lower()
    allowed = set("abcdefghijklmnopqrstuvwxyz .,;:?!'")
    return "".join(c for c in text if c in allowed)


def write_genesis_heldout(valid_text):
    """The validation 5 % as resources/models/genesis/heldout.txt, one line per 64 characters
    (the model's context), for `attnviz-cli importance` and the app's head-importance view."""
    lines = [valid_text[i:i + 64] for i in range(0, len(valid_text), 64)]
    (MODELS / "genesis").mkdir(parents=True, exist_ok=True)
    (MODELS / "genesis" / "heldout.txt").write_text("".join(line + "\n" for line in lines))


def head_patterns(model, vocab, text, context):
    """Per layer and head: mean weight on the previous token, and mean distance attended back."""
    ids = torch.tensor([vocab.encode(text[:context])])
    rec = {}
    with torch.no_grad():
        model(target=ids, rec=rec)
    rows = []
    for L in range(model.cfg["decoder_layers"]):
        w = rec[f"layer{L}.masked_self.weights"][0]  # [H, N, N]
        N = w.shape[-1]
        idx = torch.arange(N)
        for h in range(w.shape[0]):
            prev = w[h, idx[1:], idx[:-1]].mean().item()
            dist = (w[h] * (idx[:, None] - idx[None, :]).clamp(min=0)).sum(-1)[8:].mean().item()
            rows.append((L, h, prev, dist))
    return rows


def train_genesis():
    torch.manual_seed(11)
    rng = random.Random(11)
    text = genesis_text()
    chars = sorted(set(text))
    vocab = Vocabulary(chars)
    context = 64
    cfg = base_config(
        name="genesis",
        description="Character-level decoder-only model trained on the Book of Genesis (KJV); "
                    "one head follows the previous character, others look further back.",
        architecture="decoder-only", encoder_layers=0, decoder_layers=3, activation="gelu",
        positional="learned", max_length=context, vocab_size=len(chars), bos_token=None, eos_token=None,
        example={"text": "and god said, let there be light: and there was light."},
    )
    model = Transformer(cfg)
    data = torch.tensor(vocab.encode(text))
    split = int(len(data) * 0.95)
    train_text, valid = data[:split], data[split:]
    write_genesis_heldout(text[split:])

    def batch(source, size):
        starts = [rng.randrange(0, len(source) - context - 1) for _ in range(size)]
        x = torch.stack([source[s : s + context] for s in starts])
        y = torch.stack([source[s + 1 : s + context + 1] for s in starts])
        return x, y

    steps = 2500

    def step_loss():
        x, y = batch(train_text, 48)
        logits = model(target=x)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))

    loss_value, minutes = train("genesis", model, steps, 2e-3, 0.05, step_loss)
    model.eval()
    with torch.no_grad():
        losses, accs = [], []
        for _ in range(40):
            x, y = batch(valid, 64)
            logits = model(target=x)
            losses.append(float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))))
            accs.append(float((logits.argmax(-1) == y).float().mean()))
    valid_loss, valid_acc = sum(losses) / len(losses), sum(accs) / len(accs)
    print(f"genesis: train loss {loss_value:.4f}, valid loss {valid_loss:.4f}, next-char acc {valid_acc:.3f}", flush=True)

    patterns = head_patterns(model, vocab, cfg["example"]["text"], context)
    table = "\n".join(f"| {L} | {h} | {prev:.2f} | {dist:.1f} |" for L, h, prev, dist in patterns)
    prompt = "and god said"
    ids = vocab.encode(prompt)
    with torch.no_grad():
        for _ in range(60):
            logits = model(target=torch.tensor([ids[-context:]]))
            ids.append(int(logits[0, -1].argmax()))
    sample = vocab.decode(ids)

    folder = MODELS / "genesis"
    save_model(folder, cfg, vocab, model, safetensors_py.save)
    cases = []
    for t in [cfg["example"]["text"], "in the beginning"]:
        cases.append({"target": vocab.encode(t), "target_tokens": list(t)})
    write_reference("genesis", model, cases, {"greedy.prompt": prompt, "greedy.output": sample})
    (folder / "README.md").write_text(f"""# genesis — character-level decoder-only demo model

Predicts the next character of English in the style of the King James Bible. Trained by
`/usr/bin/python3 tools/train_demo_models.py genesis` (seeded, CPU, {minutes:.1f} min on 2 cores).

- Data: the Book of Genesis, King James Version (public domain), from Debian's `bible-kjv`
  package; verse references removed, lowercased, only letters, space and `.,;:?!'` kept
  ({len(text):,} characters; the last 5 % held out for validation).
- Architecture: decoder-only, {cfg['decoder_layers']} layers, d_model {cfg['d_model']}, {cfg['num_heads']} heads, d_ff {cfg['d_ff']},
  exact GELU, pre-norm with final LayerNorm, learned positions, context {context} characters.
- Training: {steps} steps of 48 windows of {context} characters, AdamW (lr 2e-3, one-cycle).
- Final training loss {loss_value:.3f} nats/char; validation loss {valid_loss:.3f}, next-character
  accuracy {valid_acc * 100:.1f} %.
- Greedy continuation of "{prompt}": "{sample}"

Heads on the example sentence (`prev`: mean weight on the previous character; `reach`: mean
number of characters looked back, from the 9th character on):

| layer | head | prev | reach |
|--:|--:|--:|--:|
{table}

A head with `prev` near 1 copies the previous character (the classic previous-token head); heads
with a large reach look back over whole words, often at spaces and word starts.
""")
    return patterns


# ---------------------------------------------------------------- untrained test models

def test_models():
    """Small random models for the options the demos leave out; references only, no training."""
    torch.manual_seed(3)
    letters = list("abcdefgh")
    vocab = Vocabulary([PAD, BOS, EOS] + letters)
    variants = {
        "postnorm_tanh": base_config(name="postnorm_tanh", norm="post", final_norm=False,
                                     activation="gelu_tanh", d_model=24, num_heads=3, d_ff=40,
                                     encoder_layers=2, decoder_layers=1, scale_embedding=True,
                                     vocab_size=len(vocab.tokens), max_length=12),
        "encoder_only": base_config(name="encoder_only", architecture="encoder-only",
                                    decoder_layers=0, encoder_layers=2, positional="learned",
                                    activation="gelu", d_model=16, num_heads=2, d_ff=32, bias=False,
                                    vocab_size=len(vocab.tokens), max_length=12, bos_token=None,
                                    eos_token=None),
        "decoder_postnorm": base_config(name="decoder_postnorm", architecture="decoder-only",
                                        encoder_layers=0, decoder_layers=2, norm="post",
                                        final_norm=False, positional="none", d_model=20,
                                        num_heads=5, d_ff=24, vocab_size=len(vocab.tokens),
                                        max_length=12, bos_token=None, eos_token=None),
    }
    for name, cfg in variants.items():
        model = Transformer(cfg)
        with torch.no_grad():  # LayerNorm starts as the identity affine map; make it visible
            for key, p in model.named_parameters():
                if "norm" in key:
                    p.add_(0.3 * torch.randn_like(p))
        folder = REFERENCES / name
        save_model(folder, cfg, vocab, model, safetensors_py.save)
        cases = []
        for text in ["abcde", "hgfedcba"]:
            case = {}
            if cfg["architecture"] != "decoder-only":
                case.update(source=vocab.encode(text), source_tokens=list(text))
            if cfg["architecture"] != "encoder-only":
                tgt = text[::-1][:6]
                case.update(target=vocab.encode(tgt), target_tokens=list(tgt))
            cases.append(case)
        write_reference(name, model, cases)
        print(f"test model {name} written", flush=True)


if __name__ == "__main__":
    which = sys.argv[1:] or ["reverse", "genesis", "test-models"]
    if "test-models" in which:
        test_models()
    if "reverse" in which:
        train_reverse()
    if "genesis" in which:
        train_genesis()
