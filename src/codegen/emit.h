// Program IR to one self-contained C++ source: target-neutral SPMD code written against the
// prelude's macros (LF_TID, LF_NTHREADS, LF_BARRIER(), ...), plus the prelude of the target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "support/target.h"

namespace lf::codegen {

using lf::Target;
using lf::targetName;

struct EmittedKernel {
  Target target = Target::Cpu;
  std::string source;                   // the whole translation unit, prelude included
  std::string entryName;                // the extern "C" function (CPU) or __global__ kernel (CUDA)
  std::vector<ir::Type> inputs;         // the entry's parameters, in order
  std::vector<ir::Type> outputs;        // the entry's results, in order
  std::vector<std::string> inputNames;  // HLO parameter names, for error messages
  int64_t scratchBytes = 0;  // size of the scratch buffer the caller passes (64-byte aligned)
  std::string explain;       // human-readable plan summary (`loopfuse explain`)
  // CUDA launch, from the planner's execution mode: "thread" (one thread), "block" (one block of
  // blockThreads) or "grid" (cooperative; blocks of blockThreads, as many as fit on the device).
  // "batch-thread" / "batch-block": a batch-mapped kernel, one thread / block per chain, launched
  // as gridBlocks blocks (not cooperative: chains never wait for each other).
  std::string cudaMode = "thread";
  unsigned blockThreads = 1;
  bool cooperative = false;
  unsigned gridBlocks = 1;
  int64_t chains = 0;  // batch-mapped: the number of independent chains (0: not batch-mapped)
  // Donation: which inputs and outputs may share one buffer (XLA's input_output_aliases). The
  // kernel writes its outputs last, so output k may overwrite input i when nothing reads input i
  // after that: no output is computed from it on the fly (fused or aliased), and, batch-mapped,
  // each group reads and writes only its own rows of both (leading batch dimension).
  std::vector<bool> aliasSafeInputs, aliasSafeOutputs;
  // The program's host callbacks (ir::Program::hostCallbacks), each as "pure_callback.2
  // (xla_ffi_python_cpu_callback) at line 54:77". When there are any, the last output is the
  // host-callback status (s32[]: 0, or the 1-based index here of the callback the run reached).
  std::vector<std::string> hostCallbacks;
  bool canAlias(size_t input, size_t output) const {
    return input < inputs.size() && output < outputs.size() && inputs[input] == outputs[output] &&
           aliasSafeInputs[input] && aliasSafeOutputs[output];
  }
};

// The line a CPU kernel's source starts with when its element loops fit 512-bit vectors (rows of
// a multiple of 64 bytes, and some of at least 256): the host compiler then prefers 512-bit
// vectors for the loops it vectorizes (runtime/host_compiler.cc says why and what it measured).
inline constexpr char kCpuWideVectorsDefine[] = "#define LF_CPU_WIDE_VECTORS 1\n";

// CPU entry ABI (what the runtime calls after dlopen):
//   extern "C" int <entryName>(const void* const* inputs, void* const* outputs, void* scratch);
// inputs/outputs are dense row-major arrays of the types above; returns 0.
// CUDA: `extern "C" __global__ void <entryName>(LfKernelArgs args)` where LfKernelArgs (declared in
// the CUDA prelude) holds the input, output and scratch pointers by value.
// $LOOPFUSE_CUDA_MODE (thread, block or grid) overrides the planner's CUDA mode (for tests of the
// SPMD code paths); anything else is an error.
EmittedKernel emit(const ir::Program& program, Target target);

// `explain`'s paragraph on the host callbacks (empty without any).
std::string hostCallbacksText(const EmittedKernel& kernel);

}  // namespace lf::codegen
