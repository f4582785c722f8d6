// Matrix-vector products in loops, read through a transposed copy made once before the loop.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// Rewrites dot(W, x) with W an f32/f64 matrix [M, K] contracting its minor dim, x a vector [K],
// inside a While, with W defined outside the loop (weights: a constant, an input, a value LICM
// hoisted), into dot(x, Wt) with Wt = transpose(W) [K, M] inserted just before the outermost
// loop that reads it. Both forms give every result as the same chain of fmas over k (a product's
// operands commute exactly), so the bits do not change; what changes is how the CPU can compute
// it. W @ x reads a row of W per result, one fma chain after another; x @ Wt is a vector-matrix
// product whose results lie side by side in Wt's rows, which the CPU's register tiles compute a
// vector of results per fma (equinox's GRUCell is `weight_hh @ h` in a scan). The plan keeps such
// a transpose as a buffer (plan.cc), so it is computed once, not re-indexed per read.
// Requires M >= 8 (a vector's worth of results) and at most 16 MiB of Wt.
void transposeInvariantMatrixVectorProducts(ir::Program& program);

}  // namespace lf::passes
