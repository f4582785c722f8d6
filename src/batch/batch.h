// Batch mapping: a program vmapped over independent chains (`jax.vmap` of a sampler, a solver, an
// RNN) has a dimension that no op mixes. Each chain, or each group of chains, can then run the
// whole program, loops included, on its own: one CUDA thread (or block) per chain, or a CPU thread
// per group of chains (vectorised across the group), with no barrier between groups.
//
// `analyze` finds that dimension for every value: the batch dimension (the leading dimension of
// the batched inputs and one dimension of each batched output), or none for values every chain
// shares (weights, loop counters, constants). It fails, with the op and the reason, when some op
// mixes chains (a reduction or contraction over the batch dimension, a gather across it, ...).
//
// `groupProgram` builds the program one group of G consecutive chains runs: batched values have G
// elements along their batch dimension instead of the batch size, shared ones keep their shape,
// and a shared value that a batched op reads elementwise is sliced at the group's first chain (the
// extra last argument of the group program). The rest of the pipeline (passes, plan, emitter)
// compiles it like any other program; the emitter wraps it in the loop over groups.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/ir.h"

namespace lf::batch {

struct Mapping {
  int64_t chains = 0;           // the batch size; 0 when the program cannot be mapped
  std::string reason;           // why it cannot (empty when it can)
  std::vector<int> inputDims;   // per program input: its batch dimension (always 0) or -1
  std::vector<int> outputDims;  // per program output: its batch dimension or -1
  // Every value of the program (region arguments included): its batch dimension, -1 when shared.
  std::unordered_map<const ir::Value*, int> dims;
  // The reduce_or over the batch dimension in the condition of each loop whose chains stop at
  // different times (jax.vmap of a while_loop with a per-chain predicate, whose body freezes the
  // chains that are done): a group runs such a loop until its own chains are done.
  std::unordered_set<const ir::Op*> groupReductions;
  // Iotas along a dimension of the batch size, and constants of that leading dimension (folded
  // iotas), where no input is batched: the batch is made inside the program
  // (jax.random.split(key, n) feeding a jax.vmap is threefry over an iota of n). Each chain's
  // element of such a value is its own; a group reads its slice of the whole.
  std::unordered_set<const ir::Op*> batchSources;

  bool mapped() const { return chains > 0; }
};

// The batch mapping of `program` (after the passes): candidate batch sizes are the leading
// dimensions of its outputs; inputs whose leading dimension has that size are batched. When no
// output depends on a batched input (or there is none), the iotas along a dimension of that size
// and the constants of that leading dimension start the batch instead (Mapping::batchSources).
Mapping analyze(const ir::Program& program);

// The program a group of `group` chains runs (`group` divides the batch size). Inputs are the
// original inputs in order (batched ones with `group` rows), then one s32[] argument: the index of
// the group's first chain. Outputs are the original outputs (batched ones with `group` elements
// along their batch dimension).
std::unique_ptr<ir::Program> groupProgram(const ir::Program& program, const Mapping& mapping,
                                          int64_t group);

// `t` with `group` elements along dimension `d` (d < 0: unchanged).
ir::Type withGroup(const ir::Type& t, int d, int64_t group);

}  // namespace lf::batch
