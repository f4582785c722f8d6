// `loopfuse ir`, `loopfuse emit` and `loopfuse explain`: the program at each stage, as text.
#include <iostream>

#include "cli_common.h"
#include "commands.h"
#include "frontend/import.h"
#include "passes/pipeline.h"

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

int emitCommand(const std::string& path, codegen::Target target) {
  std::cout << emitHlo(path, target).source;
  return kExitOk;
}

int explainCommand(const std::string& path, codegen::Target target) {
  std::cout << emitHlo(path, target).explain;
  return kExitOk;
}

}  // namespace lf::tools
