// Constant folding and algebraic simplification.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// Replaces, in every region:
//   - an op whose operands are all constants by a constant, when the result is bit-exact with XLA
//     (fold.h: integer and pred elementwise ops, select, and broadcast/reshape/slice/transpose/
//     iota up to kMaxFoldedDataMovementElements elements; never float arithmetic);
//   - an op that is an identity for every input by its operand: integer x+0, x-0, x*1, x|0, x^0,
//     x&~0, shifts by 0, x/1; float x*1.0, x/1.0, x-(+0.0), x+(-0.0); select with a constant or
//     uniform predicate, or equal branches; convert or bitcast-convert to the same type; reshape,
//     transpose, broadcast and slice that change nothing. reshape(reshape(x)) reads x directly.
// The replaced ops are removed; operands they leave unused stay for DCE.
void simplify(ir::Program& program);

}  // namespace lf::passes
