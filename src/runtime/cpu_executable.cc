// The CPU Executable: the kernel's shared object from the compile cache, dlopen'ed; runRaw calls
// its entry with a scratch buffer taken from a pool, so concurrent calls never share scratch.
// The kernel sets XLA:CPU's denormal mode itself (LF_ENTRY_SCOPE in the CPU prelude), so every
// caller (this class, the FFI handler) gets the same numbers.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "runtime/compile_cache.h"
#include "runtime/executable.h"

namespace lf::runtime {
namespace {

using EntryFn = int (*)(const void* const*, void* const*, void*);

// A kernel with an OpenMP team loads libgomp with it. Its worker threads outlive the team and
// sleep inside libgomp; if the last kernel using it were unloaded, libgomp would be unmapped under
// them (a segfault at the next kernel's first team). Loading it once more, never to be unloaded,
// keeps it mapped for the life of the process.
void pinOpenMpRuntime() {
  static void* pinned = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  (void)pinned;  // without it the kernel's own dlopen reports the missing library
}

class CpuExecutable : public Executable {
 public:
  CpuExecutable(codegen::EmittedKernel kernel, CompileStats stats)
      : kernel_(std::move(kernel)), stats_(std::move(stats)) {
    if (kernel_.source.find("#define LF_CPU_THREADS") != std::string::npos ||
        kernel_.source.find("#define LF_CPU_BATCH_THREADS") != std::string::npos) {
      pinOpenMpRuntime();
    }
    handle_ = dlopen(stats_.objectPath.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      throw std::runtime_error("cannot load the compiled kernel " + stats_.objectPath + ": " +
                               dlerror());
    }
    entry_ = reinterpret_cast<EntryFn>(dlsym(handle_, kernel_.entryName.c_str()));
    if (entry_ == nullptr) {
      dlclose(handle_);
      throw std::runtime_error("the compiled kernel " + stats_.objectPath + " has no entry " +
                               kernel_.entryName);
    }
  }

  ~CpuExecutable() override {
    for (void* p : freeScratch_) std::free(p);
    dlclose(handle_);
  }

  const codegen::EmittedKernel& kernel() const override { return kernel_; }
  const CompileStats& stats() const override { return stats_; }

  void runRaw(const void* const* inputs, void* const* outputs) const override {
    void* scratch = takeScratch();
    int status = entry_(inputs, outputs, scratch);
    giveBackScratch(scratch);
    if (status != 0) {
      throw std::runtime_error("the kernel " + kernel_.entryName + " returned " +
                               std::to_string(status));
    }
  }

 private:
  void* takeScratch() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!freeScratch_.empty()) {
        void* p = freeScratch_.back();
        freeScratch_.pop_back();
        return p;
      }
    }
    // 64-byte aligned, at least one line so that an empty plan still gets a valid pointer.
    size_t bytes = static_cast<size_t>((kernel_.scratchBytes + 63) / 64 * 64);
    void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }

  void giveBackScratch(void* p) const {
    std::lock_guard<std::mutex> lock(mutex_);
    freeScratch_.push_back(p);
  }

  codegen::EmittedKernel kernel_;
  CompileStats stats_;
  void* handle_ = nullptr;
  EntryFn entry_ = nullptr;
  mutable std::mutex mutex_;
  mutable std::vector<void*> freeScratch_;
};

}  // namespace

std::unique_ptr<Executable> Executable::compileCpu(const codegen::EmittedKernel& kernel,
                                                   const CompileOptions& options) {
  if (kernel.target != codegen::Target::Cpu) {
    throw std::invalid_argument("Executable::compileCpu needs a kernel emitted for the CPU target");
  }
  CompileStats stats = compileCached(kernel.source, options);
  return std::make_unique<CpuExecutable>(kernel, std::move(stats));
}

}  // namespace lf::runtime
