"""Writes the HLO programs and .npz files that the `loopfuse` command-line tests use (run with the
project's venv; the outputs are committed so the C++ tests need no Python).

  loop.hlo            a fori_loop (5 trips) over f32[3]: c -> 2c + 1; imports fully
  loop.npz            input_0 and JAX's output_0
  loop_wrong.npz      output_0 with one element off by 1 (run --check must fail)
  loop_two_inputs.npz, loop_s32.npz, loop_shape.npz: inputs of the wrong count, dtype, shape
  complex_clamp.hlo   clamp of c64, which loopfuse does not support
  rng_bit_generator_uniform.hlo
                      jax.random with the "rbg" implementation: rng-bit-generator (Philox)
  malformed.hlo       a syntax error on line 4
  host_callback_nonfinite.npz, host_callback_slow.npz
                      inputs of the corpus program loop_host_callback_checks that reach its
                      pure_callback (an iterate becomes infinite) and its debug callback (50
                      iterations do not converge)
"""

import os

os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402
import numpy as np  # noqa: E402


def loop(x):
    return jax.lax.fori_loop(0, 5, lambda i, c: c * 2.0 + 1.0, x)


x = np.array([0.5, -1.0, 3.0], dtype=np.float32)
with open("loop.hlo", "w") as f:
    f.write(jax.jit(loop).lower(x).as_text(dialect="hlo"))
y = np.asarray(jax.jit(loop)(x))
np.savez("loop.npz", input_0=x, output_0=y)
wrong = y.copy()
wrong[1] += 1.0
np.savez("loop_wrong.npz", output_0=wrong)
np.savez("loop_two_inputs.npz", input_0=x, input_1=x)
np.savez("loop_s32.npz", input_0=x.astype(np.int32))
np.savez("loop_shape.npz", input_0=np.zeros((3, 1), dtype=np.float32))

with open("complex_clamp.hlo", "w") as f:
    clamp = jax.jit(lambda v: jax.lax.clamp(0j, v * 1j, 1j))
    f.write(clamp.lower(x.astype(np.complex64)).as_text(dialect="hlo"))

with open("rng_bit_generator_uniform.hlo", "w") as f:
    rbg_key = jax.random.key(0, impl="rbg")
    f.write(jax.jit(lambda k: jax.random.uniform(k, (2, 4))).lower(rbg_key).as_text(dialect="hlo"))

with open("malformed.hlo", "w") as f:
    f.write("HloModule broken\n\nENTRY main {\n  p = f32[3 parameter(0)\n}\n")

np.savez("host_callback_nonfinite.npz", input_0=np.array([4.0, -1.0, 9.0], dtype=np.float32))
np.savez("host_callback_slow.npz", input_0=np.array([4.0, 3e38, 9.0], dtype=np.float32))
