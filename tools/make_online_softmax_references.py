#!/usr/bin/python3
"""Reference values of FlashAttention's online softmax for the mha reference cases.

Run with Debian's torch:  /usr/bin/python3 tools/make_online_softmax_references.py
Reads tests/data/mha/<name>.expected.safetensors (PyTorch's trace, tools/make_reference_cases.py)
and writes tests/data/mha/online/<name>.safetensors holding, for each tile size T in TILES,
`online_max.T` and `online_sum.T` [B, H, Nq, ceil(Nk / T)]: the running maximum m and the running
sum l after each tile of keys, as `attnviz-cli mha CASE --online-softmax T --dump` writes them.

After tile t (keys [0, (t + 1) T)), m is the largest masked score of those keys and
l = sum exp(s - m) over them; a row whose keys so far are all blocked has m = -inf and l = 0.
Computed in float64 from the definition (prefix maxima and sums over whole tiles) and, to tie
the two readings together, again by FlashAttention's recurrence (l scaled by exp(m_old - m_new)
tile by tile), which must agree to 1e-12. A case with learned sinks (gpt-oss) starts each row
from its head's sink, a key of its own read before the first tile: m = sink, l = 1.
"""
import math
import pathlib
import sys

import numpy as np
import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import safetensors_py  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "mha"
OUT = DATA / "online"
TILES = (1, 3, 8)


def with_sink(masked, sinks):
    """The masked scores with each head's sink as key -1 (a column in front), or as they are."""
    if sinks is None:
        return masked
    B, H, Nq, _ = masked.shape
    column = torch.from_numpy(sinks.astype(np.float64)).reshape(1, H, 1, 1).expand(B, H, Nq, 1)
    return torch.cat([column, masked], dim=-1)


def by_definition(masked, tile, sinks=None):
    """(m, l) [B, H, Nq, T] from prefix maxima and sums."""
    nk = masked.shape[-1]
    tiles = math.ceil(nk / tile)
    first = 0 if sinks is None else 1  # the sink's column is seen from the start
    masked = with_sink(masked, sinks)
    m = torch.empty(*masked.shape[:-1], tiles, dtype=torch.float64)
    l = torch.empty_like(m)
    for t in range(tiles):
        seen = masked[..., : first + min((t + 1) * tile, nk)]
        top = seen.max(dim=-1).values
        m[..., t] = top
        finite = torch.isfinite(top)
        shifted = torch.where(finite[..., None], seen - torch.where(finite, top, 0)[..., None],
                              torch.full_like(seen, -math.inf))
        l[..., t] = torch.exp(shifted).sum(dim=-1)
    return m, l


def by_recurrence(masked, tile, sinks=None):
    """(m, l) as FlashAttention updates them, one tile after the other."""
    nk = masked.shape[-1]
    tiles = math.ceil(nk / tile)
    m_run = torch.full(masked.shape[:-1], -math.inf, dtype=torch.float64)
    l_run = torch.zeros_like(m_run)
    if sinks is not None:
        m_run = with_sink(masked, sinks)[..., 0].clone()
        l_run = torch.ones_like(m_run)
    m = torch.empty(*masked.shape[:-1], tiles, dtype=torch.float64)
    l = torch.empty_like(m)
    for t in range(tiles):
        block = masked[..., t * tile : min((t + 1) * tile, nk)]
        new = torch.maximum(m_run, block.max(dim=-1).values)
        live = torch.isfinite(new)  # a row blocked so far keeps -inf and 0
        safe = torch.where(live, new, 0)
        rescale = torch.where(live & torch.isfinite(m_run), torch.exp(m_run - safe), 0)
        added = torch.exp(block - safe[..., None]).sum(dim=-1)
        l_run = torch.where(live, l_run * rescale + added, 0)
        m_run = new
        m[..., t] = m_run
        l[..., t] = l_run
    return m, l


def main():
    OUT.mkdir(exist_ok=True)
    names = [line.split("\t")[0] for line in (DATA / "cases.txt").read_text().splitlines() if line]
    for name in names:
        expected, _ = safetensors_py.load(DATA / f"{name}.expected.safetensors")
        masked = torch.from_numpy(expected["masked"].astype(np.float64))
        case, _ = safetensors_py.load(DATA / f"{name}.case.safetensors")
        sinks = case.get("sinks")
        tensors = {}
        for tile in TILES:
            m, l = by_definition(masked, tile, sinks)
            m2, l2 = by_recurrence(masked, tile, sinks)
            assert torch.equal(m, m2), name
            assert torch.allclose(l, l2, rtol=1e-12, atol=0), name
            tensors[f"online_max.{tile}"] = m.to(torch.float32).numpy()
            tensors[f"online_sum.{tile}"] = l.to(torch.float32).numpy()
        safetensors_py.save(OUT / f"{name}.safetensors", tensors,
                            {"tiles": ",".join(map(str, TILES))})
        print(f"{name}: tiles {TILES}")


if __name__ == "__main__":
    main()
