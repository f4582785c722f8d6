"""Random dot_general forms through lf.jit, against numpy in float64 with an error bound.

The dot's lowering depends on its form (batch, contracting and free dimensions, their order in
each operand, their sizes against the tile sizes) and on what consumes it; an index slip in a
remainder tile, a packed copy of the rhs or a batch's offset gives a wrong element, far outside
the rounding bound. Each case draws a form from a seed (tests/programs/dot_forms.py). int32 dots
are exact (wrapping as XLA's do); floats keep to `K * u * sum|a*b|` per element. The same inputs
through jax.jit are checked against the bound too, so a bound that is too tight fails on JAX as
well and cannot hide behind loopfuse.
"""

from __future__ import annotations

import os

import jax
import numpy as np
import pytest

import loopfuse as lf
from conftest import requires_core
from dot_forms import draw_form, function, inputs, reference

pytestmark = requires_core

# 40 forms in the suite; LF_DOT_FORMS=400 for a longer search.
FORMS = int(os.environ.get("LF_DOT_FORMS", "40"))


def check(form_text: str, got: np.ndarray, want: np.ndarray, bound: np.ndarray, who: str) -> None:
    assert got.shape == want.shape, f"{who}: shape {got.shape} != {want.shape}: {form_text}"
    if got.dtype == np.int32:
        np.testing.assert_array_equal(got, want, err_msg=f"{who}: {form_text}")
        return
    err = np.abs(np.asarray(got, np.float64) - want)
    bad = ~(err <= bound + 1e-300)
    if bad.any():
        first = np.argwhere(bad)[0]
        pytest.fail(
            f"{who}: {int(bad.sum())} of {bad.size} elements outside the bound, first at "
            f"{tuple(int(i) for i in first)}: got {got[tuple(first)]}, want {want[tuple(first)]}, "
            f"bound {bound[tuple(first)]:.3g}: {form_text}"
        )


@pytest.mark.parametrize("seed", range(FORMS))
def test_dot_form_matches_float64_reference(seed: int) -> None:
    form = draw_form(seed)
    lhs, rhs, bias = inputs(form, seed)
    want, bound = reference(form, lhs, rhs, bias)
    fn = function(form)
    with jax.enable_x64(form.dtype == "float64"):
        got = np.asarray(lf.jit(fn, fallback="error")(lhs, rhs, bias))
        try:
            from_jax = np.asarray(jax.jit(fn)(lhs, rhs, bias))
        except jax.errors.JaxRuntimeError as e:
            # XLA:CPU has no bf16 x bf16 = f32 dot for some forms (two contracting dimensions):
            # "UNIMPLEMENTED: Unsupported element type for DotThunk::Execute". loopfuse has.
            assert form.dtype == "bfloat16" and "Unsupported element type" in str(e), e
            from_jax = None
    check(form.describe(), got, want, bound, "loopfuse")
    if from_jax is not None:
        check(form.describe(), from_jax, want, bound, "jax.jit")
