"""Random chains of data-movement ops through lf.jit, bit for bit against JAX op by op.

loopfuse fuses index-only ops (reverse, slice, dynamic-slice, transpose, reshape, broadcast, pad,
concatenate) by composing their index maps as C expressions; a chain of them is where an
operator-precedence or clamping slip shows (jnp.roll of a jnp.flip once read x[2 + i] for
x[2 - i]). Each case draws a chain from a seed (tests/programs/index_chains.py).

The oracle is JAX op by op (`jax.disable_jit`), not `jax.jit`: XLA's algebraic simplifier folds a
dynamic-slice (or a gather with constant indices) of a dynamic-slice into one dynamic-slice without
the inner clamp, so `jax.jit` reads another element when a start is out of range (openxla/xla#49121,
jax-ml/jax#40849; `lax.dynamic_slice(y, (6,), (4,))[jnp.array([0])]` on `arange(8)` gives 6 under
jax.jit, 4 op by op and in loopfuse). loopfuse follows the HLO semantics.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import requires_core
from index_chains import chain_fn, draw_chain

pytestmark = requires_core

# 40 chains in the suite (about 20 s); LF_CHAINS=400 for a longer search.
CHAINS = int(os.environ.get("LF_CHAINS", "40"))


@pytest.mark.parametrize("seed", range(CHAINS))
def test_index_chain_matches_jax_bit_for_bit(seed: int) -> None:
    x, steps = draw_chain(seed)
    f = chain_fn(steps)
    chain = " -> ".join(name for name, _ in steps)
    for k in (0, 2, -4, 50):  # in range, and clamped at either end
        kk = jnp.int32(k)
        with jax.disable_jit():
            want = f(x, kk)
        got = lf.jit(f, fallback="error")(x, kk)
        for w, g in zip(want, got):
            assert g.shape == w.shape and g.dtype == w.dtype, chain
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=f"k={k}: {chain}")
