// Copying ops (regions included) and redirecting uses: the tools that passes use to rewrite the IR
// in place (ir.h's makeOp builds an op outside any region).
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

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

// How many times each value is used: as an operand of an op in `region` or in the regions nested
// in it, or as a yield of one of them.
using UseCounts = std::unordered_map<const Value*, int>;
void countUses(const Region& region, UseCounts& uses);

// Rewrites every operand and yield in `region` and the regions nested in it through `map`.
void replaceUses(Region& region, const ValueMap& map);

// The walk of the passes that rewrite ops in place (simplify, LICM, unrolling). For each op of
// `region` in order: its operands are redirected through `replaced` (which `visit` may extend),
// the regions nested in it are walked first, then `visit(op, kept, region)` moves the op, or
// what replaces it, into `kept`. The region's ops become `kept`, and its yields are redirected.
template <class Visit>
void rewriteRegion(Region& region, const ValueMap& replaced, Visit& visit) {
  std::vector<std::unique_ptr<Op>> kept;
  kept.reserve(region.ops.size());
  for (auto& op : region.ops) {
    for (Value*& v : op->operands) v = lookup(replaced, v);
    for (auto& sub : op->regions) rewriteRegion(*sub, replaced, visit);
    visit(op, kept, region);
  }
  region.ops = std::move(kept);
  for (Value*& y : region.yields) y = lookup(replaced, y);
}

}  // namespace lf::ir
