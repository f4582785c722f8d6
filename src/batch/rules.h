// The batch rule of each op kind (ops without array regions: While and Conditional are handled by
// the analysis and the per-chain builder themselves): from the batch dimensions of the operands,
// the batch dimension of the results and how each operand is read; and the op's attributes in the
// program of a group of chains.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace lf::batch {

struct OpRule {
  int result = -1;  // the batch dimension of every result; -1: shared
  // Per operand: the dimension at which each chain reads its own slice (the operand's batch
  // dimension, or, for a shared operand of the result's shape, the dimension to slice it at);
  // -1 when every chain reads the operand whole.
  std::vector<int> operands;
  std::string error;  // why the op mixes chains (then nothing else is set)
};

// `in[i]` is the batch dimension of operand i (-1: shared). `chains` is the batch size.
OpRule ruleFor(const ir::Op& op, const std::vector<int>& in, int64_t chains);

// The attributes of `op` in the program of a group of `group` chains (the batch dimension has
// `group` elements there): only a slice's limit, a dynamic-slice's size and a gather's slice size
// name its extent.
ir::Attrs groupAttrs(const ir::Op& op, const OpRule& rule, int64_t group);

// A while whose condition is reduce_or over the batch dimension of a per-chain predicate P, as
// jax.vmap writes a loop whose chains stop at different times (guarded_loop.cc): that reduce, or
// nullptr when the loop does not have this shape.
const ir::Op* batchedPredicateReduce(const ir::Op& loop);

// Whether the body of such a loop freezes each chain whose predicate fails: every state is
// unchanged, or (batched at stateDims[k]) select(P, next, state) with the body recomputing P as
// the condition does. Then a group of chains can run the loop until its own chains are done.
bool bodyFreezesFinishedChains(const ir::Op& loop, const ir::Op& reduce,
                               const std::vector<int>& stateDims);

// The rule of such a reduce: each group reduces its own chains' predicates, and the answer is the
// group's (shared within the group, and read only by its loop's condition).
OpRule groupReductionRule(const std::vector<int>& in);

}  // namespace lf::batch
