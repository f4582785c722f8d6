"""The seed program (/work/shared/seeds/000_fc20e847646d6162.txt), as its author wrote it.

A noisy-MLP sampler: a while_loop of 8000 iterations whose body applies a haiku MLP
(1 -> 12 -> 1, softplus weights, sigmoid activations) and adds jax.random noise. Under
1 ms on the CPU, 7 s on a GPU with XLA. Only the imports changed (see below), and the
timing loop at the end became the input builder `seed_args`.
"""

from functools import partial
from typing import Any

import haiku as hk
import jax
import jax.numpy as jnp
from jax import jit

# The seed imports `enable_x64` from `jax.experimental`, which jax 0.11 no longer has;
# it moved to `jax.enable_x64`. The generator enters it through the program's x64 flag.
from jax import enable_x64  # noqa: F401
from jax.lax import while_loop
from jax.nn import sigmoid, softplus
from jax.random import PRNGKey, normal, split
from tjax.dataclasses import dataclass  # Equivalent to flax.struct.dataclass

from registry import program


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


@partial(jit, static_argnums=())  # Passing maximum_iterations non-statically costs 43%!
def infer_encoding(weights, initial_rng, maximum_iterations):
    initial_sampler_state = SamplerState(jnp.zeros(shape), initial_rng, 0)
    return find_fixed_point(weights, initial_sampler_state, maximum_iterations)


# --- corpus registration -------------------------------------------------------------

MAXIMUM_ITERATIONS = 8000


def seed_args(_rng):
    """The seed script's inputs: haiku's (all-zero) weights, PRNGKey(12) split in two."""
    rng = PRNGKey(12)
    weight_rng, inference_rng = split(rng)
    weights = hk.transform(haiku_weight_initializer).init(weight_rng)
    return weights, inference_rng, MAXIMUM_ITERATIONS


def seed_vmap_args(rng):
    weights, inference_rng, maximum_iterations = seed_args(rng)
    return weights, split(inference_rng, 1024), maximum_iterations


# The generator jits the function itself; __wrapped__ is infer_encoding without its
# jit decorator, so the HLO has no extra `call` level.
_infer_encoding = infer_encoding.__wrapped__

for _name, _x64 in (("seed_x64", True), ("seed_f32", False)):
    program(_name, args=seed_args, x64=_x64, zero_inputs_ok=True)(_infer_encoding)
    # maximum_iterations static: the while condition compares with a constant 8000.
    program(_name + "_static", args=seed_args, x64=_x64, static_argnums=(2,), zero_inputs_ok=True)(
        _infer_encoding
    )


def infer_encoding_vmap(weights, initial_rngs, maximum_iterations):
    """1024 independent chains: vmap over the rng keys."""
    return jax.vmap(_infer_encoding, in_axes=(None, 0, None))(
        weights, initial_rngs, maximum_iterations
    )


program("seed_vmap1024", args=seed_vmap_args, x64=True, zero_inputs_ok=True)(infer_encoding_vmap)
