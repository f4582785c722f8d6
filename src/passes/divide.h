// The division rewrites of XLA's algebraic simplifier, made here so that loopfuse divides where
// XLA:CPU divides and multiplies where it multiplies.
//
// XLA rewrites a float division before any code is emitted (AlgebraicSimplifierVisitor::
// HandleDivide), and each rewrite changes the last bit of a third or more of the results:
// jax.jit(lambda x, s: x / s) computes x * (1 / s). So softmax, means, normalizations and any
// x / 3.0 differ from jax.jit unless the same divisions are rewritten. In every region, for each
// f16/bf16/f32/f64 divide(A, B), the first rule that matches, as XLA orders them:
//   - A / pow(B, C)  -> A * pow(B, -C);
//   - A / sqrt(B)    -> A * rsqrt(B), when the sqrt has no other use;
//   - A / rsqrt(B)   -> A * sqrt(B), when the rsqrt has no other use;
//   - A / K          -> A * (1 / K), K a constant (possibly broadcast or reshaped), A not a
//                       constant; 1 / K is computed here, rounded once to the type;
//   - A / broadcast(B) -> A * broadcast(1 / B), when B has no other use (XLA:CPU only; the
//                       new 1 / B is rewritten in turn: 1 / broadcast(sqrt(S)) -> rsqrt(S));
//   - (A / B) / (C / D) -> (A * D) / (B * C);  (A / B) / C -> A / (B * C);
//     A / (B / C) -> (A * C) / B.
// A divide of constants only is left as it is: XLA's constant folding computes it first.
// "No other use" counts uses as they are when the divide is reached, with the ops that earlier
// rewrites left unused no longer counted, as in XLA, in the program as JAX wrote it: the pass
// runs before simplify and CSE. That decides which divisions by a broadcast are rewritten, as
// measured against jax.jit: JAX broadcasts a scalar s straight to the divisor's shape, so
// x / s is rewritten only when s has no other use (a loop that passes s through, or two
// divisions by s, keep dividing), while it broadcasts a vector v through a reshape made for that
// division alone, so x / v[:, None] is always rewritten.
// Left out: XLA's fast-math rules (exp(A) / exp(B), A / exp(B): off in JAX) and
// convert(pred) / broadcast(s) -> broadcast(1 / s) * convert(pred), which gives the same bits.
// XLA:GPU does not make the broadcast rule; the CUDA kernel follows XLA:CPU (results on the GPU
// are compared within the float tolerances).
#pragma once

#include "ir/ir.h"

namespace lf::passes {

void rewriteDivides(ir::Program& program);

}  // namespace lf::passes
