// `loopfuse ir`, `loopfuse emit` and `loopfuse explain`: the program at each stage, as text.
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "frontend/import.h"
#include "passes/pipeline.h"
#include "runtime/cuda_emulator.h"
#include "runtime/kernel_resources.h"

namespace lf::tools {

int irCommand(const std::string& path, bool afterPasses) {
  LoadedHlo loaded = loadHlo(path);
  std::string text = withDiagnostics(*loaded.file, [&] {
    ir::Program program = frontend::importModule(loaded.module);
    if (afterPasses) passes::runPasses(program);
    return ir::print(program);
  });
  std::cout << text;
  return kExitOk;
}

int emitCommand(const std::string& path, codegen::Target target, bool emulated) {
  if (emulated && target != codegen::Target::Cuda)
    throw ToolError("error: --emulate prints the host build of a CUDA kernel; add --target cuda",
                    kExitUserError);
  const codegen::EmittedKernel kernel = emitHlo(path, target);
  std::cout << (emulated ? runtime::cudaEmulatorSource(kernel) : kernel.source);
  return kExitOk;
}

// For CUDA, the plan is followed by what the compiled kernel needs per thread and per block, as
// ptxas reports it: that decides how many threads a block can have. It is compiled for sm_90 (the
// architecture CI checks) since no GPU need be present; a machine without NVRTC gets one line
// saying why, and the plan is still the answer (exit 0).
int explainCommand(const std::string& path, codegen::Target target) {
  const codegen::EmittedKernel kernel = emitHlo(path, target);
  std::cout << kernel.explain;
  if (target != codegen::Target::Cuda) return kExitOk;
  if (!kernel.explain.empty() && kernel.explain.back() != '\n') std::cout << '\n';
  const runtime::KernelResources resources =
      runtime::cudaKernelResources(kernel.source, kernel.entryName, "sm_90");
  std::cout << runtime::formatKernelResources(resources) << "\n";
  // The runtime refuses such a launch; say so before anyone gets that far.
  if (resources.ok && kernel.blockThreads > (unsigned)resources.maxThreadsPerBlock)
    std::cout << "warning: the planned block of " << kernel.blockThreads
              << " threads is more than the kernel allows (" << resources.maxThreadsPerBlock << ", "
              << resources.maxThreadsReason << ")\n";
  // A compile error is a loopfuse bug, not the user's: its whole log goes to stderr.
  if (!resources.ok && resources.message.find('\n') != std::string::npos)
    std::cerr << resources.message << "\n";
  return kExitOk;
}

}  // namespace lf::tools
