"""The registry of corpus programs.

Each corpus program is a plain JAX function registered with `@program(...)`. The
generator (generate.py) lowers it to HLO, runs it on the CPU and writes the inputs
and JAX's outputs next to the HLO, so the C++ tests need no JAX.

    @program("elementwise_exp", args=lambda rng: (normal(rng, (4, 8)),))
    def elementwise_exp(x):
        return jnp.exp(x)

`args` builds the example arguments from a numpy Generator that is seeded from the
program's name, so the same program always gets the same inputs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import zlib
from typing import Any, Callable, Iterator

import numpy as np


@dataclasses.dataclass(frozen=True)
class Program:
    name: str
    fn: Callable[..., Any]
    # Builds the argument tuple from a seeded numpy Generator. Runs inside the
    # program's x64 setting, so it may call jax (PRNGKey, haiku init).
    make_args: Callable[[np.random.Generator], tuple]
    x64: bool = False
    static_argnums: tuple[int, ...] = ()
    # jax.config options set while lowering and running this program.
    config: tuple[tuple[str, Any], ...] = ()
    # The seed programs take all-zero weights because the seed script makes them so.
    zero_inputs_ok: bool = False
    module: str = ""

    def rng(self) -> np.random.Generator:
        # crc32, not hash(): Python salts str hashes per process.
        return np.random.default_rng(zlib.crc32(self.name.encode()))


PROGRAMS: dict[str, Program] = {}


def program(
    name: str,
    *,
    args: Callable[[np.random.Generator], tuple],
    x64: bool = False,
    static_argnums: tuple[int, ...] = (),
    config: dict[str, Any] | None = None,
    zero_inputs_ok: bool = False,
):
    """Registers the decorated function as corpus program `name`."""

    def register(fn):
        if name in PROGRAMS:
            raise ValueError(f"corpus program {name!r} registered twice")
        if not name.replace("_", "").isalnum() or name != name.lower():
            raise ValueError(f"corpus program name {name!r}: use lower_snake_case")
        PROGRAMS[name] = Program(
            name=name,
            fn=fn,
            make_args=args,
            x64=x64,
            static_argnums=tuple(static_argnums),
            config=tuple(sorted((config or {}).items())),
            zero_inputs_ok=zero_inputs_ok,
            module=fn.__module__,
        )
        return fn

    return register


# Input helpers: every corpus input is random (never all zeros) unless it says why.


def normal(rng: np.random.Generator, shape, dtype=np.float32) -> np.ndarray:
    return rng.standard_normal(shape).astype(dtype)


def host_independent(x: np.ndarray, bits: int = 24) -> np.ndarray:
    """`x` rounded to multiples of 2**-bits (real and imaginary parts alike), in its dtype.

    numpy's matmul and QR run OpenBLAS, whose kernels depend on the host CPU: a matrix built from
    them differs in its last bits between an Intel and an AMD host, and the corpus's inputs must be
    the same everywhere (generate.py --check compares them exactly). Rounding to a coarse grid
    removes those bits (a difference of 1e-15 moves a rounding of 2**-24 with odds of 1e-8)."""
    scale = float(2**bits)
    if np.iscomplexobj(x):
        return (np.round(x.real * scale) / scale + 1j * (np.round(x.imag * scale) / scale)).astype(
            x.dtype
        )
    return (np.round(x * scale) / scale).astype(x.dtype)


def uniform(rng: np.random.Generator, shape, lo=0.0, hi=1.0, dtype=np.float32) -> np.ndarray:
    return rng.uniform(lo, hi, shape).astype(dtype)


def ints(rng: np.random.Generator, shape, lo, hi, dtype=np.int32) -> np.ndarray:
    """Integers drawn uniformly from [lo, hi)."""
    return rng.integers(lo, hi, shape, endpoint=False).astype(dtype)


def bits(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Uniformly random bit patterns of an integer dtype."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    return np.frombuffer(rng.bytes(nbytes), dtype=dtype).reshape(shape).copy()


def prng_key(seed: int) -> np.ndarray:
    """A raw threefry key uint32[2], as jax.random.PRNGKey(seed) makes it."""
    import jax

    return np.asarray(jax.random.PRNGKey(seed))


@contextlib.contextmanager
def program_config(prog: Program) -> Iterator[None]:
    """The program's jax.config settings and x64 flag, for lowering and running it."""
    import jax  # here, so that importing the registry does not import jax

    saved = {key: getattr(jax.config, key) for key, _ in prog.config}
    try:
        for key, value in prog.config:
            jax.config.update(key, value)
        with jax.enable_x64(prog.x64):
            yield
    finally:
        for key, value in saved.items():
            jax.config.update(key, value)
