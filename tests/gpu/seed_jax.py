"""The seed program for the GPU check, without haiku and tjax (the GPU machine has neither).

The same computation as tests/programs/progs_seed.py (a while_loop of `maximum_iterations` steps;
body: a 1 -> 12 -> 1 MLP with softplus weights and sigmoid activations, plus jax.random noise),
with haiku's parameter dict written out by hand: {"noisy_mlp/~/linear": {"w": f64[1,12]},
"noisy_mlp/~/linear_1": {"w": f64[12,1]}}, zeros as haiku's initializer makes them. Run under
x64 like the corpus's seed_x64. `--self-test` checks this copy against the corpus's JAX outputs.

    python seed_jax.py --out DIR [--lower 4096] [--time 1 1024 4096] [--repeat 3]

--lower B writes DIR/seed_vmapB.hlo (lowered for the default backend: the GPU's HLO there) and
DIR/seed_vmapB.npz (input_*, and output_* computed by JAX on that backend) for loopfuse;
--time B... prints one line per batch: `jax batch B median_ms M runs N`; with --lf, also
`lfjit batch B median_ms M runs N compile_s C agree A` for the same function through loopfuse.jit
(the user's path: an XLA FFI call launching one CUDA kernel on XLA's stream), its outputs compared
with jax.jit's on the same device (tests/programs/tolerances.py's f64 tolerance, widened 100x).
"""

import argparse
import os
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.lax import while_loop
from jax.nn import sigmoid, softplus
from jax.random import PRNGKey, normal, split

MAXIMUM_ITERATIONS = 8000


def nat_to_exp(weights, x):
    for layer in ("noisy_mlp/~/linear", "noisy_mlp/~/linear_1"):
        x = sigmoid(jnp.dot(x, softplus(weights[layer]["w"])))
    return x


def infer_encoding(weights, initial_rng, maximum_iterations):
    def cond(state):
        return state[2] < maximum_iterations

    def body(state):
        code_momentum, rng, iterations = state
        leak_rng, new_rng = split(rng)
        force = nat_to_exp(weights, code_momentum)
        return force + normal(leak_rng, force.shape), new_rng, iterations + 1

    return while_loop(cond, body, (jnp.zeros((1,)), initial_rng, 0))


def infer_encoding_vmap(weights, initial_rngs, maximum_iterations):
    return jax.vmap(infer_encoding, in_axes=(None, 0, None))(
        weights, initial_rngs, maximum_iterations
    )


def seed_inputs(batch):
    """PRNGKey(12) split into (weight key, inference key) as the seed does; zero weights."""
    _, inference_rng = split(PRNGKey(12))
    weights = {
        "noisy_mlp/~/linear": {"w": jnp.zeros((1, 12))},
        "noisy_mlp/~/linear_1": {"w": jnp.zeros((12, 1))},
    }
    if batch == 1:
        return infer_encoding, (weights, inference_rng, MAXIMUM_ITERATIONS)
    return infer_encoding_vmap, (weights, split(inference_rng, batch), MAXIMUM_ITERATIONS)


def lower(batch, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    fn, args = seed_inputs(batch)
    jitted = jax.jit(fn)
    name = f"seed_vmap{batch}" if batch > 1 else "seed_batch1"
    with open(os.path.join(out_dir, name + ".hlo"), "w") as f:
        f.write(jitted.lower(*args).as_text(dialect="hlo"))
    leaves = jax.tree_util.tree_leaves(args)
    outputs = jax.tree_util.tree_leaves(jax.block_until_ready(jitted(*args)))
    arrays = {f"input_{i}": np.asarray(x) for i, x in enumerate(leaves)}
    arrays.update({f"output_{i}": np.asarray(x) for i, x in enumerate(outputs)})
    np.savez(os.path.join(out_dir, name + ".npz"), **arrays)
    print(f"lowered {name} for {jax.default_backend()}", flush=True)


def _median_ms(jitted, args, repeat):
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        jax.block_until_ready(jitted(*args))
        runs.append((time.perf_counter() - start) * 1e3)
        if sum(runs) > 20e3:  # XLA takes seconds per call here: a few runs are enough
            break
    runs.sort()
    return runs[len(runs) // 2], len(runs)


def time_batch(batch, repeat, with_lf):
    fn, (weights, rngs, iterations) = seed_inputs(batch)
    jitted = jax.jit(fn)
    # A short run compiles the same executable (maximum_iterations is traced, not static).
    jax.block_until_ready(jitted(weights, rngs, 10))
    median, runs = _median_ms(jitted, (weights, rngs, iterations), repeat)
    print(
        f"jax batch {batch} median_ms {median:.4g} runs {runs} backend {jax.default_backend()}",
        flush=True,
    )
    if not with_lf:
        return
    import loopfuse as lf  # only here: the jax-only steps must not need the extension

    compiled = lf.jit(fn, fallback="error")
    start = time.perf_counter()
    got = jax.block_until_ready(compiled(weights, rngs, iterations))  # compiles, then runs
    compile_s = time.perf_counter() - start
    want = jitted(weights, rngs, iterations)
    agree = all(
        np.allclose(np.asarray(g), np.asarray(w), rtol=1e-10, atol=1e-12)
        for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want))
    )
    median, runs = _median_ms(compiled, (weights, rngs, iterations), repeat)
    print(
        f"lfjit batch {batch} median_ms {median:.4g} runs {runs} compile_s {compile_s:.3g} "
        f"agree {agree} target {compiled.lower(weights, rngs, iterations).target}",
        flush=True,
    )


def self_test(corpus_dir):
    """This copy must reproduce the corpus's seed_x64 and seed_vmap1024 outputs (JAX, CPU)."""
    for name, batch in (("seed_x64", 1), ("seed_vmap1024", 1024)):
        data = np.load(os.path.join(corpus_dir, name + ".npz"))
        fn, args = seed_inputs(batch)
        for i, leaf in enumerate(jax.tree_util.tree_leaves(args)):
            np.testing.assert_array_equal(np.asarray(leaf), data[f"input_{i}"])
        outputs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        for i, out in enumerate(outputs):
            np.testing.assert_allclose(np.asarray(out), data[f"output_{i}"], rtol=1e-12)
        print(f"self-test {name}: same inputs and outputs as the corpus")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=".")
    parser.add_argument("--lower", type=int, nargs="*", default=[])
    parser.add_argument("--time", type=int, nargs="*", default=[])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lf", action="store_true", help="time loopfuse.jit beside jax.jit")
    parser.add_argument("--self-test", metavar="CORPUS_DIR")
    args = parser.parse_args()
    jax.config.update("jax_enable_x64", True)
    if args.self_test:
        self_test(args.self_test)
    for batch in args.lower:
        lower(batch, args.out)
    for batch in args.time:
        time_batch(batch, args.repeat, args.lf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
