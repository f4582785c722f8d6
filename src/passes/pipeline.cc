#include "passes/pipeline.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "passes/dce.h"

namespace lf::passes {
namespace {

bool dumpAfterAll() {
  const char* dump = std::getenv("LOOPFUSE_DUMP");
  return dump != nullptr && std::strcmp(dump, "after-all") == 0;
}

void dumpAfter(const char* passName, const ir::Program& program) {
  if (!dumpAfterAll()) return;
  std::cerr << "// ----- IR after " << passName << " -----\n" << ir::print(program);
}

}  // namespace

void runPasses(ir::Program& program) {
  eliminateDeadCode(program);
  dumpAfter("dce", program);
}

}  // namespace lf::passes
