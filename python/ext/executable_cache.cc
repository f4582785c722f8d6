#include "executable_cache.h"

#include <xxhash.h>
#include <chrono>
#include <map>
#include <utility>

#include "frontend/import.h"
#include "hlo/ast.h"
#include "passes/pipeline.h"

namespace lf::python {

namespace {

// One slot per (key, target). Compiling holds only the slot's lock, so a slow compile does not
// stall handlers that run other, already compiled programs.
struct Slot {
  std::mutex compileMutex;
  std::unique_ptr<CachedProgram> program;  // null until compiled (or after a failed compile)
};

struct Cache {
  std::mutex mutex;  // guards `slots`
  std::map<std::pair<uint64_t, codegen::Target>, std::unique_ptr<Slot>> slots;
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
  if (target != codegen::Target::Cpu)
    throw std::runtime_error("loopfuse: the CUDA runtime is not built yet; use platform='cpu'");
  auto result = std::make_unique<CachedProgram>();
  result->executable = runtime::Executable::compileCpu(kernel);
  result->compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

uint64_t hloKey(std::string_view hloText) { return XXH3_64bits(hloText.data(), hloText.size()); }

CachedProgram& getOrCompile(uint64_t key, std::string_view hloText, codegen::Target target,
                            const std::string& sourceName) {
  Cache& c = cache();
  Slot* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    std::unique_ptr<Slot>& entry = c.slots[{key, target}];
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
