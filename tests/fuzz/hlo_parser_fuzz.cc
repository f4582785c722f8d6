// libFuzzer target for the HLO parser: any input must either parse or throw lf::CompileError;
// crashes, hangs, leaks and sanitizer reports are bugs. Run with tests/fuzz/run.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hlo/ast.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lf::SourceFile file("fuzz.hlo", std::string(reinterpret_cast<const char*>(data), size));
  try {
    lf::hlo::Module module = lf::hlo::parseModule(file);
    // Touch what the frontend will read, so that inconsistent trees show up under ASan.
    for (const auto& comp : module.computations) {
      (void)comp.root().shape.toString();
      for (const auto& instr : comp.instructions)
        if (instr.literal && instr.literal->elements.size() != instr.literal->locs.size())
          __builtin_trap();
    }
    (void)module.entry();
  } catch (const lf::CompileError& e) {
    if (e.diagnostics().size() != 1) __builtin_trap();
    (void)file.format(e.diagnostics());
  }
  return 0;
}
