// Common subexpression elimination.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// Merges an op into an earlier equal one: same kind, attributes, operands and result types, and
// structurally equal regions (so equal constants, equal reducers and even equal loops merge). The
// earlier op must dominate the later one: it is in the same region, or in a region enclosing it.
// Reducer, comparator and combiner regions only merge within themselves: the code generator
// inlines them as scalar code that reads its own arguments and locals only.
void eliminateCommonSubexpressions(ir::Program& program);

}  // namespace lf::passes
