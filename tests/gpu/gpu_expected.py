"""Expected outputs computed by jax.jit on THIS machine's GPU, for corpus programs whose stored
outputs are XLA:CPU's and differ from XLA:GPU's on purpose.

The denormal edge programs feed subnormal floats: XLA:CPU flushes them to zero, XLA:GPU keeps them
(as loopfuse's CUDA kernels do), so on a GPU the fair reference is jax.jit there. Inputs are the
stored .npz's (checked to be what the program's argument builder makes); outputs are XLA:GPU's.

    python3 gpu_expected.py --out DIR NAME...     writes DIR/NAME.npz (input_*, output_*)
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import sys

import jax
import numpy as np

PROGRAMS = pathlib.Path(__file__).resolve().parents[1] / "programs"
# The modules that define the edge programs; both import neither haiku nor tjax.
MODULES = ("progs_elementwise", "progs_convert")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    sys.path.insert(0, str(PROGRAMS))
    registry = importlib.import_module("registry")
    for module in MODULES:
        importlib.import_module(module)
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in args.names:
        prog = registry.PROGRAMS[name]
        stored = np.load(PROGRAMS / f"{name}.npz")
        inputs = {k: stored[k] for k in stored.files if k.startswith("input_")}
        with registry.program_config(prog):
            call_args = prog.make_args(prog.rng())
            leaves = [
                np.asarray(leaf)
                for i, arg in enumerate(call_args)
                if i not in prog.static_argnums
                for leaf in jax.tree_util.tree_leaves(arg)
            ]
            same = len(leaves) == len(inputs) and all(
                np.array_equal(leaf, inputs[f"input_{i}"], equal_nan=True)
                for i, leaf in enumerate(leaves)
            )
            if not same:
                print(
                    f"gpu-expected {name}: the argument builder no longer gives the stored inputs"
                )
                continue
            jitted = jax.jit(prog.fn, static_argnums=prog.static_argnums, keep_unused=True)
            outputs = jax.tree_util.tree_leaves(jax.device_get(jitted(*call_args)))
        arrays = dict(inputs)
        arrays.update({f"output_{i}": np.asarray(o) for i, o in enumerate(outputs)})
        np.savez(out_dir / f"{name}.npz", **arrays)
        print(
            f"gpu-expected {name}: {len(outputs)} outputs from jax.jit on {jax.default_backend()}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
