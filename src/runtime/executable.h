// A compiled program, ready to run: the CPU target's shared object (dlopen'ed) behind one
// interface, built through the on-disk compile cache.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen/emit.h"
#include "ir/ir.h"

namespace lf::runtime {

// A dense row-major host array.
struct HostArray {
  ir::Type type;
  std::vector<uint8_t> data;  // type.byteSize() bytes
  // The trailing dimension of 2 holds the (real, imaginary) pairs of a complex array (read from a
  // complex .npy): compareArrays then also accepts an error small beside the complex modulus.
  bool complexPairs = false;
};

// Wrong inputs at run time (count, dtype, shape): the message names the parameter.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A run that reached one of the program's host callbacks (EmittedKernel::hostCallbacks): its
// outputs are meaningless; the message names the callback.
class HostCallbackReached : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CompileOptions {
  std::string cacheDir;  // empty: $LOOPFUSE_CACHE_DIR, else $XDG_CACHE_HOME/loopfuse, else
                         // ~/.cache/loopfuse
  std::string cxx;       // empty: $CXX, else "c++"
  // The host compiler's optimization level, -O0 to -O3 or -Os. Empty: $LOOPFUSE_CXX_OPT, else -O3
  // (-O1 for the CUDA emulator, whose speed is not the point and whose large kernels -O3 compiles
  // several times slower).
  std::string optLevel;
};

struct CompileStats {
  double seconds = 0;      // wall time of compile (or cache lookup)
  bool cacheHit = false;   // true when no compiler ran
  std::string objectPath;  // the cached shared object
};

class Executable {
 public:
  virtual ~Executable() = default;
  // Builds kernel.source (CPU target) with the host C++ compiler through the cache and loads it.
  static std::unique_ptr<Executable> compileCpu(const codegen::EmittedKernel& kernel,
                                                const CompileOptions& options = {});
  // Compiles kernel.source (CUDA target) with NVRTC to a CUBIN for the current device through the
  // cache and loads it (runtime/cuda_executable.h). runRaw then takes HOST pointers: it copies the
  // inputs to the device, launches, waits and copies the outputs back. Throws cuda::CudaError
  // ("no CUDA driver found: ...") where there is no driver or device.
  static std::unique_ptr<Executable> compileCuda(const codegen::EmittedKernel& kernel,
                                                 const CompileOptions& options = {});

  virtual const codegen::EmittedKernel& kernel() const = 0;
  virtual const CompileStats& stats() const = 0;

  // Checks the inputs against the signature (throws InputError naming the parameter), runs the
  // program, returns the outputs: without the host-callback status, which it checks instead
  // (throws HostCallbackReached).
  std::vector<HostArray> run(const std::vector<HostArray>& inputs) const;
  // No checks: pointers to dense buffers of the signature's types, the host-callback status
  // included (used by the FFI handlers).
  virtual void runRaw(const void* const* inputs, void* const* outputs) const = 0;
};

}  // namespace lf::runtime
