"""Measuring one benchmark: jax.jit and lf.jit side by side, in one process.

For each benchmark: both functions are compiled (timed on their own), called once each to warm
up, their outputs compared, then called alternately (jax, loopfuse, loopfuse, jax, ...) with a
`block_until_ready` after each call. The median of the timed calls is reported, with the time per
loop iteration and the peak memory of one call.

Peak memory: the growth of the process' resident set during one warm call, read as VmHWM - VmRSS
after resetting the high-water mark (`echo 5 > /proc/self/clear_refs`, Linux >= 4.0). It counts
host memory only (on a GPU: the host side of the call, not device memory), and includes the
outputs and every temporary buffer the call allocates. Where the reset is not allowed, it falls
back to the growth of getrusage's ru_maxrss, which shows only a new process-wide peak.
"""

from __future__ import annotations

import math
import resource
import statistics
import time
from typing import Any, Callable

import jax
import numpy as np

import loopfuse as lf
from programs import Benchmark

# (rtol, atol) per floating dtype when the benchmark gives none; integers and keys: exact.
TOLERANCES = {"float64": (1e-9, 1e-12), "float32": (1e-4, 1e-6), "float16": (1e-2, 1e-3)}


def _read_status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_memory_mib(call: Callable[[], Any]) -> tuple[float, str]:
    """The resident-set growth during call(), in MiB, and how it was measured."""
    if _reset_peak_rss():
        before = _read_status_kib("VmRSS")
        call()
        peak = _read_status_kib("VmHWM")
        if before is not None and peak is not None:
            return max(0, peak - before) / 1024.0, "VmHWM-VmRSS"
    before_max = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    call()
    after_max = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return (after_max - before_max) / 1024.0, "ru_maxrss delta"


def compare(actual: Any, expected: Any, tolerance: tuple[float, float] | None) -> dict[str, Any]:
    """Whether lf.jit's outputs equal jax.jit's (allclose per leaf), and the largest error."""
    a_leaves, a_tree = jax.tree_util.tree_flatten(actual)
    e_leaves, e_tree = jax.tree_util.tree_flatten(expected)
    if a_tree != e_tree:
        return {"agree": False, "why": f"pytree {a_tree} != {e_tree}", "max_abs_err": None}
    agree, max_err, why = True, 0.0, ""
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        a, e = np.asarray(a), np.asarray(e)
        if a.dtype != e.dtype or a.shape != e.shape:
            agree, why = False, f"leaf {i}: {a.dtype}{a.shape} != {e.dtype}{e.shape}"
            continue
        if np.issubdtype(e.dtype, np.floating):
            rtol, atol = tolerance or TOLERANCES.get(e.dtype.name, (1e-4, 1e-6))
            a64, e64 = a.astype(np.float64), e.astype(np.float64)
            with np.errstate(invalid="ignore"):
                err = np.abs(a64 - e64)
            if err.size:
                max_err = max(max_err, float(np.nanmax(err, initial=0.0)))
            if not np.allclose(a64, e64, rtol=rtol, atol=atol, equal_nan=True):
                agree, why = False, f"leaf {i}: beyond rtol={rtol} atol={atol}"
        elif not np.array_equal(a, e):
            agree, why = False, f"leaf {i}: {int(np.sum(a != e))} elements differ"
    return {"agree": agree, "why": why, "max_abs_err": max_err}


def _timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(
    bench: Benchmark, timing_s: float, min_reps: int, max_reps: int, budget_s: float = math.inf
) -> dict[str, Any]:
    """Runs one benchmark; `timing_s` is the time the timed calls should take in all.

    A slow program gets fewer than `min_reps` repetitions (at least one) rather than overrun
    `budget_s`, the time the caller gives the whole benchmark, compiles included.
    """
    began = time.perf_counter()
    with jax.enable_x64(bench.x64):
        case = bench.build()
        args = case.args
        jax_fun = jax.jit(case.fun, static_argnums=case.static_argnums)
        lf_fun = lf.jit(case.fun, static_argnums=case.static_argnums, fallback="error")

        start = time.perf_counter()
        jax_fun.lower(*args).compile()
        jax_compile = time.perf_counter() - start
        start = time.perf_counter()
        lowered = lf_fun.lower(*args)
        lf_lower = time.perf_counter() - start

        def run_jax() -> Any:
            return jax.block_until_ready(jax_fun(*args))

        def run_lf() -> Any:
            return jax.block_until_ready(lf_fun(*args))

        # Warm-up (the dispatch caches fill here; lf.jit's first call also traces).
        start = time.perf_counter()
        expected = run_jax()
        actual = run_lf()
        per_pair = time.perf_counter() - start
        check = compare(actual, expected, bench.tolerance)
        if per_pair < timing_s:  # size the repetitions by one more call each, warm this time
            per_pair = _timed(run_jax) + _timed(run_lf)
        reps = int(max(min_reps, min(max_reps, timing_s // max(per_pair, 1e-9))))
        left = 0.9 * budget_s - (time.perf_counter() - began)
        reps = max(1, min(reps, int(left // per_pair) - 1))  # - 1: the memory pair
        times: dict[str, list[float]] = {"jax": [], "loopfuse": []}
        for i in range(reps):
            order = (("jax", run_jax), ("loopfuse", run_lf))
            for which, call in order if i % 2 == 0 else order[::-1]:
                times[which].append(_timed(call))
        jax_mem, how = peak_memory_mib(run_jax)
        lf_mem, _ = peak_memory_mib(run_lf)
        if lf_fun.fallback_count:
            raise RuntimeError("loopfuse fell back to XLA")

    def summary(ts: list[float], compile_s: float, mem: float) -> dict[str, Any]:
        median = statistics.median(ts)
        return {
            "median_s": median,
            "min_s": min(ts),
            "reps": len(ts),
            "per_iteration_us": median / bench.iterations * 1e6,
            "compile_s": compile_s,
            "peak_rss_mib": mem,
        }

    jax_result = summary(times["jax"], jax_compile, jax_mem)
    lf_result = summary(times["loopfuse"], lowered.compile_seconds, lf_mem)
    lf_result |= {"lower_s": lf_lower, "cache_hit": lowered.cache_hit}
    return {
        "status": "ok",
        "jax": jax_result,
        "loopfuse": lf_result,
        "ratio": jax_result["median_s"] / lf_result["median_s"],
        "memory_method": how,
        "note": case.note,
        **check,
    }
