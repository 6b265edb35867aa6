#!/usr/bin/python3
"""Trains AttnViz's demo models and writes the reference activations the C++ tests compare with.

Run with Debian's torch (tools/install-deps.sh --torch) and, for the text model, Debian's
bible-kjv package (the King James Bible, public domain):

    /usr/bin/python3 tools/train_demo_models.py [reverse] [genesis] [induction] [modern] [shapes] [test-models]

Writes
  resources/models/<name>/{config.json, vocab.json, model.safetensors, README.md}
  tests/data/models/<name>/reference.safetensors   every trace tensor for a few inputs, float64
                                                   forward stored as float32, `case{i}.` prefixed
  resources/models/<name>/heldout.txt              inputs never seen in training (reverse: with
                                                   answers; induction: passages written twice)
  resources/models/modern/...                      a Hugging Face Qwen2 folder with its own tokenizer
                                                   (tools/modern_demo.py says what it holds)
  resources/models/shapes/...                      a Hugging Face ViT classifying shapes on pictures
                                                   the script draws (tools/shapes_demo.py)
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


def train(name, model, steps, max_lr, pct_start, step_loss, weight_decay=0.01):
    """AdamW with a one-cycle schedule and gradient clipping; `step_loss()` draws a batch and
    returns its loss. Returns the last loss and the minutes taken."""
    opt = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=weight_decay)
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


# ---------------------------------------------------------------- induction (decoder-only)

INDUCTION_CONTEXT = 64
INDUCTION_MIN, INDUCTION_MAX = 16, 32  # length of the repeated passage
INDUCTION_STEPS = 1500
INDUCTION_LR = 1e-2


def repeat_window(text, start, offset, length, total=INDUCTION_CONTEXT + 1):
    """`total` characters of `text` from `start`, in which the passage of `length` characters at
    `offset` is written twice in a row before the text goes on."""
    head = text[start : start + offset + length]
    return head + head[offset:] + text[start + offset + length : start + total - length]


def find_repeat(line):
    """(offset, length) of the longest passage of INDUCTION_MIN–INDUCTION_MAX characters that is
    written twice in a row, the first such place; None when there is none. Recovers how a window
    of repeat_window was made (tests/model/induction_model_test.cpp does the same)."""
    for length in range(INDUCTION_MAX, INDUCTION_MIN - 1, -1):
        for offset in range(0, len(line) - 2 * length + 1):
            if line[offset : offset + length] == line[offset + length : offset + 2 * length]:
                return offset, length
    return None


def repeat_spans(offset, length):
    """Positions t (the token read) whose next token lies in the first copy of the passage, and
    those whose next token lies in the repeat, leaving out each copy's first character (nothing
    in the window predicts it); the same number of each."""
    first = range(offset, offset + length - 1)
    repeat = range(offset + length, offset + 2 * length - 1)
    return list(first), list(repeat)


def induction_measures(model, vocab, texts):
    """Per head and layer, averaged over the texts (each has a passage written twice, find_repeat):
      prev       mean weight on the previous token, over every position (prev2: two back);
      induction  on the repeat, the weight on every position that follows an earlier occurrence
                 of the current token (characters recur, so there can be several);
      copy       on the repeat, the weight on the one token to copy: the successor of the current
                 token's occurrence in the first copy.
    Also next-token loss and accuracy on the first copy of the passage and on the repeat."""
    L_count, H = model.cfg["decoder_layers"], model.cfg["num_heads"]
    prev = torch.zeros(L_count, H)
    prev2 = torch.zeros(L_count, H)
    induction = torch.zeros(L_count, H)
    copy = torch.zeros(L_count, H)
    stats = {"first": [0.0, 0, 0], "repeat": [0.0, 0, 0]}  # loss sum, correct, count
    with torch.no_grad():
        for text in texts:
            offset, length = find_repeat(text)
            ids = vocab.encode(text)
            x = torch.tensor([ids[:-1]])
            rec = {}
            logits = model(target=x, rec=rec)[0]
            n = len(ids)
            first, repeat = repeat_spans(offset, length)
            # t reads ids[t] and predicts ids[t + 1]; in the repeat ids[t] = ids[t - length], so the
            # token to copy sits at t - length + 1
            q = torch.tensor(repeat)
            token = torch.tensor(ids[:-1])
            # follows[t, j]: position j comes right after an earlier occurrence of token t
            follows = torch.zeros(n - 1, n - 1)
            follows[:, 1:] = (token[:, None] == token[None, :-1]).float()
            follows = follows.tril(-1)
            for L in range(L_count):
                w = rec[f"layer{L}.masked_self.weights"][0]
                N = w.shape[-1]
                idx = torch.arange(1, N)
                prev[L] += w[:, idx, idx - 1].mean(-1)
                prev2[L] += w[:, idx[1:], idx[1:] - 2].mean(-1)
                induction[L] += (w[:, q] * follows[q]).sum(-1).mean(-1)
                copy[L] += w[:, q, q - length + 1].mean(-1)
            for name, span in (("first", first), ("repeat", repeat)):
                t = torch.tensor(span)
                y = torch.tensor(ids)[t + 1]
                stats[name][0] += float(F.cross_entropy(logits[t], y, reduction="sum"))
                stats[name][1] += int((logits[t].argmax(-1) == y).sum())
                stats[name][2] += len(span)
    k = len(texts)
    halves = {name: (s[0] / s[2], s[1] / s[2]) for name, s in stats.items()}
    return prev / k, prev2 / k, induction / k, copy / k, halves


def train_induction():
    # The matrices are tiny: a second thread only adds synchronisation (on a busy machine, where
    # OpenMP spin-waits for a core, a step took ten times as long with two).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.manual_seed(13)
    rng = random.Random(13)
    text = genesis_text()
    vocab = Vocabulary(sorted(set(text)))
    context = INDUCTION_CONTEXT
    example = "abram went down into egypt; abram went down into egypt"
    cfg = base_config(
        name="induction",
        description="Two-layer attention-only model trained on Genesis passages written twice. "
                    "Layer 0 head 3 looks at the previous character, so each position knows "
                    "\"my predecessor was X\". Layer 1 head 1, an induction head, uses that as its "
                    "key: at a repeated X its query finds the character that followed the earlier "
                    "X, and the model predicts it. Its softmax step explains the circuit.",
        architecture="decoder-only", encoder_layers=0, decoder_layers=2, d_ff=1,
        positional="learned", max_length=context, vocab_size=len(vocab.tokens),
        bos_token=None, eos_token=None, example={"text": example},
    )
    model = Transformer(cfg)
    # Attention only: the format requires a feed-forward block, so it gets width 1 and weights
    # that are zero and never trained — it adds exactly nothing to the residual stream.
    with torch.no_grad():
        for key, p in model.named_parameters():
            if "dec_ffn" in key:
                if "dec_ffn_norm" not in key:
                    p.zero_()
                p.requires_grad_(False)
    split = int(len(text) * 0.95)
    train_text, valid_text = text[:split], text[split:]

    def window(source):
        length = rng.randint(INDUCTION_MIN, INDUCTION_MAX)
        offset = rng.randint(0, context + 1 - 2 * length)
        start = rng.randrange(0, len(source) - context - 1)
        return repeat_window(source, start, offset, length), offset, length

    heldout = []  # only windows whose passage find_repeat recovers (natural text rarely repeats)
    while len(heldout) < 200:
        w, offset, length = window(valid_text)
        if find_repeat(w) == (offset, length):
            heldout.append(w)
    (MODELS / "induction").mkdir(parents=True, exist_ok=True)
    (MODELS / "induction" / "heldout.txt").write_text("".join(w + "\n" for w in heldout))

    steps = INDUCTION_STEPS
    batch_size = 32

    def step_loss():
        ids = torch.tensor([vocab.encode(window(train_text)[0]) for _ in range(batch_size)])
        logits = model(target=ids[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))

    loss_value, minutes = train("induction", model, steps, INDUCTION_LR, 0.1, step_loss)
    model.eval()
    prev, prev2, induction, copy, halves = induction_measures(model, vocab, heldout)
    print(f"induction: train loss {loss_value:.4f}, {minutes:.1f} min", flush=True)
    for name, (loss, acc) in halves.items():
        print(f"  {name}: loss {loss:.3f} acc {acc:.3f}", flush=True)

    # What `attnviz-cli importance --model induction` measures: the mean next-token loss on
    # heldout.txt with every head on, and with one head's columns of the output projection zeroed.
    def heldout_loss():
        total, count = 0.0, 0
        with torch.no_grad():
            for line in heldout:
                ids = torch.tensor([vocab.encode(line)])
                logits = model(target=ids[:, :-1])
                total += float(F.cross_entropy(logits[0], ids[0, 1:], reduction="sum"))
                count += ids.shape[1] - 1
        return total / count

    baseline = heldout_loss()
    importance = []
    dk = cfg["d_model"] // cfg["num_heads"]
    for L in range(cfg["decoder_layers"]):
        for h in range(cfg["num_heads"]):
            weight = model.decoder.layers[L]["masked_self"].o_proj.weight
            kept = weight.detach().clone()
            with torch.no_grad():
                weight[:, h * dk:(h + 1) * dk] = 0
            importance.append((heldout_loss(), L, h))
            with torch.no_grad():
                weight.copy_(kept)
    importance.sort(key=lambda r: -r[0])
    for loss, L, h in importance:
        print(f"  without layer {L} head {h}: loss {loss:.3f} (+{loss - baseline:.3f})", flush=True)

    prev_head = int(prev[0].argmax())
    ind_head = int(copy[1].argmax())
    assert f"Layer 0 head {prev_head} " in cfg["description"], "update the description's heads"
    assert f"Layer 1 head {ind_head}," in cfg["description"], "update the description's heads"

    def switched_off(L, h):
        weight = model.decoder.layers[L]["masked_self"].o_proj.weight
        kept = weight.detach().clone()
        with torch.no_grad():
            weight[:, h * dk:(h + 1) * dk] = 0
        result = induction_measures(model, vocab, heldout)[-1]
        with torch.no_grad():
            weight.copy_(kept)
        return result

    ablation_rows = [("none", halves), (f"0:{prev_head}", switched_off(0, prev_head)),
                     (f"1:{ind_head}", switched_off(1, ind_head))]
    ablation_table = "\n".join(
        f"| {name} | {r['first'][1] * 100:.1f} % | {r['repeat'][1] * 100:.1f} % |"
        for name, r in ablation_rows)

    def predictions(line):
        """The line, and under each character the model's guess for it (from the one before)."""
        with torch.no_grad():
            logits = model(target=torch.tensor([vocab.encode(line)]))
        return line + "\n" + " " + vocab.decode(logits[0, :-1].argmax(-1).tolist())

    made_up = "then said he: dorbin smeet calloway; dorbin smeet calloway;"

    folder = MODELS / "induction"
    save_model(folder, cfg, vocab, model, safetensors_py.save)
    cases = [{"target": vocab.encode(t), "target_tokens": list(t)}
             for t in [example, heldout[0][:-1]]]
    write_reference("induction", model, cases)

    head_table = "\n".join(
        f"| {L} | {h} | {prev[L, h]:.2f} | {prev2[L, h]:.2f} | {induction[L, h]:.2f} | {copy[L, h]:.2f} |"
        for L in range(cfg["decoder_layers"]) for h in range(cfg["num_heads"]))
    importance_table = "\n".join(
        f"| {L}:{h} | {loss:.3f} | +{loss - baseline:.3f} |" for loss, L, h in importance)
    (folder / "README.md").write_text(f"""# induction — a two-layer attention-only model with an induction head

Predicts the next character of Genesis passages that repeat. Trained by
`/usr/bin/python3 tools/train_demo_models.py induction` (seeded, CPU, {minutes:.1f} min on 2 cores).
Nobody told it how to use the repeat: two heads in different layers learned to work together as
an **induction head**, the circuit described by Olsson et al. (2022, *In-context Learning and
Induction Heads*).

## What to look at

Open the model (its example is "{example}"), go to the softmax step and choose layer 0, then
layer 1 (or open the overview to see both).

- **Layer 0, head {prev_head}** is a *previous-token head*: on average {prev[0, prev_head]:.2f} of each row's
  weight sits one column left of the diagonal. It writes into each position's residual stream
  "the character before me was X".
- **Layer 1, head {ind_head}** is the *induction head*. On the second "{example.split(';')[0].strip()}", the row of
  each character lights up one column to the right of where that same character stood in the
  first copy — on the character that came **next** last time. Its output is that character, and
  it becomes the prediction.

How the two heads fit together, at the `g` of the second `egypt` in the example:

1. In layer 0 the previous-token head copies what each position's predecessor is into that
   position. After it, the `y` of the first `egypt` carries "my previous character was `g`".
2. In layer 1 the induction head's **query** at the second `g` asks "who comes after a `g`?";
   its **key** at every position says "my previous character was …" (read from what layer 0
   wrote). Query and key match at the first `y`: its previous character was `g`.
3. The head's **value** at that position is the character itself, `y`, so the head's output is
   "`y`", and the model predicts `y` next. One step later the current character is `y`, the
   query matches the first `p`, and so on down the passage.

Neither head can do this alone: a single layer has no way to ask "whose predecessor matches
me?", because before layer 0 no position knows its predecessor. That is why induction needs two
layers, and why the keys of layer 1 are built from layer 0's output (K-composition).

One character is rarely enough: a space occurs four times in the first copy of the example, so
a key "my previous character was a space" matches four places. Other layer-0 heads look one and
two characters back (`prev`, `prev2` below), so a key can also say what came before that, and
query and key can agree on two characters at once. The `copy` column shows the effect: most of
the induction head's weight lands on the one right place, not spread over every earlier
occurrence of the character. The first character or two of a repeat, before enough context has
been repeated, are where it still guesses wrong.

What a student might not guess: nothing in the training told the model to look for repeats,
and the copying is not tied to Genesis — it also copies made-up words it never saw (below). It
learned an algorithm, "find where this context occurred before and say what came next", not
a memory of the text.

## Data

- The Book of Genesis, King James Version (public domain), from Debian's `bible-kjv` package,
  prepared as for the `genesis` model ({len(text):,} characters; the last 5 % held out).
- Every training window is {context + 1} characters of Genesis from a random place, in which a
  passage of L characters (L drawn from {INDUCTION_MIN}–{INDUCTION_MAX}, starting anywhere that leaves room) is
  written twice in a row before the text goes on. The model reads {context} characters and
  predicts each next one. The first copy can only be guessed from English spelling; the repeat
  is predictable by looking back. (A first attempt always put the repeat at the end of the
  window; the model then copied only in the second half of its context, where the repeats had
  always been. Repeats at every position made it copy wherever they occur.)
- `heldout.txt`: {len(heldout)} windows built the same way from the held-out 5 %, one per line; the
  measures below find the passage as the longest one written twice in a row.

## Architecture and training

- Decoder-only, {cfg['decoder_layers']} layers, d_model {cfg['d_model']}, {cfg['num_heads']} heads (d_k {dk}), pre-norm with final
  LayerNorm, learned positions, context {context} characters, {len(vocab.tokens)} character tokens.
- Attention only: the model format requires a feed-forward block in every layer, so it has
  d_ff 1 with weights fixed at zero (never trained) — the feed-forward blocks add exactly nothing.
- Training: {steps} steps of {batch_size} windows, AdamW (lr {INDUCTION_LR:g}, one-cycle, weight decay
  0.01), cross-entropy on every next character; final training loss {loss_value:.3f} nats/char.

## Results on heldout.txt

Next-character loss and accuracy on the passage's first copy and on its repeat (each copy's
first character left out, {INDUCTION_MIN - 1}–{INDUCTION_MAX - 1} predictions per copy):

| | loss (nats) | accuracy |
|---|--:|--:|
| first copy | {halves['first'][0]:.3f} | {halves['first'][1] * 100:.1f} % |
| repeat | {halves['repeat'][0]:.3f} | {halves['repeat'][1] * 100:.1f} % |

Heads, averaged over the lines of heldout.txt:

- `prev`: mean weight on the previous character, over every position; `prev2`: the same for
  the character two back;
- `induction`: on the repeat, the weight on every position that follows an earlier occurrence
  of the current character (a character usually occurs several times before, so a head that
  matches on one character alone spreads its weight over all of them);
- `copy`: on the repeat, the weight on the one character to copy — the successor of the current
  character's place in the first copy. A head can only put much weight here by matching more than
  one character of context.

| layer | head | prev | prev2 | induction | copy |
|--:|--:|--:|--:|--:|--:|
{head_table}

Head importance, `attnviz-cli importance --model induction` (mean next-character loss on
heldout.txt with one head switched off; with every head on: {baseline:.3f}):

| head | loss | harm |
|--:|--:|--:|
{importance_table}

Next-character accuracy with one head of the circuit switched off:

| switched off | first copy | repeat |
|---|--:|--:|
{ablation_table}

Without the induction head the repeat is predicted no better than the first copy, and the first
copy is as before: the head does nothing else. The previous-token head also helps with ordinary
spelling, so switching it off hurts both copies, the repeat the most.

What the model expects at each character (second line: its guess for the character above,
made from everything before it), on the example and on made-up words it never saw:

```
{predictions(example)}

{predictions(made_up)}
```

The C++ test `tests/model/induction_model_test.cpp` measures the same numbers with AttnViz's
engine.
""")
    torch.set_num_threads(threads)
    return prev, prev2, induction, copy, halves


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
    which = sys.argv[1:] or ["reverse", "genesis", "induction", "modern", "shapes",
                              "test-models"]
    if "test-models" in which:
        test_models()
    if "reverse" in which:
        train_reverse()
    if "genesis" in which:
        train_genesis()
    if "induction" in which:
        train_induction()
    if "modern" in which:
        from modern_demo import train_modern
        train_modern(train)
    if "shapes" in which:
        from shapes_demo import train_shapes
        train_shapes()
