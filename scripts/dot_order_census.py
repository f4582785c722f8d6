"""How XLA:CPU sums an f32 dot, shape by shape: one fma chain per result in contraction order
(what loopfuse's dots do), or four interleaved chains (k mod 4) added as (p0 + p1) + (p2 + p3).

    .venv/bin/python scripts/dot_order_census.py

Prints a grid over M (rows), K (contraction) and N (columns): C = every sampled result equals the
single fma chain, 4 = the four-chain order, ? = neither. jax 0.11.2 on a 2-core AMD EPYC (AVX-512):
M = 1 is C throughout; for M >= 2, N of 8 or 16 (and 2-3 for some K) is 4 wherever K is a
multiple of 4; N of 32 and 64 is C. The fma is emulated in f64 (exact product, one rounding to
f64 then to f32), which can differ from a true f32 fma on ties only.
"""

import functools

import jax
import numpy as np

f32 = np.float32


def fma(a: np.float32, b: np.float32, c: np.float32) -> np.float32:
    return f32(np.float64(a) * np.float64(b) + np.float64(c))


def chain(a: np.ndarray, b: np.ndarray, ks: range) -> np.float32:
    return functools.reduce(lambda acc, k: fma(a[k], b[k], acc), ks, f32(0))


def four_chains(a: np.ndarray, b: np.ndarray, k: int) -> np.float32:
    p = [chain(a, b, range(lane, k, 4)) for lane in range(4)]
    return f32(f32(p[0] + p[1]) + f32(p[2] + p[3]))


def main() -> None:
    rng = np.random.default_rng(2)
    ks, ns = (3, 4, 5, 8, 12, 16, 32, 64, 128), (2, 3, 8, 16, 32, 64)
    print("N within each K:", ns)
    for m in (1, 2, 4, 8, 16, 64):
        row = []
        for k in ks:
            cells = ""
            for n in ns:
                a = rng.standard_normal((m, k)).astype(f32)
                b = rng.standard_normal((k, n)).astype(f32)
                x = np.asarray(jax.jit(lambda a, b: a @ b)(a, b))
                idx = [(i, j) for i in range(m) for j in range(n)][:: max(1, m * n // 48)]
                if all(chain(a[i], b[:, j], range(k)) == x[i, j] for i, j in idx):
                    cells += "C"
                elif all(four_chains(a[i], b[:, j], k) == x[i, j] for i, j in idx):
                    cells += "4"
                else:
                    cells += "?"
            row.append(f"K{k}:{cells}")
        print(f"M={m:3d}", " ".join(row))


if __name__ == "__main__":
    main()
