"""The seed program of ../shared/seeds/000_fc20e847646d6162.txt, as its author wrote it.

Two changes only, both forced by jax 0.11: `enable_x64` moved from `jax.experimental` to `jax`, and
the module-level driver loop is wrapped in functions so that the demo and the benchmarks can reuse
the program. Everything that defines the computation is verbatim.
"""

from functools import partial
from typing import Any

import haiku as hk
import jax.numpy as jnp
from jax import jit
from jax.lax import while_loop
from jax.nn import sigmoid, softplus
from jax.random import PRNGKey, normal, split
from tjax.dataclasses import dataclass  # Equivalent to flax.struct.dataclass


class Linear(hk.Module):
    def __init__(self, output_size: int):
        super().__init__()
        self.output_size = output_size

    def __call__(self, inputs):
        w = hk.get_parameter(
            "w",
            [inputs.shape[-1], self.output_size],
            inputs.dtype,  # Passing dtype costs 23%!
            init=jnp.zeros,
        )
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
    return while_loop(
        partial(state_needs_iteration, maximum_iterations),
        partial(update_state, weights),
        initial_state,
    )


def infer_encoding_unjitted(weights, initial_rng, maximum_iterations):
    initial_sampler_state = SamplerState(jnp.zeros(shape), initial_rng, 0)
    return find_fixed_point(weights, initial_sampler_state, maximum_iterations)


# Passing maximum_iterations non-statically costs 43%!
infer_encoding = partial(jit, static_argnums=())(infer_encoding_unjitted)


def seed_inputs():
    """The inputs the seed script builds (call inside `enable_x64()` for the x64 variant)."""
    rng = PRNGKey(12)
    weight_rng, inference_rng = split(rng)
    weights = hk.transform(haiku_weight_initializer).init(weight_rng)
    return weights, inference_rng
