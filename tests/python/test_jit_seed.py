"""The seed program (/work/shared/seeds/000_fc20e847646d6162.txt) exactly as its author wrote it,
with `jit` replaced by `lf.jit`, run as a script; then checked against jax.jit.

Two lines differ from the seed besides jit -> lf.jit: `from jax import jit` became
`import loopfuse as lf`, and `enable_x64`, which jax 0.11 no longer has in jax.experimental, is
imported from jax.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from conftest import requires_core

SEED_SCRIPT = """\
from functools import partial
from typing import Any
import haiku as hk
import jax.numpy as jnp
from contexttimer import Timer
import loopfuse as lf
from jax import enable_x64
from jax.lax import while_loop
from jax.nn import sigmoid, softplus
from jax.random import PRNGKey, normal, split
from tjax.dataclasses import dataclass  # Equivalent to flax.struct.dataclass

class Linear(hk.Module):
    def __init__(self, output_size: int):
        super().__init__()
        self.output_size = output_size

    def __call__(self, inputs):
        w = hk.get_parameter("w", [inputs.shape[-1], self.output_size],
                             inputs.dtype,  # Passing dtype costs 23%!
                             init=jnp.zeros)
        # Calling softplus costs 32%!
        return jnp.dot(inputs, softplus(w))

class NoisyMLP(hk.Module):
    def __init__(self, layer_sizes):
        super().__init__()
        self.layers = [Linear(output_size) for output_size in layer_sizes]

    def __call__(self, inputs):
        out = inputs
        for layer in self.layers:
            out = layer(out)
            out = sigmoid(out)  # Sigmoid costs 10%!
        return out

@dataclass
class SamplerState:
    code_momentum: Any
    rng: Any
    iterations: Any

shape = (1,)

def nat_to_exp(natural_explanation):
    mlp = NoisyMLP((12, *shape))
    return mlp(natural_explanation)

def haiku_weight_initializer() -> None:
    nat_to_exp(jnp.zeros(shape))

def state_needs_iteration(maximum_iterations, state) -> bool:
    return state.iterations < maximum_iterations

def update_state(weights, state):
    leak_rng, new_rng = split(state.rng)
    nat_to_exp_f = hk.transform(nat_to_exp).apply
    force = nat_to_exp_f(weights, None, state.code_momentum)
    new_code_momentum = force + normal(leak_rng, force.shape)
    return SamplerState(new_code_momentum, new_rng, state.iterations + 1)

def find_fixed_point(weights, initial_state, maximum_iterations):
    return while_loop(partial(state_needs_iteration, maximum_iterations),
                      partial(update_state, weights),
                      initial_state)

@partial(lf.jit, static_argnums=())  # Passing maximum_iterations non-statically costs 43%!
def infer_encoding(weights, initial_rng, maximum_iterations):
    initial_sampler_state = SamplerState(jnp.zeros(shape), initial_rng, 0)
    return find_fixed_point(weights, initial_sampler_state, maximum_iterations)

with enable_x64():  # Enabling 64-bit costs 50%.
    rng = PRNGKey(12)
    weight_rng, inference_rng = split(rng)
    weights = hk.transform(haiku_weight_initializer).init(weight_rng)
    for _ in range(10):
        with Timer() as timer:
            infer_encoding(weights, inference_rng, 8000)
        print(timer.elapsed)
"""

# Appended to the script: the same call through jax.jit is the oracle.
CHECK = """
import jax
import numpy as np

assert infer_encoding.fallback_count == 0, "loopfuse fell back to XLA"
with enable_x64():
    actual = infer_encoding(weights, inference_rng, 8000)
    expected = jax.jit(infer_encoding.__wrapped__)(weights, inference_rng, 8000)
for a, e in zip(jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(expected)):
    a, e = np.asarray(a), np.asarray(e)
    assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, a.shape, e.dtype, e.shape)
    if np.issubdtype(e.dtype, np.floating):
        np.testing.assert_allclose(a, e, rtol=1e-12, atol=1e-14)  # f64 tolerance of the C++ tests
    else:
        np.testing.assert_array_equal(a, e)  # the rng key and the iteration count: exact
assert int(actual.iterations) == 8000
print("seed program matches jax.jit")
"""


@requires_core
def test_seed_program_as_written_with_lf_jit(tmp_path) -> None:
    script = tmp_path / "seed.py"
    script.write_text(SEED_SCRIPT + textwrap.dedent(CHECK))
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=900
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "seed program matches jax.jit" in result.stdout
    timings = [float(line) for line in result.stdout.splitlines()[:10]]
    assert len(timings) == 10
