"""Complex numbers and jnp.fft through lf.jit, against jax.jit on the CPU.

loopfuse keeps a complex array as its real and imaginary parts (src/frontend/import_complex.cc)
and runs each transform in the kernel (src/codegen/prelude/lf_fft.h: the mixed-radix Stockham
transform, a pass per factor of the length). XLA:CPU's FFT is DUCC's, which sums in another order: transforms agree
to the float tolerance scaled by the output's largest magnitude (tests/programs/tolerances.py,
`fft_scale`). Complex arithmetic follows XLA's formulas, and divide and abs give its bits.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import loopfuse as lf
from conftest import assert_close, assert_same_bits, requires_core
from tolerances import as_real, fft_scale

pytestmark = requires_core


def complex_normal(rng: np.random.Generator, shape: tuple[int, ...], dtype) -> np.ndarray:
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def check_fft(f, *args) -> None:
    """lf.jit(f) against jax.jit(f), the tolerance scaled by each output's magnitude."""
    x64 = any(np.asarray(a).dtype in (np.float64, np.complex128) for a in args)
    with jax.enable_x64(x64):
        expected = jax.jit(f)(*args)
        actual = lf.jit(f, fallback="error")(*args)
        for i, (a, e) in enumerate(
            zip(jax.tree_util.tree_leaves(actual), jax.tree_util.tree_leaves(expected))
        ):
            assert_close(a, e, what=f"output {i}", scale=fft_scale(np.asarray(e)))


TRANSFORMS = {
    "fft": (jnp.fft.fft, "complex"),
    "ifft": (jnp.fft.ifft, "complex"),
    "rfft": (jnp.fft.rfft, "real"),
    "irfft": (lambda x: jnp.fft.irfft(jnp.fft.rfft(x) * 2.0), "real"),
    "irfft_odd_length": (lambda z: jnp.fft.irfft(z, 2 * z.shape[-1] - 1), "complex"),
    "fft2": (jnp.fft.fft2, "complex"),
    "ifft2": (jnp.fft.ifft2, "complex"),
    "rfft2": (jnp.fft.rfft2, "real"),
    "irfft2": (lambda x: jnp.fft.irfft2(jnp.fft.rfft2(x), x.shape[-2:]), "real"),
    "fftn": (jnp.fft.fftn, "complex"),
    "rfftn": (lambda x: jnp.fft.rfftn(x, axes=(0, 1, 2)), "real"),
    "irfftn": (lambda x: jnp.fft.irfftn(jnp.fft.rfftn(x, axes=(0, 1, 2)), x.shape), "real"),
    "fft_axis0": (lambda z: jnp.fft.fft(z, axis=0), "complex"),
    "fft_padded": (lambda z: jnp.fft.fft(z, n=2 * z.shape[-1]), "complex"),
    "hfft": (jnp.fft.hfft, "complex"),
    "ortho": (lambda z: jnp.fft.ifft(jnp.fft.fft(z, norm="ortho"), norm="forward"), "complex"),
    "fftshift": (lambda z: jnp.fft.ifftshift(jnp.fft.fftshift(jnp.fft.fft(z), axes=-1)), "complex"),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
# 2^4; 4 3; 7 (one direct sum); 4 3 5; 7 11 (radix 7, then 11 as its direct sum).
@pytest.mark.parametrize("n", [16, 12, 7, 60, 77])
def test_transforms_match_jax(name: str, n: int) -> None:
    f, kind = TRANSFORMS[name]
    rng = np.random.default_rng(n)
    shape = (3, 4, n)
    x = (
        complex_normal(rng, shape, np.complex64)
        if kind == "complex"
        else rng.standard_normal(shape).astype(np.float32)
    )
    check_fft(f, x)


@pytest.mark.parametrize("n", [1, 2, 3, 64, 100, 105, 1024])
def test_lengths_in_f64(n: int) -> None:
    rng = np.random.default_rng(n)
    z = complex_normal(rng, (2, n), np.complex128)
    check_fft(lambda z: (jnp.fft.fft(z), jnp.fft.irfft(z, n), jnp.fft.rfft(z.real)), z)


@pytest.mark.parametrize("n", [8192, 5000, 4099])
def test_long_lines_are_transformed_in_scratch(n: int) -> None:
    # Past 4,096 points a line's arrays and work space live in the kernel's scratch
    # (plan::fftLinesInScratch), as on a GPU; 5,000 is 2^3 5^4, 4,099 a prime (its direct sum).
    z = complex_normal(np.random.default_rng(n), (2, n), np.complex64)
    check_fft(lambda z: (jnp.fft.fft(z), jnp.fft.irfft(z, n)), z)


def test_complex_arguments_results_and_pytrees() -> None:
    # Complex leaves in and out of a pytree, keyword arguments, a Python complex scalar, c128.
    rng = np.random.default_rng(0)

    def f(state, *, scale):
        z, w = state["z"], state["w"]
        return {"sum": z * scale + w.astype(z.dtype), "abs": jnp.abs(z), "back": (w * 1j, z.real)}

    state = {
        "z": complex_normal(rng, (5,), np.complex64),
        "w": complex_normal(rng, (5,), np.complex64),
    }
    expected = jax.jit(f)(state, scale=2 - 1j)
    actual = lf.jit(f, fallback="error")(state, scale=2 - 1j)
    assert_close(actual, expected)
    with jax.enable_x64(True):
        z = complex_normal(rng, (3, 4), np.complex128)
        assert_close(
            lf.jit(lambda z: z @ z.T.conj(), fallback="error")(z),
            jax.jit(lambda z: z @ z.T.conj())(z),
        )


def assert_same_bits_or_nan(actual, expected, what: str) -> None:
    """Every value's bits equal, signed zeros included, except that a NaN need only be a NaN (its
    sign and payload come from whichever instruction made it, which XLA does not fix either)."""
    a, e = as_real(np.asarray(actual)), as_real(np.asarray(expected))
    nan = np.isnan(e)
    assert np.array_equal(np.isnan(a), nan), f"{what}: NaNs in other places"
    assert_same_bits(np.where(nan, 0, a), np.where(nan, 0, e), what)


def test_complex_divide_and_abs_give_xla_bits() -> None:
    # Smith's algorithm and XLA's corner cases: zero divisors, infinite and NaN parts, signed zeros.
    special = np.array([0.0, -0.0, 1.0, -2.5, 1e30, -1e-30, np.inf, -np.inf, np.nan], np.float32)
    re, im = np.meshgrid(special, special)
    corners = np.empty(re.size, np.complex64)
    corners.real, corners.imag = re.ravel(), im.ravel()
    rng = np.random.default_rng(5)
    a = np.concatenate([corners, complex_normal(rng, (corners.size,), np.complex64)])
    b = np.concatenate([corners[::-1], complex_normal(rng, (corners.size,), np.complex64)])
    for name, f in {
        "divide": lambda a, b: a / b,
        "abs": lambda a, b: jnp.abs(a),
        "reciprocal": lambda a, b: 1 / b,
    }.items():
        assert_same_bits_or_nan(lf.jit(f, fallback="error")(a, b), jax.jit(f)(a, b), name)


def test_complex_ops_match_jax() -> None:
    rng = np.random.default_rng(3)
    z = complex_normal(rng, (8,), np.complex64)
    w = complex_normal(rng, (8,), np.complex64)
    r = rng.standard_normal(8).astype(np.float32)
    fs = {
        "arith": lambda z, w, r: (z * w - z / (w + 1) + r, -z, jnp.conj(z) * 2j),
        "elementary": lambda z, w, r: (jnp.exp(z), jnp.log(z), jnp.sqrt(w), jnp.sin(z), jnp.cos(w)),
        "parts": lambda z, w, r: (z.real, z.imag, jnp.angle(w), jnp.sign(z), jax.lax.complex(r, r)),
        "compare": lambda z, w, r: (z == w, z != z, jnp.where(z.real > 0, z, w)),
        "reduce": lambda z, w, r: (jnp.sum(z), jnp.prod(z[:4]), jnp.mean(w), jnp.cumsum(z)),
        "linear": lambda z, w, r: (jnp.outer(z, w) @ z, jnp.vdot(z, w), jnp.linalg.norm(z)),
        "movement": lambda z, w, r: (
            jnp.concatenate([z, w])[::3],
            jnp.pad(z, 2, constant_values=1 - 1j),
            z.reshape(2, 4).T,
            z[jnp.array([5, 0, 0])],
            z.at[jnp.array([1, 1, 2])].add(w[:3]),
            z.at[2:4].set(w[:2]),
        ),
    }
    for name, f in fs.items():
        assert_close(lf.jit(f, fallback="error")(z, w, r), jax.jit(f)(z, w, r), what=name)


def spectral_burgers(u0, steps):
    """Viscous Burgers' equation, derivatives in Fourier space, forward Euler."""
    n = u0.shape[-1]
    ik = 1j * jnp.fft.rfftfreq(n, 1.0 / n)

    def step(_, u):
        uh = jnp.fft.rfft(u)
        ux = jnp.fft.irfft(ik * uh, n)
        uxx = jnp.fft.irfft(ik * ik * uh, n)
        return u + 1e-3 * (-u * ux + 0.05 * uxx)

    return jax.lax.fori_loop(0, steps, step, u0)


def test_spectral_solver_in_a_loop_vmapped_and_differentiated() -> None:
    x = np.linspace(0, 2 * np.pi, 64, endpoint=False)
    u0 = np.sin(x).astype(np.float32)
    batch = np.stack([np.sin(x + p) * (1 + p) for p in np.linspace(0, 1, 8)]).astype(np.float32)
    steps = 50
    f = lf.jit(spectral_burgers, static_argnums=1, fallback="error")
    assert_close(f(u0, steps), jax.jit(spectral_burgers, static_argnums=1)(u0, steps))
    vf = jax.vmap(spectral_burgers, in_axes=(0, None))
    assert_close(
        lf.jit(vf, static_argnums=1, fallback="error")(batch, steps),
        jax.jit(vf, static_argnums=1)(batch, steps),
    )

    def loss(u):
        return jnp.sum(spectral_burgers(u, steps) ** 2)

    # The backward loop transposes each rfft / irfft: one kernel for it too.
    assert_close(lf.jit(jax.grad(loss), fallback="error")(u0), jax.jit(jax.grad(loss))(u0), scale=4)
    assert_close(jax.grad(lf.jit(loss, fallback="error"))(u0), jax.grad(loss)(u0), scale=4)
    # Inside jax.jit and as a lax.scan body.
    assert_close(
        jax.jit(lambda u: f(u, 10) * 2)(u0), jax.jit(lambda u: spectral_burgers(u, 10) * 2)(u0)
    )


def test_complex_state_carried_by_scan() -> None:
    n = 32
    psi = np.exp(1j * np.linspace(0, 2 * np.pi, n, endpoint=False)).astype(np.complex64)
    k = 2 * np.pi * np.fft.fftfreq(n)
    kinetic = np.exp(-0.005j * k**2).astype(np.complex64)

    def propagate(p):
        def step(p, _):
            p = jnp.fft.ifft(kinetic * jnp.fft.fft(p))
            return p, jnp.sum(jnp.abs(p) ** 2)

        return jax.lax.scan(step, p, None, length=40)

    check_fft(propagate, psi)


def test_unsupported_complex_op_falls_back_naming_it() -> None:
    z = complex_normal(np.random.default_rng(1), (4,), np.complex64)

    def clamp(v):
        return jax.lax.clamp(0j, v, 1j)

    f = lf.jit(clamp)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(z)
    assert_close(out, jax.jit(clamp)(z))
    assert f.fallback_count == 1
    assert any(
        "unsupported op 'clamp' on complex numbers (c64[4])" in str(w.message) for w in caught
    )
    with pytest.raises(lf.CompileError, match="on complex numbers"):
        lf.jit(clamp, fallback="error")(z)


def test_long_transform_falls_back() -> None:
    z = np.ones(20000, np.complex64)
    with pytest.raises(lf.CompileError, match="loopfuse transforms 1 to 16384 points"):
        lf.jit(jnp.fft.fft, fallback="error")(z)
