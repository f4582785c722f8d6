// The IR-to-IR pass pipeline: one function that lists every pass in the order it runs.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// Runs every pass in order. With LOOPFUSE_DUMP=after-all in the environment, prints the IR after
// each pass to stderr.
void runPasses(ir::Program& program);

}  // namespace lf::passes
