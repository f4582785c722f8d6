"""Running one traced, flat function through loopfuse inside a JAX trace.

`apply(flat_fun, args, options)` is what `lf.jit` calls while jax.jit traces it. It lowers
`flat_fun` (a function of a flat list of arrays returning a flat list of arrays) to HLO for the
arguments' avals, compiles it with the C++ core at trace time, and emits an XLA FFI call to the
compiled program, wrapped so that JAX's transformations work:

    custom_vjp        grad: the backward pass is jax.vjp of flat_fun, itself run through apply()
      custom_vmap     vmap: the rule runs apply() on jax.vmap(flat_fun), one batched kernel
        ffi_call      XLA calls the handler on its own thread; buffers are read in place

(custom_vjp must be outside custom_vmap: custom_vmap has no reverse-mode rule.) When loopfuse
cannot compile the program, apply() warns once per lf.jit function (or raises, with
fallback="error") and traces flat_fun itself, so XLA runs it.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import warnings
from typing import Any, Callable, Sequence

import jax
import jax.extend
import jax.numpy as jnp
import numpy as np
from jax import custom_batching

from loopfuse import _backend
from loopfuse._source_location import first_diagnostic, python_location

FlatFun = Callable[..., Sequence[Any]]


@dataclasses.dataclass
class Options:
    """What one lf.jit function decided, shared by its backward and batched programs."""

    name: str
    fallback: str  # "warn" or "error"
    platform: str | None  # "cpu", "cuda", or None to follow jax.default_backend()
    warned: bool = False
    # The most recent program compiled for this function (for tests and introspection).
    last_program: _backend.CompiledProgram | None = None
    fallbacks: int = 0

    def target(self) -> str:
        """The kernel target: the platform asked for, else the one jax.jit will run on (the
        default device's, under jax.default_device, else the default backend's); any accelerator
        means CUDA, and apply() falls back to XLA with a warning when JAX has no CUDA device."""
        if self.platform is not None:
            return self.platform
        return "cpu" if _default_platform() == "cpu" else "cuda"


def _default_platform() -> str:
    # Arguments committed to another device still run where they are: a GPU default with CPU
    # arrays is not detected here (the trace does not know where its arguments live).
    device = jax.config.jax_default_device
    if device is None:
        return jax.default_backend()
    return device if isinstance(device, str) else device.platform


def _aval_struct(x: Any) -> jax.ShapeDtypeStruct:
    aval = jax.typeof(x)
    return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=getattr(aval, "weak_type", False))


_lowering = threading.local()


def inside_lowering() -> bool:
    """True while lower_to_hlo traces a function: an lf.jit function called there (one lf.jit
    function calling another) is traced inline, so that the whole program is one kernel."""
    return getattr(_lowering, "depth", 0) > 0


def trace_flat(flat_fun: FlatFun, args: Sequence[Any]):
    """jax's trace of flat_fun for the avals of args (a `jax.stages.Traced`), every parameter
    kept, in order."""
    jitted = jax.jit(flat_fun, keep_unused=True)
    _lowering.depth = getattr(_lowering, "depth", 0) + 1
    try:
        return jitted.trace(*[_aval_struct(a) for a in args])
    finally:
        _lowering.depth -= 1


def lower_to_hlo(flat_fun: FlatFun, args: Sequence[Any], target: str):
    """jax's own lowering of flat_fun for the avals of args: every parameter kept, in order."""
    return trace_flat(flat_fun, args).lower(lowering_platforms=(target,))


def _hoist_closed_tracers(traced: Any, nargs: int) -> tuple[FlatFun, list[Any]] | None:
    """None when the traced function closes over no tracer; else an equivalent function that
    takes those tracers as leading arguments, and the tracers.

    A function can close over tracers of an enclosing trace: an lf.jit function defined inside a
    jax.jit, grad or vmap, or library state cached during an earlier trace (numpyro's autoguides
    keep their initial values). jax's lowering then takes them as extra leading HLO parameters
    that the call would not pass; made arguments, they also take part in grad and vmap."""
    n_closed = len(traced.jaxpr.in_avals) - nargs
    if n_closed <= 0:
        return None
    consts, _ = traced.closure_convert()  # the jaxpr's own constants, then the closed tracers
    converted = jax.extend.core.jaxpr_as_fun(traced.jaxpr)
    return lambda *xs: list(converted(*xs)), list(consts[len(consts) - n_closed :])


def _fallback_message(options: Options, error: _backend.CompileError, lowered: Any | None) -> str:
    message = str(error)
    summary = message.strip().splitlines()[0] if message.strip() else "compile failed"
    where = None
    first = first_diagnostic(message)
    if first is not None and lowered is not None:
        line, summary = first
        try:
            where = python_location(
                lowered.as_text(dialect="hlo"),
                lowered.as_text(dialect="hlo", debug_info=True),
                line,
            )
        except Exception:  # noqa: BLE001 -- the location is a courtesy; never fail because of it
            where = None
    at = f" at {where}" if where else ""
    return f"loopfuse: {options.name}: {summary}{at}"


def _run_with_xla(
    flat_fun: FlatFun,
    args: Sequence[Any],
    options: Options,
    error: _backend.CompileError,
    lowered: Any | None,
) -> list[Any]:
    message = _fallback_message(options, error, lowered)
    if options.fallback == "error":
        raise _backend.CompileError(f"{message}\n\n{error}") from None
    options.fallbacks += 1
    if not options.warned:
        options.warned = True
        # Attributed to the user's code: the first frame outside loopfuse and jax.
        warnings.warn(
            f"{message}; running it with XLA",
            RuntimeWarning,
            skip_file_prefixes=(os.path.dirname(__file__), os.path.dirname(jax.__file__)),
        )
    return list(flat_fun(*args))


def _is_differentiable(x: Any) -> bool:
    return jnp.issubdtype(jax.typeof(x).dtype, jnp.inexact)


def _aliases(
    program: _backend.CompiledProgram,
    args: Sequence[Any],
    out_structs: Sequence[jax.ShapeDtypeStruct],
    donated: frozenset[int],
) -> dict[int, int]:
    """input_output_aliases for the donated inputs: each takes the first free output of its
    shape and dtype that the kernel can write over it (EmittedKernel::canAlias)."""
    aliases: dict[int, int] = {}
    taken: set[int] = set()
    for i in sorted(donated):
        if i >= len(program.alias_safe_inputs) or not program.alias_safe_inputs[i]:
            continue
        aval = jax.typeof(args[i])
        for k, out in enumerate(out_structs):
            if k in taken or not program.alias_safe_outputs[k]:
                continue
            if tuple(out.shape) == tuple(aval.shape) and out.dtype == aval.dtype:
                aliases[i] = k
                taken.add(k)
                break
    return aliases


def apply(
    flat_fun: FlatFun, args: Sequence[Any], options: Options, donated: frozenset[int] = frozenset()
) -> list[Any]:
    """Runs flat_fun(*args) as one loopfuse kernel (or with XLA, on fallback). `donated`: the
    arguments jax.jit donates (flat indices); an output of the same type reuses their buffer
    where the kernel allows it."""
    args = list(args)
    target = options.target()
    if target == "cuda":
        # Checked before lowering: a CUDA kernel in a program XLA compiles for the CPU could never
        # run, so without a CUDA device the program runs with XLA where it is.
        reason = _backend.cuda_unavailable_reason()
        if reason is not None:
            return _run_with_xla(flat_fun, args, options, _backend.CompileError(reason), None)
    traced = trace_flat(flat_fun, args)
    hoisted = _hoist_closed_tracers(traced, len(args))
    if hoisted is not None:
        converted, closed = hoisted
        shifted = frozenset(i + len(closed) for i in donated)
        return apply(converted, [*closed, *args], options, shifted)
    lowered = traced.lower(lowering_platforms=(target,))
    out_structs = [jax.ShapeDtypeStruct(o.shape, o.dtype) for o in lowered.out_info]
    if not out_structs:
        return []
    hlo = lowered.as_text(dialect="hlo")
    try:
        program = _backend.compile_hlo(hlo, target, options.name)
    except _backend.CompileError as e:
        return _run_with_xla(flat_fun, args, options, e, lowered)
    options.last_program = program
    status_struct = [jax.ShapeDtypeStruct((), jnp.int32)] if program.host_callbacks else []
    call = jax.ffi.ffi_call(
        _backend.FFI_TARGETS[target],
        out_structs + status_struct,
        input_output_aliases=_aliases(program, args, out_structs, donated) or None,
        # Never reached through vmap (custom_vmap below batches the whole program); sequential
        # is only the correct-but-slow answer should some transformation get past it.
        vmap_method="sequential",
    )

    # MLIR attributes have no unsigned 64-bit integers here: the key travels as its int64 bits.
    key = np.array(program.key, dtype=np.uint64).view(np.int64)[()]

    def run_kernel(*xs: Any) -> list[Any]:
        outs = list(call(*xs, hlo=hlo, key=key))
        if not program.host_callbacks:
            return outs
        # The kernel stopped at a host callback (Python it cannot run) before any of its own
        # effects: XLA runs the whole call again, callbacks included (equinox's error_if raises
        # its error there). A scalar predicate, also under vmap (the batch rule compiles a kernel
        # of its own), so only the branch taken runs.
        status = outs.pop()
        return list(
            jax.lax.cond(
                status == 0,
                lambda kernel_outs, _: list(kernel_outs),
                lambda _, inputs: list(flat_fun(*inputs)),
                outs,
                list(xs),
            )
        )

    @custom_batching.custom_vmap
    def batchable(*xs: Any) -> list[Any]:
        return run_kernel(*xs)

    @batchable.def_vmap
    def batch_rule(axis_size: int, in_batched: Sequence[bool], *xs: Any):
        in_axes = tuple(0 if b else None for b in in_batched)
        batched_fun = jax.vmap(
            lambda *ys: list(flat_fun(*ys)), in_axes=in_axes, axis_size=axis_size
        )
        outs = apply(batched_fun, xs, options)
        return outs, [True] * len(outs)

    @jax.custom_vjp
    def differentiable(*xs: Any) -> list[Any]:
        return batchable(*xs)

    def fwd(*xs: Any):
        # Through `differentiable` itself, not `batchable`: for a second derivative jax
        # differentiates this forward rule, and only the custom_vjp level knows how.
        return differentiable(*xs), xs

    def bwd(primals: tuple[Any, ...], cotangents: Sequence[Any]):
        return _backward(flat_fun, primals, cotangents, options)

    differentiable.defvjp(fwd, bwd)
    return list(differentiable(*args))


def _backward(
    flat_fun: FlatFun, primals: Sequence[Any], cotangents: Sequence[Any], options: Options
) -> tuple[Any, ...]:
    """Cotangents of the inputs: jax.vjp of flat_fun, itself compiled by loopfuse.

    The residuals are the primal inputs (the backward program recomputes the forward pass), and
    only inexact inputs and outputs take part: integer ones have float0 cotangents, which no
    kernel can take or give.
    """
    n = len(primals)
    diff_in = [i for i in range(n) if _is_differentiable(primals[i])]
    float_cts = [ct for ct in cotangents if jnp.issubdtype(ct.dtype, jnp.inexact)]
    if not diff_in:
        return (None,) * n

    def backward_fun(*xs: Any) -> list[Any]:
        fixed, diff_cts = list(xs[:n]), list(xs[n:])

        def of_diff_inputs(*diff_values: Any) -> list[Any]:
            full = list(fixed)
            for i, v in zip(diff_in, diff_values):
                full[i] = v
            return list(flat_fun(*full))

        outs, vjp = jax.vjp(of_diff_inputs, *[fixed[i] for i in diff_in])
        it = iter(diff_cts)
        cts = [
            next(it)
            if jnp.issubdtype(o.dtype, jnp.inexact)
            else np.zeros(o.shape, jax.dtypes.float0)
            for o in outs
        ]
        return list(vjp(cts))

    grads = apply(backward_fun, list(primals) + float_cts, options)
    result: list[Any] = [None] * n
    for i, g in zip(diff_in, grads):
        result[i] = _vary_like(g, primals[i])
    return tuple(result)


def _varying_axes(x: Any) -> frozenset[str]:
    manual = getattr(jax.typeof(x), "manual_axis_type", None)
    return frozenset(getattr(manual, "varying", None) or ())


def _vary_like(g: Any, primal: Any) -> Any:
    """Inside shard_map, a cotangent must vary over the mesh axes its primal varies over; the FFI
    call's results do not say so by themselves."""
    missing = _varying_axes(primal) - _varying_axes(g)
    return jax.lax.pcast(g, tuple(sorted(missing)), to="varying") if missing else g
