// The IR-to-IR pass pipeline: one function that lists every pass in the order it runs.
#pragma once

#include <functional>

#include "ir/ir.h"

namespace lf::passes {

// Called after each pass with the pass's name ("host-callbacks", "simplify", "divide", "cse",
// "licm", "unroll", "dce", "excess-precision", "contract", "dot-layout").
using AfterPass = std::function<void(const char* passName, const ir::Program& program)>;

// Runs every pass in order. With LOOPFUSE_DUMP=after-all in the environment, prints the IR after
// each pass to stderr. `afterEach`, when given, is called after each pass too (tests verify the IR
// there).
void runPasses(ir::Program& program, const AfterPass& afterEach = nullptr);

}  // namespace lf::passes
