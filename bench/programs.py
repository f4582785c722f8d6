"""The benchmark suite: every program with the sizes it runs at, per platform.

A `Benchmark` names one (program, size) pair. `suite(platform, quick)` lists them in the order the
harness runs them. `build()` is called inside `jax.enable_x64(benchmark.x64)`, so the inputs get
the dtypes the program is meant to run with.
"""

from __future__ import annotations

import dataclasses
import itertools
import pathlib
import sys
from typing import Any, Callable

import jax

import workloads
from workloads import Case


@dataclasses.dataclass(frozen=True)
class Benchmark:
    name: str  # unique, "<group>/<variant>", used by --only and in the result files
    group: str  # the program: seed, scan_matmul, rk4, hmc, gru, grad_scan, conv_sampler, ...
    build: Callable[[], Case]
    iterations: int  # loop trips per call: time per iteration = time per call / iterations
    batch: int = 1  # independent chains (vmap), 1 for none
    x64: bool = False
    params: dict[str, Any] = dataclasses.field(default_factory=dict)
    # (rtol, atol) for floating outputs; None: the defaults of harness.TOLERANCES for the dtype.
    tolerance: tuple[float, float] | None = None

    @property
    def work(self) -> int:
        """Chain-iterations per call, what the work cap limits."""
        return self.iterations * self.batch


# --- the seed program ----------------------------------------------------------------------------


def _seed_program() -> tuple[Callable[..., Any], Any, Any, str]:
    """The seed as written; where haiku or tjax is missing (the GPU image), the haiku-free copy
    of tests/gpu/seed_jax.py: the same computation, with haiku's zero weights written out."""
    try:
        import seed_program  # haiku and tjax: imported only when a seed benchmark runs

        weights, rng = seed_program.seed_inputs()
        return seed_program.infer_encoding_unjitted, weights, rng, ""
    except ImportError as e:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "gpu"))
        import seed_jax

        fun, (weights, rng, _) = seed_jax.seed_inputs(1)
        return fun, weights, rng, f"haiku-free copy tests/gpu/seed_jax.py ({e})"


def _seed_case(iterations: int, batch: int, static: bool) -> Case:
    fun, weights, rng, note = _seed_program()
    if batch > 1:
        # Independent chains: one key each, the weights and the trip count shared.
        fun = jax.vmap(fun, in_axes=(None, 0, None))
        rng = jax.random.split(rng, batch)
    return Case(fun, (weights, rng, iterations), (2,) if static else (), note)


def _seed(x64: bool, static: bool, iterations: int, batch: int) -> Benchmark:
    bits = "x64" if x64 else "x32"
    mode = "static" if static else "traced"
    return Benchmark(
        name=f"seed/{bits}/{mode}/n{iterations}/b{batch}",
        group="seed",
        build=lambda: _seed_case(iterations, batch, static),
        iterations=iterations,
        batch=batch,
        x64=x64,
        params={"x64": x64, "maximum_iterations": mode},
    )


def seed_suite(quick: bool) -> tuple[list[Benchmark], list[Benchmark]]:
    """The headline sweep (x64 as the seed runs it, traced trip count), and the other variants."""
    if quick:
        return [_seed(True, False, 100, 1)], [_seed(True, True, 100, 8)]
    grid = itertools.product((True, False), (False, True), (1, 1024, 4096), (1000, 8000, 100000))
    seeds = [_seed(x64, static, n, b) for x64, static, b, n in grid]
    headline = [b for b in seeds if b.x64 and b.params["maximum_iterations"] == "traced"]
    return headline, [b for b in seeds if b not in headline]


# --- the other programs --------------------------------------------------------------------------


def _scan_matmul(shape: tuple[int, ...], variant: str) -> Benchmark:
    return Benchmark(
        name=f"scan_matmul/{variant}/{'x'.join(map(str, shape))}",
        group="scan_matmul",
        build=lambda: workloads.scan_matmul_case(shape, variant),
        iterations=workloads.SCAN_REPEAT,
        params={"shape": list(shape), "variant": variant},
        # 16 products of growing values (to about 1e16): summation order differs by compiler.
        tolerance=(1e-4, 0.0),
    )


def _rk4(steps: int) -> Benchmark:
    return Benchmark(
        name=f"rk4/van_der_pol/n{steps}",
        group="rk4",
        build=lambda: workloads.rk4_case(steps),
        iterations=steps,
        x64=True,
        params={"steps": steps, "system": "Van der Pol, mu=1, dt=0.01"},
    )


def _hmc(chains: int, transitions: int, leapfrog: int) -> Benchmark:
    return Benchmark(
        name=f"hmc/logistic/n{transitions * leapfrog}/b{chains}",
        group="hmc",
        build=lambda: workloads.hmc_case(chains, transitions, leapfrog),
        iterations=transitions * leapfrog,  # leapfrog steps, the innermost loop
        batch=chains,
        x64=True,
        params={"transitions": transitions, "leapfrog_steps": leapfrog, "data": [64, 4]},
        tolerance=(1e-9, 1e-12),  # accept decisions flip on larger differences
    )


def _gru(steps: int, hidden: int, batch: int) -> Benchmark:
    return Benchmark(
        name=f"gru/n{steps}/h{hidden}/b{batch}",
        group="gru",
        build=lambda: workloads.gru_case(steps, hidden, batch),
        iterations=steps,
        batch=batch,
        params={"steps": steps, "hidden": hidden, "batch": batch, "inputs": 32},
        tolerance=(1e-4, 1e-5),  # 1,000 steps of f32 matmuls summed in different orders
    )


def _grad_scan(steps: int, hidden: int) -> Benchmark:
    return Benchmark(
        name=f"grad_scan/tanh_rnn/n{steps}/h{hidden}",
        group="grad_scan",
        build=lambda: workloads.grad_scan_case(steps, hidden),
        iterations=steps,
        params={"steps": steps, "hidden": hidden},
        tolerance=(1e-4, 1e-4),
    )


def _conv_sampler(steps: int, batch: int, size: int, channels: int, hidden: int) -> Benchmark:
    return Benchmark(
        name=f"conv_sampler/n{steps}/{batch}x{size}x{size}x{channels}/h{hidden}",
        group="conv_sampler",
        build=lambda: workloads.conv_sampler_case(steps, batch, size, channels, hidden),
        iterations=steps,
        batch=batch,
        params={"convolutions": "3x3 SAME, NHWC", "channels": [channels, hidden, channels]},
        # Each step's convolutions sum 36 and 288 products in an order of their own (XLA's GEMM's).
        tolerance=(1e-4, 1e-4),
    )


def _spectral_flow(steps: int, batch: int, n: int) -> Benchmark:
    return Benchmark(
        name=f"spectral_flow/n{steps}/b{batch}/{n}x{n}",
        group="spectral_flow",
        build=lambda: workloads.spectral_flow_case(steps, batch, n),
        iterations=steps,
        batch=batch,
        params={"decompositions": "eigh and qr per step", "matrix": f"{n}x{n} f32"},
        # Each step's eigh and QR are LAPACK's algorithms, summed in loopfuse's order, not
        # OpenBLAS's; the flow contracts (tanh), so those differences do not grow.
        tolerance=(1e-4, 1e-4),
    )


def _allen_cahn(steps: int, batch: int, n: int) -> Benchmark:
    return Benchmark(
        name=f"allen_cahn/crank_nicolson/n{steps}/b{batch}/{n}",
        group="allen_cahn",
        build=lambda: workloads.allen_cahn_case(steps, batch, n),
        iterations=steps,
        batch=batch,
        params={"method": "Crank-Nicolson, tridiagonal_solve per step", "grid": n, "dtype": "f32"},
        # gtsv's steps are loopfuse's too (the same bits); the cubic reaction term may round
        # differently where XLA fuses its multiplies otherwise.
        tolerance=(1e-4, 1e-4),
    )


def _curve_fit(steps: int, batch: int, points: int) -> Benchmark:
    return Benchmark(
        name=f"curve_fit/gauss_newton/n{steps}/b{batch}/{points}x3",
        group="curve_fit",
        build=lambda: workloads.curve_fit_case(steps, batch, points),
        iterations=steps,
        batch=batch,
        params={"solver": "Gauss-Newton, lstsq (gesdd) per step", "jacobian": f"{points}x3 f32"},
        # Each step's SVD is LAPACK's algorithm summed in loopfuse's order; the fits converge, so
        # those differences stay at the f32 level.
        tolerance=(1e-4, 1e-4),
    )


def _kuramoto_sivashinsky(steps: int, batch: int, n: int) -> Benchmark:
    return Benchmark(
        name=f"kuramoto_sivashinsky/etdrk4/n{steps}/b{batch}/{n}",
        group="kuramoto_sivashinsky",
        build=lambda: workloads.kuramoto_sivashinsky_case(steps, batch, n),
        iterations=steps,
        batch=batch,
        params={"method": "ETDRK4, 4 rfft/irfft pairs per step", "modes": n, "dtype": "f32"},
        # loopfuse's FFT sums in another order than DUCC's, and the flow is chaotic: f32 runs
        # (jax.jit's included) leave f64's by 7e-6 after 50 steps and 5e-3 after 200.
        tolerance=(1e-4, 1e-4),
    )


def _nuts(chains: int, steps: int, split_inside: bool = False) -> Benchmark:
    return Benchmark(
        # split_inside: the chains' keys come from jax.random.split inside the function.
        name=f"nuts/blackjax{'/split_inside' if split_inside else ''}/n{steps}/b{chains}",
        group="nuts",
        build=lambda: workloads.nuts_case(chains, steps, split_inside),
        iterations=steps,  # NUTS transitions (each a trajectory of up to 1,023 leapfrog steps)
        batch=chains,
        params={"library": "blackjax", "target": "5-d correlated Gaussian", "step_size": 0.5},
        # Accept and U-turn decisions can flip on last-bit differences of f32 energies.
        tolerance=(1e-4, 1e-4),
    )


def _diffrax(t1: float) -> Benchmark:
    return Benchmark(
        name=f"diffrax/tsit5_pid/t{t1:g}",
        group="diffrax",
        build=lambda: workloads.diffrax_case(t1),
        iterations=1,  # one adaptive solve (about 1,500 steps)
        params={"library": "diffrax", "solver": "Tsit5", "controller": "PID rtol 1e-6", "t1": t1},
        # An adaptive solve is defined up to its controller's tolerance (see README's limits).
        tolerance=(1e-4, 1e-5),
    )


def _numpyro_nuts(chains: int, steps: int) -> Benchmark:
    return Benchmark(
        name=f"numpyro/nuts/n{steps}/b{chains}",
        group="numpyro",
        build=lambda: workloads.numpyro_nuts_case(chains, steps),
        iterations=steps,  # NUTS transitions, each a tree built in while loops
        batch=chains,
        params={"library": "numpyro", "target": "logistic regression, 100 x 4", "step_size": 0.1},
        # Accept and U-turn decisions can flip on last-bit differences of f32 energies.
        tolerance=(1e-4, 1e-4),
    )


def _numpyro_svi(steps: int) -> Benchmark:
    return Benchmark(
        name=f"numpyro/svi_autonormal/n{steps}",
        group="numpyro",
        build=lambda: workloads.numpyro_svi_case(steps),
        iterations=steps,
        params={"library": "numpyro", "guide": "AutoNormal", "optimizer": "Adam"},
        # Thousands of Adam steps on f32 gradients: last-bit differences accumulate.
        tolerance=(1e-3, 1e-4),
    )


def _flax_lstm(steps: int, hidden: int, batch: int) -> Benchmark:
    return Benchmark(
        name=f"flax/lstm_scan/n{steps}/b{batch}/h{hidden}",
        group="flax",
        build=lambda: workloads.flax_lstm_case(steps, hidden, batch),
        iterations=steps,
        params={"library": "flax.linen", "cell": "LSTMCell", "hidden": hidden},
    )


def _flax_mlp_train(steps: int, batch: int) -> Benchmark:
    return Benchmark(
        name=f"flax/mlp_adamw_train/n{steps}/b{batch}",
        group="flax",
        build=lambda: workloads.flax_mlp_train_case(steps, batch),
        iterations=steps,
        params={"library": "flax.linen + optax", "layers": "Dense-LayerNorm-gelu x2", "width": 64},
        # Hundreds of adamw steps on f32 gradients: last-bit differences accumulate.
        tolerance=(1e-3, 1e-4),
    )


def _libraries(quick: bool) -> list[Benchmark]:
    """blackjax, diffrax, numpyro and flax, where they are installed (the GPU image has none)."""
    import importlib.util

    out = []
    if importlib.util.find_spec("blackjax") is not None:
        out.append(_nuts(chains=4, steps=5) if quick else _nuts(chains=64, steps=100))
        if not quick:
            out.append(_nuts(chains=64, steps=100, split_inside=True))
    if importlib.util.find_spec("diffrax") is not None:
        out.append(_diffrax(1.0 if quick else 20.0))
    if importlib.util.find_spec("numpyro") is not None:
        out.append(_numpyro_nuts(chains=2, steps=5) if quick else _numpyro_nuts(16, 100))
        out.append(_numpyro_svi(10 if quick else 2000))
    if importlib.util.find_spec("flax") is not None:
        out.append(_flax_lstm(5, 4, 2) if quick else _flax_lstm(steps=500, hidden=64, batch=16))
        out.append(_flax_mlp_train(5, 8) if quick else _flax_mlp_train(steps=500, batch=256))
    return out


def suite(platform: str, quick: bool = False) -> list[Benchmark]:
    """Every benchmark for `platform` ("cpu" or "cuda"), in the order they run."""
    if quick:
        scan_shape: tuple[int, ...] = (2, 16, 16)
        others = [
            _rk4(200),
            _hmc(chains=8, transitions=10, leapfrog=2),
            _gru(steps=20, hidden=8, batch=2),
            _grad_scan(steps=20, hidden=4),
            _conv_sampler(steps=2, batch=2, size=8, channels=1, hidden=4),
            _spectral_flow(steps=5, batch=2, n=4),
            _kuramoto_sivashinsky(steps=5, batch=2, n=16),
            _curve_fit(steps=3, batch=2, points=8),
            _allen_cahn(steps=5, batch=2, n=8),
        ]
    else:
        scan_shape = (8, 128, 128) if platform == "cpu" else (512, 1024, 1024)
        others = [
            _rk4(10_000),
            _hmc(chains=1000, transitions=250, leapfrog=4),
            _gru(steps=1000, hidden=128, batch=32),
            _grad_scan(steps=1000, hidden=16),
            _conv_sampler(steps=20, batch=8, size=32, channels=4, hidden=32),
            _spectral_flow(steps=200, batch=64, n=8),
            _spectral_flow(steps=50, batch=4, n=48),  # eigh by divide and conquer (> 25 rows)
            _kuramoto_sivashinsky(steps=50, batch=16, n=128),
            _kuramoto_sivashinsky(steps=50, batch=16, n=96),  # 4 4 2 3: the mixed-radix passes
            _curve_fit(steps=20, batch=64, points=40),
            _allen_cahn(steps=2000, batch=16, n=256),
        ]
    scans = [_scan_matmul(scan_shape, v) for v in ("scan", "unrolled", "unroll4")]
    headline, other_seeds = seed_suite(quick)
    # The seed's other variants last: a suite that runs out of time loses the least there.
    return headline + scans + others + _libraries(quick) + other_seeds
