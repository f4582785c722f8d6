"""The C++ core (loopfuse._core): compiling HLO text, and the XLA FFI targets that run it.

Everything that touches the extension module lives here, so the rest of the package can be
imported (and explain itself) when the extension is missing or the platform is not supported.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import pathlib
import threading
from typing import Any

import jax

try:
    from loopfuse import _core  # type: ignore[attr-defined]

    IMPORT_ERROR: BaseException | None = None
except ImportError as e:  # a source checkout without a build, or a broken build
    _core = None
    IMPORT_ERROR = e

# The FFI target of each compile target. The CUDA one is registered even by a CPU-only jaxlib
# (which keeps it for a CUDA plugin that may load later), so it is registered at import too.
FFI_TARGETS = {"cpu": "loopfuse_cpu", "cuda": "loopfuse_cuda"}


class CompileError(ValueError):
    """loopfuse cannot compile a program: an unsupported op, or the C++ build failed."""


@dataclasses.dataclass(frozen=True)
class CompiledProgram:
    """A program the C++ core compiled (the executable itself stays in the process cache)."""

    hlo: str
    key: int
    target: str
    kernel_source: str
    explain: str
    compile_seconds: float
    cache_hit: bool
    device: str = ""  # CUDA: the GPU and the launch (blocks, threads); "" on the CPU
    # Donation: inputs whose buffer an output of the same type may take, and outputs that may take
    # one (the kernel reads nothing of such an input once it starts writing its outputs).
    alias_safe_inputs: tuple[bool, ...] = ()
    alias_safe_outputs: tuple[bool, ...] = ()
    # The host callbacks (jax.pure_callback, jax.debug.callback inside a conditional branch) the
    # kernel may reach. When there are any, the kernel has one more output, the s32[] host-callback
    # status: 0, or which callback (1-based) the run reached; lf.jit then runs the call with XLA.
    host_callbacks: tuple[str, ...] = ()


_lock = threading.Lock()
_registered = False
# HLO text and target -> the compiled program, or the error it gave (so a failure is not retried
# on every trace).
_compiled: dict[tuple[str, str], CompiledProgram | CompileError] = {}


def available() -> bool:
    return _core is not None


def cuda_handler_built() -> bool:
    """True when the extension has the CUDA FFI handler (it opens libcuda when first called)."""
    return _core is not None and bool(getattr(_core, "CUDA_BUILT", False))


def jax_has_cuda() -> bool:
    """True when JAX has a CUDA backend with at least one device (jax[cuda] on an NVIDIA GPU)."""
    try:
        return len(jax.devices("cuda")) > 0
    except RuntimeError:  # "Unknown backend cuda": a CPU-only jaxlib, JAX_PLATFORMS=cpu, ROCm
        return False


def cuda_unavailable_reason() -> str | None:
    """Why a program cannot run as a CUDA kernel here, or None when it can be tried.

    Whether a driver and device really work is found when compiling (NVRTC needs the device's
    architecture); this catches what is known before lowering.
    """
    if not cuda_handler_built():
        return (
            "platform 'cuda': this build of loopfuse._core has no CUDA handler; "
            "rebuild the package or use platform='cpu'"
        )
    if not jax_has_cuda():
        return (
            f"platform 'cuda' needs an NVIDIA GPU, but JAX has no CUDA device "
            f"(jax.default_backend() is '{jax.default_backend()}'); install jax[cuda] on a "
            f"machine with a GPU, or use platform='cpu'"
        )
    return None


def require_core() -> Any:
    if _core is None:
        raise ImportError(
            f"loopfuse: the C++ extension loopfuse._core is not built or failed to load "
            f"({IMPORT_ERROR}); install the package with `pip install .`"
        )
    return _core


def register_ffi_targets() -> None:
    """Registers the FFI handlers with XLA, once per process."""
    global _registered
    with _lock:
        if _registered:
            return
        core = require_core()
        jax.ffi.register_ffi_target(FFI_TARGETS["cpu"], core.cpu_handler(), platform="cpu")
        try:
            jax.ffi.register_ffi_target(FFI_TARGETS["cuda"], core.cuda_handler(), platform="CUDA")
        except Exception:  # noqa: BLE001 -- jax 0.11.2 keeps it pending without CUDA; an older
            pass  # jaxlib might refuse, and then no CUDA program can reach the handler anyway
        _registered = True


def compile_hlo(hlo: str, target: str, name: str) -> CompiledProgram:
    """Compiles HLO text for `target` ("cpu" or "cuda"); raises CompileError when it cannot."""
    core = require_core()
    register_ffi_targets()
    cached = _compiled.get((hlo, target))
    if cached is None:
        try:
            info = core.compile(hlo, target, f"<{name}>")
            cached = CompiledProgram(
                hlo=hlo,
                key=int(info.key),
                target=target,
                kernel_source=info.kernel_source,
                explain=info.explain,
                compile_seconds=float(info.compile_seconds),
                cache_hit=bool(info.cache_hit),
                device=str(getattr(info, "device", "")),
                alias_safe_inputs=tuple(bool(b) for b in info.alias_safe_inputs),
                alias_safe_outputs=tuple(bool(b) for b in info.alias_safe_outputs),
                host_callbacks=tuple(str(c) for c in info.host_callbacks),
            )
        except core.CompileError as e:
            cached = CompileError(str(e))
        except RuntimeError as e:  # the host compiler or NVRTC failed, no CUDA driver or device
            cached = CompileError(f"loopfuse: building the kernel failed: {e}")
        with _lock:
            _compiled[(hlo, target)] = cached
    if isinstance(cached, CompileError):
        raise CompileError(str(cached))
    return cached


def nvrtc_in_python_packages() -> str | None:
    """The folder of the libnvrtc that jax's CUDA plugin brought (the nvidia-cuda-nvrtc wheel).

    nvidia/cu13/lib for CUDA 13's wheels, nvidia/cuda_nvrtc/lib for CUDA 12's; None without one.
    """
    spec = importlib.util.find_spec("nvidia")  # a namespace package: nothing of it is imported
    roots = list(spec.submodule_search_locations or []) if spec is not None else []
    for name in ("libnvrtc.so.13", "libnvrtc.so.12"):
        for root in roots:
            found = sorted(pathlib.Path(root).glob(f"*/lib/{name}"))
            if found:
                return str(found[0].parent)
    return None


def set_nvrtc_fallback_path() -> None:
    """Tells the C++ runtime where pip's NVRTC is, searched after any CUDA toolkit's.

    src/runtime/nvrtc.cc reads $LOOPFUSE_NVRTC_FALLBACK_PATH when it first opens NVRTC (the first
    CUDA compile, in lf.jit or in the FFI handler), which is after this import.
    """
    if "LOOPFUSE_NVRTC_FALLBACK_PATH" not in os.environ:
        folder = nvrtc_in_python_packages()
        if folder is not None:
            os.environ["LOOPFUSE_NVRTC_FALLBACK_PATH"] = folder


# At import: a process that runs an XLA program compiled earlier (jax's persistent compilation
# cache, jax.export) calls the handler without ever tracing lf.jit.
if _core is not None:
    set_nvrtc_fallback_path()
    register_ffi_targets()
