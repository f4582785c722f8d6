"""The everyday jax.numpy / lax / jax.scipy / jax.random functions for scripts/library_survey.py:
one row each, on small f32 inputs (a 16-vector, a 6x6 matrix and its SPD companion, an int32
vector, a key), named as a user would look for them."""

from typing import Any, Callable

import jax
import jax.numpy as jnp
import jax.scipy as jsp
import numpy as np


def everyday_cases() -> dict[str, tuple[Callable[..., Any], Any]]:
    rng = np.random.default_rng(0)
    A = jnp.asarray(rng.standard_normal((6, 6)), jnp.float32)
    S = A @ A.T + 6 * jnp.eye(6)
    v = jnp.asarray(rng.standard_normal(16), jnp.float32)
    vp = jnp.abs(v) + 0.1
    iv = jnp.asarray(rng.integers(-50, 50, 16), jnp.int32)
    key = jax.random.key(0)
    return {
        "cumsum": (lambda x: jnp.cumsum(x), v),
        "cumprod": (lambda x: jnp.cumprod(x), v),
        "cummax": (lambda x: jax.lax.cummax(x), v),
        "logcumsumexp": (lambda x: jax.lax.cumlogsumexp(x), v),
        "sort": (jnp.sort, v),
        "argsort": (jnp.argsort, v),
        "median": (jnp.median, v),
        "percentile": (lambda x: jnp.percentile(x, 30.0), v),
        "quantile": (lambda x: jnp.quantile(x, jnp.array([0.1, 0.5, 0.9])), v),
        "searchsorted": (lambda x: jnp.searchsorted(jnp.sort(x), jnp.array([0.0, 0.5])), v),
        "interp": (lambda x: jnp.interp(jnp.linspace(-1, 1, 7), jnp.sort(x), x), v),
        "unique_size": (lambda x: jnp.unique(x, size=16, fill_value=0), iv),
        "bincount": (lambda x: jnp.bincount(jnp.abs(x), length=60), iv),
        "histogram": (lambda x: jnp.histogram(x, bins=5, range=(-2, 2))[0], v),
        "argmax": (jnp.argmax, v),
        "nanmean": (jnp.nanmean, v),
        "var_std": (lambda x: (jnp.var(x), jnp.std(x)), v),
        "corrcoef": (lambda x: jnp.corrcoef(x.reshape(4, 4)), v),
        "cov": (lambda x: jnp.cov(x.reshape(4, 4)), v),
        "polyval": (lambda x: jnp.polyval(x[:4], x), v),
        "convolve": (lambda x: jnp.convolve(x, x[:5]), v),
        "correlate": (lambda x: jnp.correlate(x, x[:5], mode="same"), v),
        "outer_kron": (lambda x: jnp.kron(x[:3], x[:4]), v),
        "einsum": (lambda a: jnp.einsum("ij,jk,k->i", a, a, a[0]), A),
        "tensordot": (lambda a: jnp.tensordot(a, a, axes=2), A),
        "matrix_power": (lambda a: jnp.linalg.matrix_power(a, 5), A),
        "trace_diag": (lambda a: jnp.trace(a) + jnp.diag(a).sum(), A),
        "tril_triu": (lambda a: jnp.tril(a) - jnp.triu(a, 1), A),
        "roll_flip": (lambda x: jnp.roll(jnp.flip(x), 3), v),
        "where_clip": (lambda x: jnp.where(x > 0, jnp.clip(x, 0, 1), x**2), v),
        "pad_reflect": (lambda x: jnp.pad(x, 3, mode="reflect"), v),
        "pad_wrap": (lambda x: jnp.pad(x, 3, mode="wrap"), v),
        "take_along": (lambda x: jnp.take_along_axis(x, jnp.argsort(x), 0), v),
        "solve": (lambda a: jnp.linalg.solve(a, a[0]), S),
        "inv": (jnp.linalg.inv, S),
        "det": (jnp.linalg.det, A),
        "slogdet": (lambda a: jnp.linalg.slogdet(a)[1], A),
        "cholesky": (jnp.linalg.cholesky, S),
        "eigh": (lambda a: jnp.linalg.eigh(a)[0], S),
        "svd": (lambda a: jnp.linalg.svd(a, compute_uv=False), A),
        "pinv": (jnp.linalg.pinv, A),
        "lstsq": (lambda a: jnp.linalg.lstsq(a[:, :4], a[0])[0], A),
        "norm_fro": (jnp.linalg.norm, A),
        "expm": (lambda a: jsp.linalg.expm(a / 4), A),
        "lu": (lambda a: jsp.linalg.lu(a)[2], A),
        "solve_triangular": (
            lambda a: jsp.linalg.solve_triangular(jnp.tril(S), a[0], lower=True),
            S,
        ),
        "cho_solve": (lambda a: jsp.linalg.cho_solve(jsp.linalg.cho_factor(a), a[0]), S),
        "sqrtm_eigh": (
            lambda a: (lambda w, q: q @ jnp.diag(jnp.sqrt(w)) @ q.T)(*jnp.linalg.eigh(a)),
            S,
        ),
        "logsumexp": (jsp.special.logsumexp, v),
        "softmax": (jax.nn.softmax, v),
        "log_softmax": (jax.nn.log_softmax, v),
        "gelu": (jax.nn.gelu, v),
        "gelu_exact": (lambda x: jax.nn.gelu(x, approximate=False), v),
        "silu_softplus": (lambda x: jax.nn.silu(x) + jax.nn.softplus(x), v),
        "one_hot": (lambda x: jax.nn.one_hot(jnp.abs(x) % 7, 7), iv),
        "gammaln": (jsp.special.gammaln, vp),
        "digamma": (jsp.special.digamma, vp),
        "erf_erfc_erfinv": (
            lambda x: jsp.special.erf(x) + jsp.special.erfc(x) + jsp.special.erfinv(jnp.tanh(x)),
            v,
        ),
        "ndtri": (lambda x: jsp.special.ndtri(jax.nn.sigmoid(x)), v),
        "xlogy": (lambda x: jsp.special.xlogy(x, vp), v),
        "i0e_i1e": (lambda x: jsp.special.i0e(x) + jsp.special.i1e(x), v),
        "betainc": (lambda x: jsp.special.betainc(2.0, 3.0, jax.nn.sigmoid(x)), v),
        "gammainc": (lambda x: jsp.special.gammainc(2.5, x), vp),
        "gammaincc": (lambda x: jsp.special.gammaincc(2.5, x), vp),
        "betaln": (lambda x: jsp.special.betaln(x, x + 1), vp),
        "polygamma": (lambda x: jsp.special.polygamma(1, x), vp),
        "zeta": (lambda x: jsp.special.zeta(x + 1.5, 1.0), vp),
        "expit_logit": (lambda x: jsp.special.logit(jsp.special.expit(x)), v),
        "norm_logpdf_cdf": (
            lambda x: jsp.stats.norm.logpdf(x)
            + jsp.stats.norm.cdf(x)
            + jsp.stats.norm.ppf(jax.nn.sigmoid(x)),
            v,
        ),
        "t_logpdf": (lambda x: jsp.stats.t.logpdf(x, 3.0), v),
        "gamma_logpdf": (lambda x: jsp.stats.gamma.logpdf(x, 2.0), vp),
        "beta_logpdf": (lambda x: jsp.stats.beta.logpdf(jax.nn.sigmoid(x), 2.0, 3.0), v),
        "mvn_logpdf": (lambda a: jsp.stats.multivariate_normal.logpdf(a[0], jnp.zeros(6), a), S),
        "poisson_logpmf": (lambda x: jsp.stats.poisson.logpmf(jnp.abs(x), 3.0), iv),
        "signal_convolve2d": (lambda a: jsp.signal.convolve2d(a, a[:3, :3], mode="same"), A),
        "ndimage_map_coords": (
            lambda a: jsp.ndimage.map_coordinates(
                a, [jnp.linspace(0, 5, 7), jnp.linspace(0, 5, 7)], order=1
            ),
            A,
        ),
        "image_resize": (lambda a: jax.image.resize(a, (9, 9), "linear"), A),
        "fft_rfft": (lambda x: jnp.abs(jnp.fft.rfft(x)), v),
        "fft2": (lambda a: jnp.abs(jnp.fft.fft2(a)), A),
        "assoc_scan": (lambda x: jax.lax.associative_scan(jnp.add, x), v),
        "reduce_window": (
            lambda a: jax.lax.reduce_window(a, 0.0, jax.lax.add, (2, 2), (1, 1), "SAME"),
            A,
        ),
        "top_k": (lambda x: jax.lax.top_k(x, 4)[0], v),
        "segment_sum": (lambda x: jax.ops.segment_sum(x, jnp.arange(16) // 4, num_segments=4), v),
        "dynamic_slice": (lambda x: jax.lax.dynamic_slice(x, (jnp.argmax(x) % 8,), (4,)), v),
        "scatter_add_at": (lambda x: x.at[jnp.array([1, 1, 3])].add(1.0), v),
        "switch": (lambda x: jax.lax.switch(jnp.argmax(x) % 3, [jnp.sin, jnp.cos, jnp.tanh], x), v),
        "map": (lambda x: jax.lax.map(lambda r: r.sum(), x.reshape(4, 4)), v),
        "checkpoint_grad": (jax.grad(lambda x: jax.checkpoint(lambda y: jnp.sin(y).sum())(x)), v),
        "hessian": (lambda x: jax.hessian(lambda y: jnp.sum(jnp.sin(y) * y[0]))(x[:4]), v),
        "jacfwd": (lambda x: jax.jacfwd(jnp.tanh)(x[:4]), v),
        "rand_normal_unif": (
            lambda k: jax.random.normal(k, (8,)) + jax.random.uniform(k, (8,)),
            key,
        ),
        "rand_gamma_beta": (
            lambda k: jax.random.gamma(k, 2.0, (8,)) + jax.random.beta(k, 2.0, 3.0, (8,)),
            key,
        ),
        "rand_poisson": (lambda k: jax.random.poisson(k, 3.0, (8,)), key),
        "rand_categorical": (lambda k: jax.random.categorical(k, jnp.zeros((5,)), shape=(8,)), key),
        "rand_choice": (lambda k: jax.random.choice(k, 10, (4,), replace=False), key),
        "rand_permutation": (lambda k: jax.random.permutation(k, 10), key),
        "rand_mvn": (
            lambda k: jax.random.multivariate_normal(k, jnp.zeros(3), jnp.eye(3) * 2.0),
            key,
        ),
        "rand_trunc_normal": (lambda k: jax.random.truncated_normal(k, -1.0, 1.0, (8,)), key),
        "rand_bernoulli_randint": (
            lambda k: jax.random.bernoulli(k, 0.3, (8,)).astype(jnp.int32)
            + jax.random.randint(k, (8,), 0, 10),
            key,
        ),
        "rand_dirichlet": (lambda k: jax.random.dirichlet(k, jnp.ones(4)), key),
        "rand_exp_laplace_gumbel": (
            lambda k: jax.random.exponential(k, (8,))
            + jax.random.laplace(k, (8,))
            + jax.random.gumbel(k, (8,)),
            key,
        ),
        "rand_t_cauchy": (lambda k: jax.random.t(k, 3.0, (8,)) + jax.random.cauchy(k, (8,)), key),
        "rand_binomial": (lambda k: jax.random.binomial(k, 10, 0.3, (8,)), key),
        "rand_orthogonal": (lambda k: jax.random.orthogonal(k, 3), key),
        "rand_ball": (lambda k: jax.random.ball(k, 3), key),
        "bf16_mlp": (
            lambda x: jax.nn.relu(
                x.astype(jnp.bfloat16).reshape(4, 4) @ x.astype(jnp.bfloat16).reshape(4, 4)
            ).astype(jnp.float32),
            v,
        ),
        "f16_math": (lambda x: jnp.exp(x.astype(jnp.float16)).astype(jnp.float32), v),
        "int_ops": (
            lambda x: (x // 3) + (x % 5) + (x >> 2) + jnp.gcd(x, 12) + jnp.lcm(x % 5, 3),
            iv,
        ),
        "uint_bits": (
            lambda x: jax.lax.population_count(x.astype(jnp.uint32)) + jax.lax.clz(x),
            iv,
        ),
        "isclose_allclose": (lambda x: jnp.isclose(x, x * 1.0000001).sum() + jnp.allclose(x, x), v),
        "nan_to_num": (lambda x: jnp.nan_to_num(jnp.log(x)), v),
        "angle_complex": (lambda x: jnp.angle(x + 1j * x[::-1]), v),
        "meshgrid_stack": (lambda x: jnp.stack(jnp.meshgrid(x[:3], x[:4])).sum(0), v),
        "linspace_arange": (lambda x: x * jnp.linspace(0, 1, 16) + jnp.arange(16), v),
        "round_floor": (
            lambda x: jnp.round(x * 3) + jnp.floor(x) + jnp.ceil(x) + jnp.trunc(x) + jnp.rint(x),
            v,
        ),
        "hypot_arctan2": (lambda x: jnp.hypot(x, 1.0) + jnp.arctan2(x, x[::-1]), v),
        "sinc_logaddexp": (lambda x: jnp.sinc(x) + jnp.logaddexp(x, -x), v),
        "cbrt_exp2": (lambda x: jnp.cbrt(x) + jnp.exp2(x) + jnp.log2(vp) + jnp.log10(vp), v),
        "arcsinh_etc": (
            lambda x: jnp.arcsinh(x) + jnp.arccosh(vp + 1) + jnp.arctanh(jnp.tanh(x) * 0.9),
            v,
        ),
        "sign_copysign": (lambda x: jnp.sign(x) + jnp.copysign(1.0, x) + jnp.nextafter(x, 0.0), v),
        "frexp_ldexp": (lambda x: jnp.ldexp(*jnp.frexp(x)), v),
        "modf_fmod": (lambda x: jnp.modf(x)[0] + jnp.fmod(x, 0.3) + jnp.remainder(x, 0.3), v),
    }
