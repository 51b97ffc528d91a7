#!/usr/bin/env python3
"""bench/skew/bounds.py — what scheduling alone can gain on skewbench's skewed cases (a model; no GPU).

For each case the fact table's dim-1 keys are drawn as skewbench.cu draws them (same distributions,
not the same hash), and each source row's work is w = 1 + J * m (its probe, then m matches each going
through the J - 1 further joins and the sink).  Printed per case:

  divergence  sum over warps of the largest w of its 32 consecutive rows / sum over warps of their mean:
              how much longer the one-thread-per-row executor ("none") runs than a scheduler that keeps
              every lane busy (NIFS), where nothing but the warps' divergence differs;
  tail        the largest w against a resident warp's fair share (sum of w / (32 x WARPS)): above 1, one
              row's work outlasts the whole balanced run, and "none" waits for it (run serially, at the
              latency of its loads, which this model does not price: the real gap is larger there).

So a case with divergence d and tail < 1 is bounded near d for any scheduler: the issue's 10x can be met
only where the tail is well above 1.

  python3 bench/skew/bounds.py [--log2f 26] [--warps 2112]   (2112: 16 warps x 132 SMs, an H200)
"""
import argparse
import numpy as np

DIM_KEYS = 1 << 20


def mults(case):
    """matches per dim-1 key"""
    if case.startswith("jcch"):
        m = np.full(DIM_KEYS, 2, dtype=np.int64)
        m[:5] = 16
        return m
    if case.startswith("hot"):
        m = np.ones(DIM_KEYS, dtype=np.int64)
        m[0] = 1 << 21
        return m
    s = float(case.split("-")[1][1:])
    top = 2.0 ** (11 if s < 0.75 else 18 if s < 1.25 else 21)
    return np.maximum(1, np.floor(top / np.power(np.arange(1, DIM_KEYS + 1, dtype=np.float64), s))).astype(np.int64)


def fks(case, n, rng):
    if case.startswith("jcch"):
        hot = rng.random(n) < 0.25
        v = np.where(hot, rng.integers(0, 5, n), rng.integers(5, DIM_KEYS, n))
        return v
    if case.startswith("hot"):
        v = rng.integers(1, DIM_KEYS, n)
        v[n // 3] = 0
        return v
    return rng.integers(0, DIM_KEYS, n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2f", type=int, default=26)
    ap.add_argument("--warps", type=int, default=2112)
    a = ap.parse_args()
    n = 1 << a.log2f
    rng = np.random.default_rng(1)
    print("| case | sink rows | divergence | tail |")
    print("|---|---:|---:|---:|")
    for case in ["mm-z0.5-k1", "mm-z1.0-k1", "mm-z1.5-k1", "mm-z0.5-k4", "mm-z1.0-k4", "mm-z1.5-k4",
                 "jcch-k1", "jcch-k2", "hot-k1", "hot-k2"]:
        J = int(case.rsplit("k", 1)[1])
        m = mults(case)[fks(case, n, rng)]
        w = 1 + J * m
        warps = w[: n - n % 32].reshape(-1, 32)
        div = warps.max(axis=1).sum() / warps.mean(axis=1).sum()
        tail = w.max() / (w.sum() / (32.0 * a.warps))
        print("| %s | %d | %.2f | %.2f |" % (case, int(m.sum()), div, tail))


if __name__ == "__main__":
    main()
