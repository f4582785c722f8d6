"""Complex numbers and Fourier transforms: jnp.fft in every form, complex arithmetic, and the
spectral solvers that run them in a loop (a pseudo-spectral PDE step, a split-step Schrodinger
propagator). Transforms use norm="ortho" where their outputs are compared element by element, so
that every point is of the inputs' size (the float tolerances are element-wise)."""

import jax
import jax.numpy as jnp
import numpy as np

from registry import normal, program


def complex_normal(rng: np.random.Generator, shape: tuple[int, ...], dtype=np.complex64):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@program(
    "fft_forms",
    args=lambda rng: (
        complex_normal(rng, (3, 16)),
        normal(rng, (2, 12)),
        complex_normal(rng, (2, 4, 7)),
        normal(rng, (2, 4, 6, 8)),
    ),
)
def fft_forms(z, x, w, v):
    # Every fft_type over one, two and three dimensions; lengths that are powers of two and that
    # are not (12, 7, 6: radix 3, a prime's direct sum); the round trips give the inputs back.
    o = "ortho"
    return (
        jnp.fft.fft(z, norm=o),
        jnp.fft.ifft(z, norm=o),
        jnp.fft.rfft(x, norm=o),
        jnp.fft.irfft(jnp.fft.rfft(x), 12),
        jnp.fft.irfft(z[:, :9], 16, norm=o),
        jnp.fft.fft2(w, norm=o),
        jnp.fft.ifftn(jnp.fft.fftn(w)),
        jnp.fft.rfftn(v, axes=(1, 2, 3), norm=o),
        jnp.fft.irfftn(jnp.fft.rfft2(v), v.shape[-2:]),
        jnp.fft.fft(x, axis=0, norm=o),
        jnp.fft.fftshift(jnp.fft.fft(z[0], norm=o)),
    )


@program(
    "fft_complex_arithmetic",
    args=lambda rng: (
        complex_normal(rng, (6,)),
        complex_normal(rng, (6,)),
        normal(rng, (6,)),
        complex_normal(rng, (3, 6)),
    ),
)
def fft_complex_arithmetic(a, b, r, m):
    # Arithmetic, comparisons and reductions on complex values, the planted zeros and infinities
    # of division, abs and sign among them; a complex dot, scatters and a conditional.
    a = a.at[0].set(0).at[1].set(jnp.inf + 1j)
    b = b.at[2].set(0)
    s = jnp.where(jnp.abs(a[3]) > 1.0, a[3], b[3])
    return (
        a * b,
        a / b,
        b / (a + 1j),
        jnp.abs(a),
        jnp.sign(b),
        jnp.conj(a) * r,
        jnp.exp(b),
        a == b,
        a != a,
        jnp.sum(m, axis=1),
        jnp.prod(b),
        m @ b,
        jnp.vdot(b, b),
        b.at[jnp.array([0, 2, 2])].add(a[3:]),
        jnp.angle(b),
        (b.real + 1j * r).astype(jnp.complex64),
        jnp.cumsum(b),
        jax.lax.cond(s.real > 0, lambda z: z * 2, lambda z: -z, s),
    )


@program(
    "fft_burgers_spectral",
    args=lambda rng: (np.sin(np.linspace(0, 2 * np.pi, 64, endpoint=False)).astype(np.float32),),
)
def fft_burgers_spectral(u0):
    # Viscous Burgers' equation u_t = -u u_x + nu u_xx, derivatives in Fourier space (rfft,
    # multiply by ik, irfft), forward Euler: the transforms run 3 times per step in the loop.
    n = u0.shape[-1]
    ik = 1j * jnp.fft.rfftfreq(n, 1.0 / n)
    nu, dt = 0.05, 1e-3

    def step(_, u):
        uh = jnp.fft.rfft(u)
        ux = jnp.fft.irfft(ik * uh, n)
        uxx = jnp.fft.irfft(ik * ik * uh, n)
        return u + dt * (-u * ux + nu * uxx)

    return jax.lax.fori_loop(0, 200, step, u0)


@program(
    "fft_schrodinger_split_step",
    args=lambda rng: (
        np.exp(1j * np.linspace(0, 2 * np.pi, 32, endpoint=False)).astype(np.complex64)
        * np.exp(-((np.linspace(-3, 3, 32)) ** 2)).astype(np.float32),
        (np.linspace(-3, 3, 32) ** 2).astype(np.float32),
    ),
)
def fft_schrodinger_split_step(psi, potential):
    # Strang splitting of i psi_t = -psi_xx / 2 + V psi: a complex state carried by the loop, a
    # half step of the potential, the kinetic step in Fourier space (fft, ifft), the other half.
    n = psi.shape[-1]
    k = 2 * jnp.pi * jnp.fft.fftfreq(n, 6.0 / n)
    dt = 0.01
    half_v = jnp.exp(-0.5j * dt * potential)
    kinetic = jnp.exp(-0.5j * dt * k**2)

    def step(p, _):
        p = half_v * jnp.fft.ifft(kinetic * jnp.fft.fft(half_v * p))
        return p, jnp.sum(jnp.abs(p) ** 2)

    return jax.lax.scan(step, psi, None, length=100)


@program(
    "fft_complex128",
    args=lambda rng: (complex_normal(rng, (4, 10), np.complex128), normal(rng, (16,), np.float64)),
    x64=True,
)
def fft_complex128(z, x):
    o = "ortho"
    return (
        jnp.fft.fft(z, norm=o),
        jnp.fft.irfft(jnp.fft.rfft(x) * (1 + 0.5j), 16),
        jnp.abs(z) * z / (z + 2),
        jnp.sum(z * z, axis=0),
    )
