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
tile by tile), which must agree to 1e-12.
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


def by_definition(masked, tile):
    """(m, l) [B, H, Nq, T] from prefix maxima and sums."""
    nk = masked.shape[-1]
    tiles = math.ceil(nk / tile)
    m = torch.empty(*masked.shape[:-1], tiles, dtype=torch.float64)
    l = torch.empty_like(m)
    for t in range(tiles):
        seen = masked[..., : min((t + 1) * tile, nk)]
        top = seen.max(dim=-1).values
        m[..., t] = top
        finite = torch.isfinite(top)
        shifted = torch.where(finite[..., None], seen - torch.where(finite, top, 0)[..., None],
                              torch.full_like(seen, -math.inf))
        l[..., t] = torch.exp(shifted).sum(dim=-1)
    return m, l


def by_recurrence(masked, tile):
    """(m, l) as FlashAttention updates them, one tile after the other."""
    nk = masked.shape[-1]
    tiles = math.ceil(nk / tile)
    m_run = torch.full(masked.shape[:-1], -math.inf, dtype=torch.float64)
    l_run = torch.zeros_like(m_run)
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
        tensors = {}
        for tile in TILES:
            m, l = by_definition(masked, tile)
            m2, l2 = by_recurrence(masked, tile)
            assert torch.equal(m, m2), name
            assert torch.allclose(l, l2, rtol=1e-12, atol=0), name
            tensors[f"online_max.{tile}"] = m.to(torch.float32).numpy()
            tensors[f"online_sum.{tile}"] = l.to(torch.float32).numpy()
        safetensors_py.save(OUT / f"{name}.safetensors", tensors,
                            {"tiles": ",".join(map(str, TILES))})
        print(f"{name}: tiles {TILES}")


if __name__ == "__main__":
    main()
