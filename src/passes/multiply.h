// The constant reassociations of XLA's algebraic simplifier (AlgebraicSimplifierVisitor::
// HandleMultiply), made here so that loopfuse multiplies by the constants XLA:CPU multiplies by.
//
// XLA folds a chain of multiplications by constants into one: jax.jit(lambda x: 0.3 * (1.7 * x))
// computes x * 0.51000005, which differs from the two roundings on 38% of f32 results. Samplers
// do this all the time: jax.random.normal is sqrt(2) * erfinv(u), and `sigma * normal` folds
// sigma into sqrt(2). In every region, for each f32/f64 multiply (either operand order), as
// measured against jax.jit (jax 0.11):
//   - (A * K1) * K2         -> A * (K1 * K2), K1 and K2 scalar constants (possibly broadcast or
//                              reshaped), A not a constant; K1 * K2 is computed here, rounded to
//                              the type;
//   - (A * K1) * broadcast(B) -> A * broadcast(B * K1), B not a constant; the new B * K1 is
//                              rewritten in turn.
// Both apply whatever other uses A * K1 has, and a chain folds from the inside out
// (0.3 * (1.7 * (2.9 * x)) is x * ((2.9 * 1.7) * 0.3)). Not rewritten, as in XLA:
// (A * K1) * (B * K2), (A * broadcast(B)) * K, f16 and bf16 (computed in f32 on the CPU), and
// the multiplies by reciprocals that the division rewrites make (passes/divide.h): this pass runs
// before them, so (x / 3) * 2 stays x * (1/3) * 2, which is what XLA computes.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

void reassociateConstantMultiplies(ir::Program& program);

}  // namespace lf::passes
