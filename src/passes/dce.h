// Dead code elimination: removes ops none of whose results are used (no IR op has side effects).
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// Removes every op whose results reach neither the program's outputs nor a live op, in every
// region. Region yields of live ops (loop state, branch results, reducers) are kept whole.
void eliminateDeadCode(ir::Program& program);

}  // namespace lf::passes
