#include "executable_cache.h"

#include <xxhash.h>
#include <chrono>
#include <map>
#include <tuple>
#include <utility>

#include "frontend/import.h"
#include "hlo/ast.h"
#include "passes/pipeline.h"
#include "runtime/cuda_driver.h"

namespace lf::python {

namespace {

// One slot per (key, target, CUDA device; -1 for the CPU). Compiling holds only the slot's lock, so
// a slow compile does not stall handlers that run other, already compiled programs.
struct Slot {
  std::mutex compileMutex;
  std::unique_ptr<CachedProgram> program;  // null until compiled (or after a failed compile)
};

struct Cache {
  std::mutex mutex;  // guards `slots`
  std::map<std::tuple<uint64_t, codegen::Target, int>, std::unique_ptr<Slot>> slots;
};

Cache& cache() {
  static Cache* instance =
      new Cache();  // never destroyed: handlers may run during interpreter exit
  return *instance;
}

std::unique_ptr<CachedProgram> compile(std::string_view hloText, codegen::Target target,
                                       const std::string& sourceName) {
  auto start = std::chrono::steady_clock::now();
  SourceFile file(sourceName, std::string(hloText));
  hlo::Module module = hlo::parseModule(file);
  ir::Program program = frontend::importModule(module);
  passes::runPasses(program);
  codegen::EmittedKernel kernel = codegen::emit(program, target);
  auto result = std::make_unique<CachedProgram>();
  // compileCuda binds the executable to the current context's device: the caller made sure it is
  // the device of the slot (getOrCompile resolved kCurrentCudaDevice on this very thread).
  result->executable = target == codegen::Target::Cpu ? runtime::Executable::compileCpu(kernel)
                                                      : runtime::Executable::compileCuda(kernel);
  result->compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

uint64_t hloKey(std::string_view hloText) { return XXH3_64bits(hloText.data(), hloText.size()); }

int currentCudaDevice() {
  const runtime::cuda::DriverApi& api = runtime::cuda::driver();
  runtime::cuda::Context context = nullptr;
  runtime::cuda::check(api.ctxGetCurrent(&context), "cuCtxGetCurrent", "the CUDA device");
  if (context == nullptr) return runtime::cuda::currentDevice().device;  // makes device 0 current
  runtime::cuda::Device device = 0;
  runtime::cuda::check(api.ctxGetDevice(&device), "cuCtxGetDevice", "the CUDA device");
  return device;
}

CachedProgram& getOrCompile(uint64_t key, std::string_view hloText, codegen::Target target,
                            const std::string& sourceName, int cudaDevice) {
  int device = -1;
  if (target == codegen::Target::Cuda)
    device = cudaDevice == kCurrentCudaDevice ? currentCudaDevice() : cudaDevice;
  Cache& c = cache();
  Slot* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    std::unique_ptr<Slot>& entry = c.slots[{key, target, device}];
    if (!entry) entry = std::make_unique<Slot>();
    slot = entry.get();
  }
  std::lock_guard<std::mutex> lock(slot->compileMutex);
  if (!slot->program) slot->program = compile(hloText, target, sourceName);
  return *slot->program;
}

std::string formatCompileError(const CompileError& error, std::string_view hloText,
                               const std::string& sourceName) {
  return SourceFile(sourceName, std::string(hloText)).format(error.diagnostics());
}

}  // namespace lf::python
