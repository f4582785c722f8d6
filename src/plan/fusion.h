// Which values are fused into their consumers: the analysis of uses that the planner runs first.
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace lf::plan {

// One use of a value: an operand slot of an op, or a yield of a region.
struct Use {
  const ir::Op* user = nullptr;  // nullptr for a yield
  int slot = -1;
  const ir::Region* yieldOf = nullptr;
};

// The uses of every value of the program, in every region.
std::unordered_map<const ir::Value*, std::vector<Use>> collectUses(const ir::Program& program);

// Ops whose element i depends only on elements of their operands at an index computed from i
// (no arithmetic on data): fusing them costs index arithmetic only, wherever they are used.
bool isIndexOnly(const ir::Op& op);
// Ops the emitter can compute element by element inside a consumer's loop.
bool isFusible(const ir::Op& op);
// Whether `user` reads each element of operand `slot` at most once per element it writes, so a
// fused producer is not recomputed many times (a dot re-reads its operands, a broadcast repeats).
bool readsOperandOnce(const ir::Op& user, int slot);

}  // namespace lf::plan
