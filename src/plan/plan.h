// The execution plan of a program: where every value lives (an input pointer, a slot of the one
// scratch arena, a constant table, or an alias of another value's buffer), the extra scratch that
// loops and sorts need, and one stage per array op. The emitter only follows this plan; later
// passes (fusion, buffer reuse, in-place loop state) improve the plan, not the emitter.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "support/target.h"

namespace lf::plan {

enum class StorageKind : uint8_t {
  Input,     // a program parameter, read through the input pointer
  Scratch,   // a slot of the scratch arena
  Constant,  // a static table in the emitted source
  Alias,   // the buffer of another value (reshape, bitcast, region arguments of While/Conditional)
  Scalar,  // a local variable inside scalar region code (reducer, comparator, combiner)
};

struct Storage {
  StorageKind kind = StorageKind::Scratch;
  int input = -1;                   // Input: the parameter index
  int64_t offset = 0;               // Scratch: byte offset in the arena (64-byte aligned)
  const ir::Value* root = nullptr;  // Alias: the (non-alias) value whose buffer this one is
};

// What the plan decided for one op.
struct OpPlan {
  int stage = -1;  // emission order of the array ops; -1 for ops that emit no loop (aliases)
  // While: per state index, the scratch offset of a temporary that the yield is copied through
  // first (a yield that is another state buffer, e.g. a swap), or -1 when the copy is direct.
  // Sort: the two int64 permutation buffers of the merge sort.
  std::vector<int64_t> temps;
};

struct Kernel {
  const ir::Program* program = nullptr;
  Target target = Target::Cpu;
  std::unordered_map<const ir::Value*, Storage> storage;
  std::unordered_map<const ir::Op*, OpPlan> ops;
  int64_t scratchBytes = 0;
  int stageCount = 0;

  const Storage& storageOf(const ir::Value* v) const;  // resolved: never an Alias of an Alias
  const OpPlan& opPlan(const ir::Op* op) const;
  // A human-readable summary: stages, storage of each value, scratch bytes, barriers per loop
  // iteration (`loopfuse explain`).
  std::string explain() const;
};

// Whether the regions of an op hold scalar code (reducer, comparator, combiner) rather than array
// code (While, Conditional).
bool hasScalarRegions(ir::OpKind kind);

Kernel plan(const ir::Program& program, Target target);

}  // namespace lf::plan
