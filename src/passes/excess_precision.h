// XLA:CPU's excess precision for bf16: the f32 result of a bf16 operation that is converted to f32
// anyway is used before it is rounded to bf16.
//
// XLA:CPU computes bf16 arithmetic in f32 (FloatNormalization wraps each op in converts: f32 in,
// round to bf16 out), and with xla_allow_excess_precision (on by default) SimplifyFPConversions
// then removes each f32 -> bf16 -> f32 pair of converts. Only pairs whose second convert is the
// program's own go: a bf16 op whose result the program converts to f32 gives that convert its
// unrounded f32 result, while a bf16 op feeding another bf16 op is still rounded between them
// (and a convert the program makes to bf16 still rounds). So
// jax.jit(lambda x: jnp.exp(x.astype(bf16)).astype(f32)) is exp of the bf16 input computed and
// returned in f32: not a bf16 value. Measured against JAX 0.11.2 for 16 ops, tested for 11
// (tests/python/test_jit_excess_precision.py); f16 arithmetic keeps every rounding, as XLA's does.
//
// Not modelled: XLA also drops some roundings between bf16 ops, where a broadcast separates them
// (in x_bf16 / broadcast(m_bf16), rewritten to x * broadcast(1 / m), the bf16 reciprocal is used
// unrounded). A bf16 softmax converted to f32 therefore still differs from jax.jit in the last
// bf16 bits, within the bf16 tolerance but not the f32 one.
//
// This pass rewrites, in every region, convert_f32(op_bf16(x, ...)) into
// op_f32(convert_f32(x), ...) for each elementwise float op (the converts of bf16 inputs are
// exact); the bf16 op stays for its other uses. It runs early, before loops are unrolled: a
// convert of a loop's bf16 result reads the loop, not the op that the last unrolled copy ends
// with, and rounds. Before multiply-add contraction too: an f32 multiply made here fuses into
// its add, as it does in XLA once the converts are gone.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

void keepExcessPrecision(ir::Program& program);

}  // namespace lf::passes
