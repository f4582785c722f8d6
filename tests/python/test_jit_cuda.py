"""lf.jit on CUDA: the XLA FFI handler `loopfuse_cuda` launching the kernel on XLA's stream.

Two halves:
  - everywhere: the handler is built and registered for platform CUDA, and asking for CUDA where
    JAX has no CUDA device (or there is no driver) falls back to XLA with a warning that says so;
  - on a GPU only (skipped elsewhere): five corpus programs, a gradient, and the seed program
    (as written and vmapped over 256 chains) run through lf.jit as CUDA kernels and equal jax.jit
    on the same GPU. tests/gpu/check.sh runs this file on a lent GPU.

conftest.py sets JAX_PLATFORMS=cpu unless it is set, so on a GPU machine run

    JAX_PLATFORMS=cuda,cpu .venv/bin/python -m pytest -q tests/python/test_jit_cuda.py
"""

from __future__ import annotations

import ctypes
import importlib
import os
import pathlib
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.lax import while_loop
from jax.nn import sigmoid, softplus
from jax.random import PRNGKey, normal, split

import loopfuse as lf
from conftest import assert_close, program_config, requires_core
from loopfuse import _backend

pytestmark = requires_core

HAS_CUDA = _backend.jax_has_cuda()
requires_gpu = pytest.mark.skipif(
    not HAS_CUDA,
    reason="JAX has no CUDA device (on a GPU machine run with JAX_PLATFORMS=cuda,cpu)",
)


def doubling_loop(x):
    return jax.lax.fori_loop(0, 4, lambda i, v: v * 2.0, x)


def _driver_loads() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


# --- everywhere ---------------------------------------------------------------------------------


def test_cuda_handler_is_built_and_registered_for_cuda() -> None:
    assert _backend.cuda_handler_built()
    from jaxlib import xla_client

    if "CUDA" in xla_client._custom_callback_handler:
        return  # a CUDA plugin took the registration directly; the GPU tests below use it
    # A CPU-only jaxlib keeps the registration for a CUDA plugin that may load later.
    pending = [entry[0] for entry in xla_client._custom_callback.get("CUDA", [])]
    assert _backend.FFI_TARGETS["cuda"] in pending


def test_nvrtc_of_the_cuda_wheels_is_the_runtimes_fallback(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # jax[cuda13] brings NVRTC as site-packages/nvidia/cu13/lib/libnvrtc.so.13 (CUDA 12's wheels:
    # nvidia/cuda_nvrtc/lib/libnvrtc.so.12); a machine with no toolkit compiles with that copy.
    # The C++ side (searched after any toolkit) is tests/runtime/nvrtc_prelude_test.cc's.
    cu12 = tmp_path / "nvidia" / "cuda_nvrtc" / "lib"
    cu13 = tmp_path / "nvidia" / "cu13" / "lib"
    for folder, name in ((cu12, "libnvrtc.so.12"), (cu13, "libnvrtc.so.13")):
        folder.mkdir(parents=True)
        (folder / name).write_bytes(b"")
    monkeypatch.delitem(sys.modules, "nvidia", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _backend.nvrtc_in_python_packages() == str(cu13)  # the newer first
    monkeypatch.delenv("LOOPFUSE_NVRTC_FALLBACK_PATH", raising=False)
    _backend.set_nvrtc_fallback_path()
    assert os.environ["LOOPFUSE_NVRTC_FALLBACK_PATH"] == str(cu13)
    monkeypatch.setenv("LOOPFUSE_NVRTC_FALLBACK_PATH", "/chosen/by/the/user")
    _backend.set_nvrtc_fallback_path()
    assert os.environ["LOOPFUSE_NVRTC_FALLBACK_PATH"] == "/chosen/by/the/user"


@pytest.mark.skipif(HAS_CUDA, reason="JAX has a CUDA device here")
def test_platform_cuda_without_a_cuda_device_falls_back_naming_the_missing_gpu() -> None:
    compiled = lf.jit(doubling_loop, platform="cuda")
    with pytest.warns(RuntimeWarning, match=r"doubling_loop: platform 'cuda' needs an NVIDIA GPU"):
        out = compiled(jnp.ones(3))
    assert_close(out, jnp.full(3, 16.0, jnp.float32))  # 1 * 2**4, by XLA
    assert compiled.fallback_count == 1
    with pytest.raises(lf.CompileError, match="no CUDA device"):
        lf.jit(doubling_loop, platform="cuda", fallback="error")(jnp.ones(3))


@pytest.mark.skipif(HAS_CUDA, reason="JAX has a CUDA device here")
def test_default_platform_without_a_gpu_compiles_for_the_cpu() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback warning either
        assert lf.jit(doubling_loop).lower(jnp.ones(3)).target == "cpu"


@pytest.mark.skipif(_driver_loads(), reason="a CUDA driver is installed here")
def test_compiling_for_cuda_without_a_driver_says_so() -> None:
    hlo = jax.jit(doubling_loop).lower(jnp.ones(5)).as_text(dialect="hlo")
    with pytest.raises(lf.CompileError, match="no CUDA driver found"):
        _backend.compile_hlo(hlo, "cuda", "doubling_loop")


# --- on a GPU -----------------------------------------------------------------------------------

# Loops (scan, while), a reduction, sort, and jax.random's threefry: the corpus programs that
# tests/gpu/check.sh also runs under compute-sanitizer, plus a scan.
GPU_CORPUS = (
    "loop_scan_xs_ys",
    "loop_while_newton",
    "reduce_variance_layernorm",
    "sort_values",
    "random_threefry_gpu_kernel",
)


def _corpus_program(name: str):
    """One corpus program, importing only the modules without haiku (the GPU image lacks it)."""
    registry = importlib.import_module("registry")
    for module in ("progs_loops", "progs_reduce", "progs_indexing", "progs_random"):
        importlib.import_module(module)
    return registry.PROGRAMS[name]


def _on_gpu(tree) -> bool:
    return all(
        next(iter(leaf.devices())).platform == "gpu" for leaf in jax.tree_util.tree_leaves(tree)
    )


@requires_gpu
@pytest.mark.parametrize("name", GPU_CORPUS)
def test_corpus_program_on_cuda_matches_jax(name: str) -> None:
    prog = _corpus_program(name)
    with program_config(prog):
        args = prog.make_args(prog.rng())
        expected = jax.jit(prog.fn, static_argnums=prog.static_argnums)(*args)
        compiled = lf.jit(prog.fn, static_argnums=prog.static_argnums, fallback="error")
        lowered = compiled.lower(*args)
        assert lowered.target == "cuda"
        assert "(sm_" in lowered.device, lowered.device  # e.g. "NVIDIA H200 (sm_90), 1 block ..."
        actual = compiled(*args)
    assert _on_gpu(actual)
    assert_close(actual, expected, what=name)


@requires_gpu
def test_default_device_cpu_on_a_gpu_machine_compiles_for_the_cpu() -> None:
    with jax.default_device(jax.devices("cpu")[0]):
        compiled = lf.jit(doubling_loop, fallback="error")
        lowered = compiled.lower(jnp.ones(3))
        assert lowered.target == "cpu" and lowered.device == ""
        out = compiled(jnp.ones(3))
    assert next(iter(out.devices())).platform == "cpu"
    assert_close(out, jnp.full(3, 16.0, jnp.float32))  # 1 * 2**4


@requires_gpu
def test_gradient_through_a_scan_on_cuda_matches_jax() -> None:
    prog = _corpus_program("loop_scan_xs_ys")
    args = prog.make_args(prog.rng())

    def loss(fn):
        return lambda *xs: sum(jnp.sum(leaf) for leaf in jax.tree_util.tree_leaves(fn(*xs)))

    expected = jax.jit(jax.grad(loss(prog.fn)))(*args)
    actual = jax.jit(jax.grad(loss(lf.jit(prog.fn, fallback="error"))))(*args)
    assert_close(actual, expected, what="grad", scale=10.0)


# The seed program's computation (tests/programs/progs_seed.py) with haiku's parameters written
# out, as tests/gpu/seed_jax.py does: a 1 -> 12 -> 1 MLP with softplus weights and sigmoids plus
# jax.random noise, 8000 times in a while_loop, under x64.
SEED_LAYERS = ("noisy_mlp/~/linear", "noisy_mlp/~/linear_1")


def seed_infer_encoding(weights, initial_rng, maximum_iterations):
    def body(state):
        code_momentum, rng, iterations = state
        leak_rng, new_rng = split(rng)
        force = code_momentum
        for layer in SEED_LAYERS:
            force = sigmoid(jnp.dot(force, softplus(weights[layer]["w"])))
        return force + normal(leak_rng, force.shape), new_rng, iterations + 1

    return while_loop(
        lambda state: state[2] < maximum_iterations, body, (jnp.zeros((1,)), initial_rng, 0)
    )


def _seed_inputs():
    _, inference_rng = split(PRNGKey(12))
    # haiku's initializer in the seed is jnp.zeros.
    weights = {SEED_LAYERS[0]: {"w": jnp.zeros((1, 12))}, SEED_LAYERS[1]: {"w": jnp.zeros((12, 1))}}
    return weights, inference_rng, 8000


@requires_gpu
def test_seed_program_on_cuda_matches_jax() -> None:
    with jax.enable_x64(True):
        args = _seed_inputs()
        expected = jax.jit(seed_infer_encoding)(*args)
        compiled = lf.jit(seed_infer_encoding, fallback="error")
        assert compiled.lower(*args).target == "cuda"
        actual = compiled(*args)
        again = compiled(*args)  # the cached executable, launched a second time
    assert _on_gpu(actual)
    assert int(actual[2]) == 8000
    # f64 tolerance, widened: XLA:GPU and NVRTC's libdevice may round exp/log1p differently.
    assert_close(actual, expected, what="seed", scale=100.0)
    assert_close(again, actual, what="seed, second run")


@requires_gpu
def test_vmapped_seed_on_cuda_matches_jax() -> None:
    # jax.vmap of the lf.jit function: the batching rule compiles the vmapped program (256 chains,
    # each its own key) into one kernel; the reference is jax.jit of the vmapped function.
    with jax.enable_x64(True):
        weights, rng, _ = _seed_inputs()
        keys = split(rng, 256)
        in_axes = (None, 0, None)
        expected = jax.jit(jax.vmap(seed_infer_encoding, in_axes=in_axes), static_argnums=2)(
            weights, keys, 2000
        )
        compiled = lf.jit(seed_infer_encoding, fallback="error")
        actual = jax.vmap(compiled, in_axes=in_axes)(weights, keys, 2000)
    assert _on_gpu(actual)
    assert np.all(np.asarray(actual[2]) == 2000)
    assert_close(actual, expected, what="vmapped seed", scale=100.0)
    assert compiled.fallback_count == 0


@requires_gpu
def test_seed_program_as_the_corpus_registers_it_on_cuda() -> None:
    pytest.importorskip("haiku")
    pytest.importorskip("tjax")
    importlib.import_module("progs_seed")
    prog = importlib.import_module("registry").PROGRAMS["seed_x64"]
    with program_config(prog):
        args = prog.make_args(prog.rng())
        expected = jax.jit(prog.fn)(*args)
        actual = lf.jit(prog.fn, fallback="error")(*args)
    assert _on_gpu(actual)
    assert_close(actual, expected, what="seed_x64", scale=100.0)


@requires_gpu
def test_wrong_buffers_reach_the_cuda_handler_as_a_clear_error() -> None:
    hlo = jax.jit(doubling_loop).lower(jnp.ones(4)).as_text(dialect="hlo")
    program = _backend.compile_hlo(hlo, "cuda", "doubling_loop")
    key = np.array(program.key, np.uint64).view(np.int64)[()]
    call = jax.ffi.ffi_call(_backend.FFI_TARGETS["cuda"], jax.ShapeDtypeStruct((3,), jnp.float32))
    with pytest.raises(Exception, match=r"parameter 0.*expected f32\[4\], got f32\[3\]"):
        jax.block_until_ready(jax.jit(lambda x: call(x, hlo=hlo, key=key))(jnp.ones(3)))


@requires_gpu
def test_cuda_handler_compiles_a_program_it_meets_first() -> None:
    # As in a fresh process that loaded the XLA executable from jax's compilation cache: nothing
    # compiled this HLO at trace time, so the handler builds it on XLA's thread, for XLA's device.
    def three_x_plus_one(x):
        return jax.lax.fori_loop(0, 3, lambda i, v: v * 3.0 + 1.0, x)

    hlo = jax.jit(three_x_plus_one).lower(jnp.ones(5)).as_text(dialect="hlo")
    key = np.array(_backend._core.hlo_key(hlo), np.uint64).view(np.int64)[()]
    call = jax.ffi.ffi_call(_backend.FFI_TARGETS["cuda"], jax.ShapeDtypeStruct((5,), jnp.float32))
    out = jax.jit(lambda x: call(x, hlo=hlo, key=key))(jnp.arange(5.0))
    assert_close(out, 27.0 * jnp.arange(5.0) + 13.0)  # x -> 3x+1 -> 9x+4 -> 27x+13
    garbage = "HloModule broken\nENTRY main { this is not hlo }"
    garbage_key = np.array(_backend._core.hlo_key(garbage), np.uint64).view(np.int64)[()]
    with pytest.raises(Exception, match="error"):
        jax.block_until_ready(jax.jit(lambda x: call(x, hlo=garbage, key=garbage_key))(jnp.ones(5)))
