"""`lf.jit`: jax.jit's calling conventions, with the function run as one loopfuse kernel.

The wrapper is a jax.jit of a function that, while jax traces it, flattens the dynamic arguments
and hands the flat function to `_call.apply`. So jax.jit does what it already does well (static
arguments, pytrees, keyword arguments, Python scalars and weak types, donation, the dispatch cache,
JAX-style errors for arguments that are not arrays), and each new signature is lowered to HLO and
compiled by loopfuse exactly once, when jax traces it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from typing import Any, Callable, Iterable, Sequence

import jax

from loopfuse import _backend, _call


def _as_tuple(x: int | str | Iterable[Any] | None) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, (int, str)):
        return (x,)
    return tuple(x)


def _resolve_static(
    fun: Callable[..., Any], argnums: tuple[int, ...], argnames: tuple[str, ...]
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Completes static_argnums from static_argnames and back, through the signature, as jax does."""
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return argnums, argnames
    positional = [
        p.name
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    nums, names = set(argnums), set(argnames)
    for i in argnums:
        j = i if i >= 0 else len(positional) + i
        if 0 <= j < len(positional) and params[j].kind != inspect.Parameter.POSITIONAL_ONLY:
            names.add(positional[j])
    for name in argnames:
        if name in positional:
            nums.add(positional.index(name))
    return tuple(sorted(nums)), tuple(sorted(names))


@dataclasses.dataclass(frozen=True)
class Lowered:
    """What `lf.jit(f).lower(*args)` gives: the program loopfuse compiles, and what it made of it."""

    program: _backend.CompiledProgram

    def as_hlo_text(self) -> str:
        """The HLO text loopfuse compiled (JAX's lowering, constants in full)."""
        return self.program.hlo

    def kernel_source(self) -> str:
        """The C++ source of the kernel, prelude included."""
        return self.program.kernel_source

    def explain(self) -> str:
        """The execution plan, as `loopfuse explain` prints it."""
        return self.program.explain

    @property
    def compile_seconds(self) -> float:
        """Seconds the C++ core took to compile (or find in its on-disk cache) the kernel."""
        return self.program.compile_seconds

    @property
    def target(self) -> str:
        """The kernel's target: "cpu" or "cuda"."""
        return self.program.target

    @property
    def device(self) -> str:
        """CUDA: the GPU and how the kernel is launched (blocks, threads); "" on the CPU."""
        return self.program.device

    @property
    def cache_hit(self) -> bool:
        """True when the kernel came from the on-disk cache (no C++ compiler ran)."""
        return self.program.cache_hit


class JitFunction:
    """A function compiled by loopfuse; call it like the function, or `.lower(...)` it."""

    def __init__(
        self,
        fun: Callable[..., Any],
        *,
        static_argnums: int | Sequence[int] | None,
        static_argnames: str | Iterable[str] | None,
        donate_argnums: int | Sequence[int] | None,
        fallback: str,
        platform: str | None,
    ):
        if not callable(fun):
            raise TypeError(f"lf.jit: expected a function, got {fun!r}")
        if fallback not in ("warn", "error"):
            raise ValueError(f"lf.jit: fallback must be 'warn' or 'error', got {fallback!r}")
        if platform is not None and platform.lower() not in ("cpu", "cuda", "gpu"):
            raise ValueError(f"lf.jit: platform must be 'cpu', 'cuda' or None, got {platform!r}")
        # Name, doc and __wrapped__ only: a function jax made (jax.grad(f) of a jitted f) carries
        # f's __dict__, jit's own `_fun` among it, which would replace this object's attributes.
        functools.update_wrapper(self, fun, updated=())
        self._fun = fun
        nums, names = _resolve_static(fun, _as_tuple(static_argnums), _as_tuple(static_argnames))
        self._static_argnums, self._static_argnames = nums, names
        name = getattr(fun, "__name__", None) or type(fun).__name__
        platform = None if platform is None else ("cpu" if platform.lower() == "cpu" else "cuda")
        self._options = _call.Options(name=name, fallback=fallback, platform=platform)
        self._donate_argnums = _as_tuple(donate_argnums)
        self._jitted = jax.jit(
            self._traceable(self._options),
            static_argnums=nums,
            static_argnames=names,
            donate_argnums=self._donate_argnums,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _call.inside_lowering():
            # Called by a function another lf.jit is lowering: becomes part of that kernel. (Not
            # through self._jitted, whose trace cache may hold an earlier trace's FFI call.)
            return self._fun(*args, **kwargs)
        return self._jitted(*args, **kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        # Used as a method decorator: bind like a function would.
        return self if obj is None else functools.partial(self, obj)

    def lower(self, *args: Any, **kwargs: Any) -> Lowered:
        """Lowers and compiles for these arguments; raises CompileError if loopfuse cannot."""
        options = dataclasses.replace(self._options, fallback="error", last_program=None)
        jax.jit(
            self._traceable(options),
            static_argnums=self._static_argnums,
            static_argnames=self._static_argnames,
        ).trace(*args, **kwargs)
        if options.last_program is None:
            raise _backend.CompileError(f"loopfuse: {options.name}: the function has no outputs")
        return Lowered(options.last_program)

    @property
    def fallback_count(self) -> int:
        """How many traces of this function ran with XLA because loopfuse could not compile them."""
        return self._options.fallbacks

    def _traceable(self, options: _call.Options) -> Callable[..., Any]:
        """The function jax.jit traces, named like the user's so that jax's errors name it."""

        @functools.wraps(self._fun)
        def traceable(*args: Any, **kwargs: Any) -> Any:
            return self._trace(options, args, kwargs)

        return traceable

    def _donated_leaves(self, args: tuple[Any, ...], static_pos: set[int]) -> frozenset[int]:
        """The flat indices (leaves of the dynamic positional arguments, in order) of the
        arguments in donate_argnums."""
        nargs = len(args)
        donated = {i if i >= 0 else nargs + i for i in self._donate_argnums}
        leaves: set[int] = set()
        start = 0
        for i, arg in enumerate(args):
            if i in static_pos:
                continue
            count = len(jax.tree_util.tree_leaves(arg))
            if i in donated:
                leaves.update(range(start, start + count))
            start += count
        return frozenset(leaves)

    def _trace(self, options: _call.Options, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Runs while jax.jit traces: the static arguments are Python values, the rest tracers."""
        nargs = len(args)
        static_pos = {i if i >= 0 else nargs + i for i in self._static_argnums}
        static_pos = {i for i in static_pos if 0 <= i < nargs}
        static_kw = {k: v for k, v in kwargs.items() if k in self._static_argnames}
        dynamic = (
            [a for i, a in enumerate(args) if i not in static_pos],
            {k: v for k, v in kwargs.items() if k not in static_kw},
        )
        leaves, treedef = jax.tree_util.tree_flatten(dynamic)
        out_tree: list[Any] = []

        def flat_fun(*flat: Any) -> list[Any]:
            dyn_args, dyn_kwargs = jax.tree_util.tree_unflatten(treedef, flat)
            it = iter(dyn_args)
            full_args = [args[i] if i in static_pos else next(it) for i in range(nargs)]
            out = self._fun(*full_args, **static_kw, **dyn_kwargs)
            out_leaves, tree = jax.tree_util.tree_flatten(out)
            out_tree[:] = [tree]
            return out_leaves

        flat_fun.__name__ = options.name  # names the HLO module (jit_<name>) and kernel

        outs = _call.apply(flat_fun, leaves, options, self._donated_leaves(args, static_pos))
        if not out_tree:  # apply() never traced flat_fun: cannot happen, but say so if it does
            raise RuntimeError(f"loopfuse: {options.name}: the function was not traced")
        return jax.tree_util.tree_unflatten(out_tree[0], outs)


def jit(
    fun: Callable[..., Any] | None = None,
    *,
    static_argnums: int | Sequence[int] | None = None,
    static_argnames: str | Iterable[str] | None = None,
    donate_argnums: int | Sequence[int] | None = None,
    fallback: str = "warn",
    platform: str | None = None,
) -> Any:
    """Compiles `fun` with loopfuse: the whole program, loops included, as one kernel.

    Takes jax.jit's arguments and calling conventions; also usable as `@lf.jit` or
    `@lf.jit(static_argnums=...)`. `fallback="warn"` (the default) runs a program loopfuse cannot
    compile with XLA and warns once per function; `fallback="error"` raises CompileError instead.
    `platform` picks the kernel target ("cpu" or "cuda"); None follows jax's default backend (a
    GPU means "cuda"). Without a CUDA device in JAX, "cuda" falls back to XLA with a warning.
    """
    options = dict(
        static_argnums=static_argnums,
        static_argnames=static_argnames,
        donate_argnums=donate_argnums,
        fallback=fallback,
        platform=platform,
    )
    if fun is None:
        return functools.partial(jit, **options)
    return JitFunction(fun, **options)
