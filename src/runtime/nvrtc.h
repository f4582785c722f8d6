// CUDA C++ to PTX with NVRTC, which is opened at run time (dlopen), never linked: a CPU-only
// install needs no CUDA. Used to build CUDA kernels and, in the tests, to check that every emitted
// source and the device prelude compile for the GPU on a machine without one.
#pragma once

#include <string>
#include <vector>

namespace lf::runtime {

struct NvrtcOutput {
  bool ok = false;
  std::string ptx;    // when ok
  std::string cubin;  // compileCudaToCubin only: the machine code (an ELF image), when ok
  std::string log;    // the compiler's messages (warnings too); why it failed when !ok
};

// True when a libnvrtc could be opened. Searched in order: $LOOPFUSE_NVRTC_PATH (the library
// itself or a folder holding it, e.g. site-packages/nvidia/cu13/lib), the loader's path,
// $CUDA_HOME/lib64, /usr/local/cuda/lib64, then $LOOPFUSE_NVRTC_FALLBACK_PATH (same form; the
// Python package sets it to the nvidia-cuda-nvrtc wheel that jax[cuda] installs, so a machine
// with no CUDA toolkit compiles with that); names libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so.
bool nvrtcAvailable();

// The paths nvrtcAvailable tries, in that order, from the environment as it is now (the library
// is opened once per process, at the first use).
std::vector<std::string> nvrtcCandidatePaths();

// "major.minor" of the NVRTC found (part of the compile-cache key); empty when none.
std::string nvrtcVersion();

// The options every compile gets: the virtual architecture, C++17, and --fmad=false so that a
// * b + c rounds twice as on the CPU target (no contraction; no fast-math either); then those of
// $LOOPFUSE_NVRTC_OPTIONS (white-space separated), which the compile cache's key includes.
std::vector<std::string> nvrtcDefaultOptions(const std::string& arch);

// Compiles one self-contained source (prelude + kernel; no #include) for `arch`, a virtual
// architecture such as "compute_90". extraOptions follow the defaults. Never throws on bad
// source: ok is false and log says why (also when no libnvrtc was found).
NvrtcOutput compileCudaToPtx(const std::string& source, const std::string& arch = "compute_90",
                             const std::vector<std::string>& extraOptions = {});

// Like compileCudaToPtx, for a real architecture such as "sm_90": out.cubin holds machine code
// that cuModuleLoadData loads without a JIT step (out.ptx stays empty).
NvrtcOutput compileCudaToCubin(const std::string& source, const std::string& arch = "sm_90",
                               const std::vector<std::string>& extraOptions = {});

}  // namespace lf::runtime
