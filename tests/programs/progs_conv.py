"""Convolution programs: jax.lax.conv_general_dilated in its layouts and window forms, and a
convolutional denoiser inside a sampling loop (a diffusion sampler's shape)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import normal, program


@program(
    "conv_forms",
    args=lambda rng: (
        normal(rng, (2, 8, 8, 3)),
        normal(rng, (3, 3, 3, 4)),
        normal(rng, (2, 3, 9, 9)),
        normal(rng, (6, 1, 3, 3)),
        normal(rng, (3, 20)),
    ),
)
def conv_forms(x, w, y, dw, s):
    # NHWC "SAME"; NCHW strided, asymmetric and negative padding, window dilation, depthwise
    # (feature_group_count); a transposed convolution (lhs dilation); 1-D convolve; gradients
    # (the weight gradient swaps the dimension labels).
    same = lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    depthwise = lax.conv_general_dilated(
        y, dw, (2, 2), ((1, 0), (-1, 1)), rhs_dilation=(2, 1), feature_group_count=3
    )
    transposed = lax.conv_transpose(
        x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    smooth = jnp.convolve(s[0], jnp.array([0.25, 0.5, 0.25]), mode="same")

    def loss(x, w):
        # One image, stride 2: each weight gradient sums 9 terms (a longer sum's cancellation
        # would measure summation order, not correctness).
        out = lax.conv_general_dilated(
            x[:1], w, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        # A quarter: the input gradient's elements cancel (some end near 1e-3 from terms near 1,
        # where JAX's own f32 result is 7e-7 from the exact one), so at full scale f32's atol of
        # 1e-6 would measure the summation order; a quarter keeps the test on the indices.
        return 0.25 * jnp.sum(jnp.tanh(out))

    gx, gw = jax.grad(loss, argnums=(0, 1))(x, w)
    return same, depthwise, transposed, smooth, gx, gw


@program(
    "conv_denoising_sampler",
    args=lambda rng: (
        normal(rng, (4, 16, 16, 1)),
        normal(rng, (3, 3, 1, 8)) * 0.3,
        normal(rng, (3, 3, 8, 1)) * 0.3,
    ),
)
def conv_denoising_sampler(x, w1, w2):
    # Twenty steps of x <- x - eps(x) * dt + noise, eps a two-layer convolutional net: the loop a
    # diffusion sampler runs, whose every step XLA launches as separate kernels.
    dn = ("NHWC", "HWIO", "NHWC")

    def eps(x, t):
        h = jax.nn.gelu(lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn))
        return lax.conv_general_dilated(h * (1.0 + t), w2, (1, 1), "SAME", dimension_numbers=dn)

    def step(i, carry):
        x, key = carry
        key, sub = jax.random.split(key)
        t = 1.0 - i.astype(jnp.float32) / 20.0
        x = x - 0.05 * eps(x, t) + 0.02 * jax.random.normal(sub, x.shape)
        return x, key

    x, _ = lax.fori_loop(0, 20, step, (x, jax.random.key(0)))
    return x
