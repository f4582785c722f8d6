// Helpers the batch tests share: HLO text in, the program after the passes out (what the batch
// analysis and the emitter see).
#pragma once

#include <string>

#include "frontend/import.h"
#include "hlo/ast.h"
#include "passes/pipeline.h"

namespace lf::testing {

inline ir::Program load(const std::string& text, const char* file = "batch.hlo") {
  ir::Program p = frontend::importModule(hlo::parseModule(SourceFile(file, text)));
  passes::runPasses(p);
  return p;
}

}  // namespace lf::testing
