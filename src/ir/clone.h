// Copying ops (regions included) and redirecting uses: the tools that passes use to rewrite the IR
// in place (ir.h's makeOp builds an op outside any region).
#pragma once

#include <memory>
#include <unordered_map>

#include "ir/ir.h"

namespace lf::ir {

// From old values to their replacements (a clone's values, or a simplified value).
using ValueMap = std::unordered_map<const Value*, Value*>;

// A copy of `op` whose parent is `parent`. Operands (and values used inside its regions) found in
// `map` are replaced; others are kept, so values of enclosing regions stay shared. Every result and
// region argument of the copy is recorded in `map` against the original.
std::unique_ptr<Op> cloneOp(const Op& op, ValueMap& map, Region* parent);

// `map[v]`, followed through chains (a replacement may itself have been replaced); `v` when absent.
Value* lookup(const ValueMap& map, Value* v);

// Rewrites every operand and yield in `region` and the regions nested in it through `map`.
void replaceUses(Region& region, const ValueMap& map);

}  // namespace lf::ir
