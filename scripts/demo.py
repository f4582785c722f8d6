"""The main job: the seed program through loopfuse beside jax.jit, on this machine.

Lowers the seed program (tests/programs/progs_seed.py, the program of
../shared/seeds/000_fc20e847646d6162.txt) with JAX, runs it with jax.jit and with loopfuse, checks
that the results agree, and prints both times per call and loopfuse's compile time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import seed_program  # noqa: E402


def time_jax(fn, args, repeats: int) -> float:
    jax.block_until_ready(fn(*args))  # compile + warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=8000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--no-x64", action="store_true", help="run the float32 variant")
    parser.add_argument("--loopfuse", default=str(ROOT / "build" / "loopfuse"))
    args = parser.parse_args()

    x64 = not args.no_x64
    # On a machine whose jax has a GPU, both run there: jax.jit on the GPU, loopfuse as one kernel.
    target = "cuda" if jax.default_backend() == "gpu" else "cpu"
    with jax.enable_x64(x64):
        weights, rng = seed_program.seed_inputs()
        call_args = (weights, rng, args.iterations)
        fn = seed_program.infer_encoding
        hlo = fn.lower(*call_args).as_text(dialect="hlo")
        expected = jax.tree_util.tree_leaves(fn(*call_args))
        inputs = jax.tree_util.tree_leaves(call_args)
        jax_seconds = time_jax(fn, call_args, args.repeats)

    with tempfile.TemporaryDirectory() as tmp:
        hlo_path = Path(tmp) / "seed.hlo"
        npz_path = Path(tmp) / "seed.npz"
        out_path = Path(tmp) / "out.npz"
        hlo_path.write_text(hlo)
        arrays = {f"input_{i}": np.asarray(x) for i, x in enumerate(inputs)}
        arrays.update({f"output_{i}": np.asarray(y) for i, y in enumerate(expected)})
        np.savez(npz_path, **arrays)
        cmd = [
            args.loopfuse,
            "run",
            str(hlo_path),
            "--inputs",
            str(npz_path),
            "--check",
            "--outputs",
            str(out_path),
            "--repeat",
            str(args.repeats),
            "--json",
            "--target",
            target,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            print(proc.stdout + proc.stderr, file=sys.stderr)
            print(f"loopfuse failed (exit {proc.returncode})", file=sys.stderr)
            return 1
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        with np.load(out_path) as got:
            loopfuse_out = [got[f"output_{i}"] for i in range(len(expected))]

    print(
        f"seed program ({'x64' if x64 else 'f32'}, {args.iterations} iterations) on "
        f"{jax.devices()[0].platform.upper()} / loopfuse {target}"
    )
    names = ["code_momentum", "rng", "iterations"]
    for name, want, got in zip(names, expected, loopfuse_out):
        print(f"  {name:14s} jax.jit: {np.asarray(want).tolist()}")
        print(f"  {'':14s} loopfuse: {got.tolist()}")
    lf_seconds = report["seconds_per_call"]
    print(
        f"  time per call   jax.jit: {jax_seconds * 1e3:9.3f} ms   "
        f"loopfuse: {lf_seconds * 1e3:9.3f} ms   (jax/loopfuse = {jax_seconds / lf_seconds:.2f}x)"
    )
    print(
        f"  loopfuse compile time: {report['compile_seconds']:.3f} s"
        f"{' (cache hit)' if report['cache_hit'] else ''}"
    )
    print("  results agree" if report["ok"] else "  RESULTS DIFFER")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
