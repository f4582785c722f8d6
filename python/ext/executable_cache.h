// The process-wide cache of compiled programs, shared by the Python compile entry point and the FFI
// handlers: a program is compiled once per process (keyed by a hash of its HLO text), whether the
// Python side compiled it at trace time or the handler meets it first (a fresh process that loaded
// the XLA executable from jax's persistent compilation cache).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "codegen/emit.h"
#include "runtime/executable.h"

namespace lf::python {

struct CachedProgram {
  std::unique_ptr<runtime::Executable> executable;
  double compileSeconds = 0;  // parse + import + passes + emit + build (or on-disk cache lookup)
  // XLA may call one handler from several threads at once (one per CPU device under shard_map);
  // the executable's scratch arena is not reentrant, so calls of one program take turns.
  std::mutex runMutex;
};

// The 64-bit key of an HLO text, as the Python side computes it too (xxh3_64 of the UTF-8 bytes).
uint64_t hloKey(std::string_view hloText);

// `cudaDevice` of getOrCompile: the device of the calling thread's current CUDA context.
inline constexpr int kCurrentCudaDevice = -1;

// The CUDA device (ordinal) a CUDA executable built on this thread now would run on: the one of
// the current context (inside an XLA FFI call, XLA's), else device 0, whose primary context it
// makes current (runtime::cuda::currentDevice). Throws runtime::cuda::CudaError ("no CUDA driver
// found: ...") where there is no driver or no device.
int currentCudaDevice();

// Returns the cached program for (`key`, `target`, and for CUDA the device), compiling `hloText`
// when absent. A CUDA executable is bound to one device's context, so each device gets its own;
// `cudaDevice` is ignored for the CPU. Throws lf::CompileError (bad or unsupported HLO, with
// diagnostics formatted against `sourceName`) or std::runtime_error (the host compiler or NVRTC
// failed, no CUDA driver or device). Thread-safe; concurrent first calls of one key compile once.
CachedProgram& getOrCompile(uint64_t key, std::string_view hloText, codegen::Target target,
                            const std::string& sourceName, int cudaDevice = kCurrentCudaDevice);

// The formatted diagnostics of a CompileError, quoting the HLO lines.
std::string formatCompileError(const CompileError& error, std::string_view hloText,
                               const std::string& sourceName);

}  // namespace lf::python
