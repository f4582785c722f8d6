// What one compiled CUDA kernel needs per thread and per block (registers, static shared memory,
// local memory, the most threads a block may have), known at compile time and so without a GPU:
// cuFuncGetAttribute needs a loaded module, `loopfuse explain` must work on a CPU-only machine.
//
// Two sources, both the compiler's own: ptxas's `-v` report in the NVRTC log (what the numbers
// are documented by), and the cubin it wrote (an ELF image whose `.nv.info` sections carry the
// same numbers as EIATTR records, plus the __launch_bounds__ limit the report does not print).
// The report comes first; the cubin fills what it lacks and serves alone when a toolkit prints no
// report, and the tests check that the two agree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace lf::runtime {

struct KernelResources {
  bool ok = false;
  std::string message;  // why !ok (no NVRTC, the source does not compile, no such kernel, bad ELF)
  std::string arch;     // the real architecture compiled for, such as "sm_90"
  std::string source;   // where the numbers come from: "ptxas" (the -v report) or "cubin"
  int registers = -1;   // per thread
  int64_t sharedBytes = -1;  // static __shared__ per block, as declared (without the 1 KiB that
                             // sm_90 and later reserve for the system in every block)
  int64_t localBytes = -1;   // stack frame per thread: local arrays and register spills
  int64_t spillStoreBytes = -1, spillLoadBytes = -1;  // ptxas only; -1 when unknown
  int maxThreadsPerBlock = -1;                        // -1 when unknown
  std::string maxThreadsReason;                       // "launch bounds" or "register limit"
};

// ptxas's report on `kernel` (an unmangled, extern "C" name) in an NVRTC log compiled with
// --ptxas-options=-v. !ok when the log holds no report on it.
KernelResources parsePtxasReport(std::string_view log, std::string_view kernel);

// The numbers the cubin (64-bit little-endian ELF) records for `kernel`. Any malformed, truncated
// or foreign image gives !ok and a message, never a read out of bounds.
KernelResources readCubinResources(std::string_view cubin, std::string_view kernel);

// The most threads per block `registers` per thread allow on sm_70 and later (64 Ki registers per
// block, allocated per warp in units of 256, split over four sub-partitions, as in
// cuda_occupancy.h), capped at 1024: what cuFuncGetAttribute(MAX_THREADS_PER_BLOCK) derives.
int maxThreadsForRegisters(int registers);

// Compiles `source` with NVRTC for `arch` (the options the CUDA runtime uses, plus
// --ptxas-options=-v) and returns the resources of `kernel`: the report's numbers, completed
// from the cubin. !ok with a message saying why when NVRTC is missing or the compile fails.
KernelResources cudaKernelResources(const std::string& source, const std::string& kernel,
                                    const std::string& arch = "sm_90");

// One line: "cuda resources (sm_90, from ptxas): 40 registers/thread, 0 B shared, 0 B local
// (0 B spill stores), max 1024 threads/block (register limit)", or why they are unavailable.
std::string formatKernelResources(const KernelResources& resources);

}  // namespace lf::runtime
