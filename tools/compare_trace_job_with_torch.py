#!/usr/bin/python3
"""`attnviz-cli trace --steps weights --dump` against the same job in PyTorch, each a process timed
from start to exit: a GPT-2-small-shaped folder at 1024 tokens (issue #28), a Llama-3.2-1B-shaped
checkpoint at 1024 tokens, and SmolLM2-135M at 2048 tokens (issue #24, docs/performance.md
"Real size: Llama 3.2 1B and SmolLM2 135M" and "Whole jobs against PyTorch").

    /usr/bin/python3 tools/compare_trace_job_with_torch.py [--build build/release]
        [--rounds 3] [--skip-gpt2] [--skip-llama] [--skip-smollm2] [--smollm2-torch]
        [--max-rss-gib 16]

GPT-2 small: the folder of tools/compare_real_size_with_torch.py (/tmp/attnviz-gpt2-small, F32,
GPT-2's vocabulary), 1024 words of compare_real_size_with_torch.text_of_tokens, each one GPT-2
token; PyTorch's job reads the F32 tensors and runs that script's GPT-2 forward.

What it does:
1. Writes the folders with tools/make_real_size_llama.py (/tmp/attnviz-llama-1b, 2.47 GB, and
   /tmp/attnviz-smollm2-135m, 0.27 GB) unless they are already there.
2. Llama 3.2 1B, 1024 tokens: the text is "The" and 1022 common words, each one Llama 3 token
   with its space (compare_real_size_with_torch.text_of_tokens), after the tokenizer's BOS.
   Alternates, round by round, two processes, each timed from start to exit (wall time; peak RSS
   from /usr/bin/time):
   (a) attnviz-cli trace --model DIR --text TEXT --steps weights --dump OUT --threads 2 --quiet
   (b) the PyTorch job, this script with --torch-job: import torch, read model.safetensors (BF16
       -> float32, as `from_pretrained(torch_dtype=float32)` holds it), run Llama's forward written
       out below in float32 with 2 threads, keep every layer's attention weights as
       `output_attentions=True` returns them, and write them as F32 [1, H, N, N] tensors named as
       AttnViz names them to a safetensors file.
   Prints each round and the medians, the per-round ratio AttnViz / PyTorch, the sizes written,
   and the largest difference between the two files' maps (every layer, every head).
3. SmolLM2 135M, 2048 tokens (no BOS): attnviz-cli only (--smollm2-torch adds the PyTorch job
   and the comparison): wall time, peak RSS, bytes written.

A process whose resident memory passes --max-rss-gib is killed (reported, not retried), so a run
that would thrash the machine stops instead. The page cache is warmed by reading each checkpoint
once before the rounds, so both sides read it from memory.

Needs Debian's torch and libopenblas0-openmp (tools/install-deps.sh --torch) and a release build
of attnviz-cli.
"""
import argparse
import json
import math
import os
import pathlib
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import make_real_size_llama  # noqa: E402
from compare_real_size_with_torch import blas_library, text_of_tokens  # noqa: E402

THREADS = 2
GIB = 1 << 30


# ---------------------------------------------------------------------------------------------
# Token ids in Python, to give the PyTorch job the ids AttnViz reads (and check them against the
# ids AttnViz writes in its dump's metadata). Valid for text_of_tokens' texts only: every word is
# one piece of the vocabulary with its leading space.


def token_ids(folder, text):
    if not (folder / "tokenizer.json").exists():  # GPT-2's vocab.json: "Ġ" marks the space
        vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
        return [vocab[w.replace(" ", "Ġ")] for w in re.findall(r" ?\S+", text)]
    tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = tokenizer["model"]["vocab"]
    ids = [vocab[w.replace(" ", "Ġ")] for w in re.findall(r" ?\S+", text)]
    post = tokenizer.get("post_processor") or {}
    for p in post.get("processors", [post]):
        if p.get("type") == "TemplateProcessing" and "SpecialToken" in p["single"][0]:
            special = p["single"][0]["SpecialToken"]["id"]
            ids = p["special_tokens"][special]["ids"] + ids
    return ids


# ---------------------------------------------------------------------------------------------
# Safetensors, streamed: a header of F32 tensors, then each tensor's bytes as it comes.


def read_header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n)), 8 + n


def write_f32_safetensors(path, tensors):
    """tensors: {name: contiguous float32 torch tensor}; the data is written without a copy."""
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, t in tensors.items():
        size = t.numel() * 4
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for t in tensors.values():
            f.write(memoryview(t.contiguous().numpy()).cast("B"))


def load_float32(path):
    """model.safetensors -> {name: float32 torch tensor}; BF16 widened exactly, one at a time;
    F32 read as it is."""
    import torch
    header, start = read_header(path)
    header.pop("__metadata__", None)
    weights = {}
    with open(path, "rb") as f:
        for name, info in header.items():
            begin, end = info["data_offsets"]
            f.seek(start + begin)
            if info["dtype"] == "F32":
                weights[name] = torch.from_numpy(
                    np.fromfile(f, dtype="<f4", count=(end - begin) // 4)).reshape(info["shape"])
                continue
            assert info["dtype"] == "BF16", (name, info["dtype"])
            raw = np.fromfile(f, dtype="<u2", count=(end - begin) // 2)
            weights[name] = torch.from_numpy(raw.view(np.int16)).view(torch.bfloat16).float() \
                .reshape(info["shape"])
    return weights


# ---------------------------------------------------------------------------------------------
# PyTorch: Llama's forward written out from transformers' modeling_llama.py (float32, no_grad)


def llama3_inv_freq(c, head_dim):
    """RoPE inverse frequencies, with transformers' _compute_llama3_parameters when the config has
    rope_scaling of type llama3 (float64 here; the reference is the exact function)."""
    import torch
    inv_freq = 1.0 / (c["rope_theta"] ** (torch.arange(0, head_dim, 2, dtype=torch.float64)
                                          / head_dim))
    s = c.get("rope_scaling")
    if not s:
        return inv_freq
    assert s.get("rope_type", s.get("type")) == "llama3", s
    factor, low, high = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
    old = s["original_max_position_embeddings"]
    low_freq_wavelen, high_freq_wavelen = old / low, old / high
    wavelen = 2 * math.pi / inv_freq
    scaled = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_freq_wavelen) & ~(wavelen > low_freq_wavelen)
    return torch.where(medium, smoothed, scaled)


def rms_norm(x, weight, eps):
    import torch
    return weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def rotate_half(x):
    import torch
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def llama_forward(c, w, ids, maps):
    """Token ids -> the last position's logits; appends each layer's attention weights
    [1, H, T, T] to maps."""
    import torch
    import torch.nn.functional as F
    T = len(ids)
    H, KV, D = c["num_attention_heads"], c["num_key_value_heads"], c["hidden_size"]
    hd = c.get("head_dim") or D // H
    eps = c["rms_norm_eps"]
    angles = torch.arange(T, dtype=torch.float64)[:, None] * llama3_inv_freq(c, hd)[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    cos, sin = angles.cos().float(), angles.sin().float()
    blocked = torch.ones(T, T, dtype=torch.bool).triu(1)
    x = w["model.embed_tokens.weight"][torch.tensor(ids)]
    for L in range(c["num_hidden_layers"]):
        p = f"model.layers.{L}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].t()).view(T, H, hd).transpose(0, 1)
        k = (h @ w[p + "self_attn.k_proj.weight"].t()).view(T, KV, hd).transpose(0, 1)
        v = (h @ w[p + "self_attn.v_proj.weight"].t()).view(T, KV, hd).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(H // KV, dim=0)  # repeat_kv: K/V head j serves queries j*H/KV...
        v = v.repeat_interleave(H // KV, dim=0)
        scores = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(hd)
        scores.masked_fill_(blocked, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        maps.append(weights.unsqueeze(0))
        context = torch.matmul(weights, v).transpose(0, 1).reshape(T, H * hd)
        x = x + context @ w[p + "self_attn.o_proj.weight"].t()
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = m @ w[p + "mlp.gate_proj.weight"].t()
        gated = F.silu(gate) * (m @ w[p + "mlp.up_proj.weight"].t())
        x = x + gated @ w[p + "mlp.down_proj.weight"].t()
    last = rms_norm(x[-1:], w["model.norm.weight"], eps)
    return last @ w["model.embed_tokens.weight"].t()


def torch_job(folder, ids_path, out):
    """The measured PyTorch process: load, forward, write the maps. Prints its phases as JSON."""
    import torch
    torch.set_num_threads(THREADS)
    folder = pathlib.Path(folder)
    c = json.loads((folder / "config.json").read_text())
    ids = json.loads(pathlib.Path(ids_path).read_text())
    t1 = time.perf_counter()
    w = load_float32(folder / "model.safetensors")
    t2 = time.perf_counter()
    maps = []
    with torch.no_grad():
        if c.get("model_type") == "gpt2":
            import compare_real_size_with_torch as gpt2
            logits = gpt2.torch_forward(w, ids, maps)
            maps = [m.unsqueeze(0) for m in maps]  # [1, H, N, N] as AttnViz writes them
        else:
            logits = llama_forward(c, w, ids, maps)
    t3 = time.perf_counter()
    write_f32_safetensors(out, {f"layer{L}.masked_self.weights": m for L, m in enumerate(maps)})
    t4 = time.perf_counter()
    print(json.dumps({"load_s": t2 - t1, "forward_s": t3 - t2,
                      "write_s": t4 - t3, "blas": blas_library(),
                      "logits_top": int(logits[0].argmax())}))


# ---------------------------------------------------------------------------------------------
# Running a process: wall time, peak RSS (wait4), killed when it passes a resident-memory limit


def rss_kib(pid):
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) if found else 0


def children(pid):
    try:
        return [int(c) for c in
                pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def mem_available_gib():
    info = pathlib.Path("/proc/meminfo").read_text()
    return int(re.search(r"MemAvailable:\s+(\d+) kB", info).group(1)) / (1 << 20)


def run_measured(command, max_rss_gib, env=None):
    """Runs command under /usr/bin/time (not forked from this process, whose resident memory a
    child's peak would inherit at fork) and returns dict(seconds, peak_mib, code, killed, stdout,
    stderr). The command is killed when its resident memory passes max_rss_gib."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r") as usage:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M %e", "-o", usage.name] +
                                [str(c) for c in command], stdout=out, stderr=err, env=env)
        killed = False
        while proc.poll() is None:
            for child in children(proc.pid):
                if not killed and rss_kib(child) > max_rss_gib * (1 << 20):
                    os.kill(child, 9)
                    killed = True
            time.sleep(0.1)
        seconds = time.perf_counter() - start
        peak_kib, _ = usage.read().strip().splitlines()[-1].split()
        out.seek(0)
        err.seek(0)
        return dict(seconds=seconds, peak_mib=int(peak_kib) / 1024, code=proc.returncode,
                    killed=killed, stdout=out.read(), stderr=err.read())


def describe(run):
    text = f"{run['seconds']:6.1f} s, peak RSS {run['peak_mib']:6.0f} MiB"
    if run["killed"]:
        text += " (KILLED at the memory limit)"
    elif run["code"] != 0:
        text += f" (exit {run['code']}: {run['stderr'].strip()[-300:]})"
    return text


def warm(path):
    with open(path, "rb") as f:
        while f.read(64 << 20):
            pass


# ---------------------------------------------------------------------------------------------


def compare_maps(ours, theirs):
    """Largest |difference| over every map of the two files, and where."""
    h1, s1 = read_header(ours)
    h2, s2 = read_header(theirs)
    names = [n for n in h2 if n != "__metadata__"]
    m1 = np.memmap(ours, dtype="<f4", mode="r", offset=s1)
    m2 = np.memmap(theirs, dtype="<f4", mode="r", offset=s2)
    worst, where = 0.0, None
    for name in names:
        assert name in h1, f"AttnViz's dump has no {name}"
        assert h1[name]["shape"] == h2[name]["shape"], (name, h1[name]["shape"],
                                                        h2[name]["shape"])
        shape = h2[name]["shape"]
        a = m1[h1[name]["data_offsets"][0] // 4:h1[name]["data_offsets"][1] // 4].reshape(shape)
        b = m2[h2[name]["data_offsets"][0] // 4:h2[name]["data_offsets"][1] // 4].reshape(shape)
        for head in range(shape[1]):
            diff = np.abs(a[0, head] - b[0, head])
            d = float(diff.max())
            if d > worst:
                q, k = np.unravel_index(int(diff.argmax()), diff.shape)
                worst, where = d, f"{name} head {head} query {q} key {k}"
    return worst, where, len(names)


def measure(label, folder, tokens_text, args, work, with_torch):
    cli = pathlib.Path(args.build) / "bin/attnviz-cli"
    ids = token_ids(folder, tokens_text)
    ids_path = work / f"{label}-ids.json"
    ids_path.write_text(json.dumps(ids))
    ours, theirs = work / f"{label}-attnviz.safetensors", work / f"{label}-torch.safetensors"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    cli_command = [cli, "trace", "--model", folder, "--text", tokens_text, "--steps", "weights",
                   "--dump", ours, "--threads", THREADS, "--quiet"]
    torch_command = [sys.executable, __file__, "--torch-job", folder, "--ids", ids_path,
                     "--out", theirs]
    model_bytes = (folder / "model.safetensors").stat().st_size
    print(f"\n== {label}: {folder} (model.safetensors {model_bytes / 1e9:.2f} GB), {len(ids)} "
          f"tokens, {THREADS} threads; {mem_available_gib():.1f} GiB available")
    print("   attnviz-cli " + " ".join(str(c) for c in cli_command[1:4]) + " --text TEXT " +
          " ".join(str(c) for c in cli_command[6:]))
    warm(folder / "model.safetensors")
    rows = []
    for r in range(args.rounds if with_torch else args.cli_rounds):
        ours.unlink(missing_ok=True)
        theirs.unlink(missing_ok=True)
        a = run_measured(cli_command, args.max_rss_gib, env)
        line = f"  round {r + 1}: AttnViz {describe(a)}"
        if a["code"] == 0:
            header, _ = read_header(ours)
            meta = header["__metadata__"]
            got = json.loads(meta["target_ids"])
            assert got == ids, "AttnViz read other token ids than the script computed"
            a["tensors"] = len(header) - 1
            a["bytes"] = ours.stat().st_size
            line += f" [{a['tensors']} tensors, {a['bytes'] / 1e9:.2f} GB]"
        b = None
        if with_torch:
            b = run_measured(torch_command, args.max_rss_gib)
            line += f" | PyTorch {describe(b)}"
            if b["code"] == 0:
                b["phases"] = json.loads(b["stdout"].strip().splitlines()[-1])
                # interpreter start, imports (torch), reading config and ids, exit
                b["phases"] = dict(start_s=b["seconds"] - sum(
                    v for k, v in b["phases"].items() if k.endswith("_s")), **b["phases"])
                b["bytes"] = theirs.stat().st_size
                line += " [{}]".format(", ".join(f"{k[:-2]} {v:.1f} s" for k, v in
                                                 b["phases"].items() if k.endswith("_s")))
            if a["code"] == 0 and b["code"] == 0:
                line += f" | ratio {a['seconds'] / b['seconds']:.2f}"
        print(line + f" (load {os.getloadavg()[0]:.1f})", flush=True)
        if r == 0 and with_torch and a["code"] == 0 and b["code"] == 0:
            worst, where, count = compare_maps(ours, theirs)
            print(f"  agreement over all {count} layers' maps: max |AttnViz - PyTorch| "
                  f"{worst:.2e} at {where} (limit 1e-4){'' if worst <= 1e-4 else '  FAILED'}",
                  flush=True)
        rows.append((a, b))
        ours.unlink(missing_ok=True)
        theirs.unlink(missing_ok=True)
    good_a = [a for a, _ in rows if a["code"] == 0]
    if good_a:
        print(f"  AttnViz median {statistics.median(a['seconds'] for a in good_a):.1f} s, "
              f"peak RSS {statistics.median(a['peak_mib'] for a in good_a):.0f} MiB "
              f"(max {max(a['peak_mib'] for a in good_a):.0f}); wrote {good_a[0]['tensors']} "
              f"tensors, {good_a[0]['bytes'] / 1e9:.2f} GB")
    if with_torch:
        good_b = [b for _, b in rows if b and b["code"] == 0]
        if good_b:
            phases = {k: statistics.median(b["phases"][k] for b in good_b)
                      for k in good_b[0]["phases"] if k.endswith("_s")}
            print(f"  PyTorch median {statistics.median(b['seconds'] for b in good_b):.1f} s "
                  f"({', '.join(f'{k[:-2]} {v:.1f}' for k, v in phases.items())}), "
                  f"peak RSS {statistics.median(b['peak_mib'] for b in good_b):.0f} MiB "
                  f"(max {max(b['peak_mib'] for b in good_b):.0f}); wrote "
                  f"{good_b[0]['bytes'] / 1e9:.2f} GB; BLAS {good_b[0]['phases']['blas']}")
        ratios = [a["seconds"] / b["seconds"] for a, b in rows
                  if a["code"] == 0 and b and b["code"] == 0]
        if ratios:
            print(f"  AttnViz / PyTorch: median of the rounds' ratios "
                  f"{statistics.median(ratios):.2f}"
                  f" (rounds {min(ratios):.2f}-{max(ratios):.2f})   (target: at most 1)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build/release"),
                        help="the CMake build folder (its bin/ holds attnviz-cli)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cli-rounds", type=int, default=2,
                        help="rounds of attnviz-cli alone (SmolLM2 without --smollm2-torch)")
    parser.add_argument("--gpt2-folder", default="/tmp/attnviz-gpt2-small")
    parser.add_argument("--gpt2-tokens", type=int, default=1024)
    parser.add_argument("--skip-gpt2", action="store_true")
    parser.add_argument("--llama-folder", default=make_real_size_llama.DEFAULT_FOLDERS["llama-1b"])
    parser.add_argument("--smollm2-folder",
                        default=make_real_size_llama.DEFAULT_FOLDERS["smollm2-135m"])
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(),
                                                       "attnviz-llama-real-size"),
                        help="where the dumps go (2.1 GB each for Llama, 4.5 GB for SmolLM2)")
    parser.add_argument("--llama-tokens", type=int, default=1024, help="with the BOS")
    parser.add_argument("--smollm2-tokens", type=int, default=2048)
    parser.add_argument("--skip-llama", action="store_true")
    parser.add_argument("--skip-smollm2", action="store_true")
    parser.add_argument("--smollm2-torch", action="store_true",
                        help="also run the PyTorch job on SmolLM2 and compare")
    parser.add_argument("--max-rss-gib", type=float, default=16.0,
                        help="kill a measured process whose resident memory passes this")
    parser.add_argument("--torch-job", metavar="FOLDER", help=argparse.SUPPRESS)
    parser.add_argument("--ids", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_job:
        torch_job(args.torch_job, args.ids, args.out)
        return

    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print(f"{THREADS} threads; load average {os.getloadavg()[0]:.2f}; "
          f"{mem_available_gib():.1f} GiB available")
    if not args.skip_gpt2:
        import compare_real_size_with_torch as gpt2
        folder = pathlib.Path(args.gpt2_folder)
        gpt2.write_folder(folder, gpt2.make_weights())
        measure("gpt2-small", folder, text_of_tokens(args.gpt2_tokens), args, work,
                with_torch=True)
    if not args.skip_llama:
        folder = pathlib.Path(args.llama_folder)
        make_real_size_llama.write_folder("llama-1b", folder)
        # 1023 words + BOS = 1024 tokens
        measure("llama-1b", folder, text_of_tokens(args.llama_tokens - 1), args, work,
                with_torch=True)
    if not args.skip_smollm2:
        folder = pathlib.Path(args.smollm2_folder)
        make_real_size_llama.write_folder("smollm2-135m", folder)
        measure("smollm2-135m", folder, text_of_tokens(args.smollm2_tokens), args, work,
                with_torch=args.smollm2_torch)


if __name__ == "__main__":
    main()
