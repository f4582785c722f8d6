// Loop-invariant code motion.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// For every While, innermost first:
//   - loop state that the body passes through unchanged (it yields its own argument, or the
//     initial value itself) always holds the initial value: its uses in the condition and the body,
//     and the While's result, become the operand, and the state is dropped from the loop;
//   - ops of the condition or the body (not While or Conditional) whose operands, and the values
//     their regions read, are all defined outside the While move to just before it, in order.
// Hoisting from an inner loop into an outer body first lets the outer loop hoist them further.
// Ops are pure and never trap (integer division by zero has a defined result), so running one
// when the loop would run zero times is safe.
void hoistLoopInvariants(ir::Program& program);

}  // namespace lf::passes
