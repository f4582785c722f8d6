// Multiply-add contraction: the fma XLA's LLVM backends make, made explicit so that loopfuse's
// bits are XLA's.
//
// XLA:CPU and XLA:GPU compile with llvm::FPOpFusion::Fast, so LLVM's instruction selection fuses
// an f32/f64 add or subtract with a multiply operand that has no other use into one fma (one
// rounding instead of two). jax.jit(lambda a, b, c: a*b + c) therefore equals fma(a, b, c) on
// every input, and jax.random.normal's uniform-to-(-1, 1) scaling and erf_inv's Horner steps are
// fmas. This pass rewrites, in every region, the adds and subtracts that LLVM's DAG combiner
// fuses (DAGCombiner::visitFADDForFMACombine / visitFSUBForFMACombine, non-aggressive: x86):
//   - negations fold first, exactly: a + (-b) = a - b, (-a) + b = b - a, a - (-b) = a + b;
//   - a*b + c and c + a*b -> fma(a, b, c), the left operand's multiply first;
//   - a*b - c -> fma(a, b, -c); c - a*b -> fma(-a, b, c); (-(a*b)) - c -> fma(-a, b, -c);
// where the multiply (and a negation between) has this add as its only use, in the same region,
// is not one that XLA's constant folding computes before LLVM sees it (operands made of constants
// only), is not a product of two values that are the same for every element (LLVM hoists such
// a product out of the element loop, away from the add), and is not an f64 product that LLVM
// turns into a select: XLA's f64 exp ends in one (its overflow and underflow results), and a
// multiply by a constant of it (or of a chain of constant adds, divides, ... on it) moves into
// the select's arms, so 0.01 * exp(x) + y rounds twice. An add whose left operand is an f32 exp
// is not contracted either: XLA's f32 exp ends in a multiply by 2^k, which LLVM fuses there
// (exactly), so exp(x) + c * y rounds c * y on its own. Checked against
// jax.jit bit for bit in tests/python/test_jit_contraction.py.
//
// Not modelled: XLA duplicates a multiply into each consumer fusion, so a multiply whose several
// users are adds in different fusions (e.g. two outputs m + c and m + d) is fused into each by
// XLA and into none here.
//
// Half precision: bf16 never fuses (XLA computes each op in f32 and rounds to bf16). f16 fuses
// where the CPU has f16 arithmetic (AVX512-FP16: Sapphire Rapids and later), where LLVM keeps
// f16 ops native and fuses them like f32 ones, so jax.jit's a*b + c is one f16 rounding there;
// where it has none, LLVM widens each f16 op to f32 and rounds it back, and nothing fuses. This
// pass contracts f16 on every target and lf_fma (lf_common.h) decides by the kernel compiler's
// target: one rounding with __AVX512FP16__, else two, the unfused ops' bits.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// Replaces the contractible adds and subtracts by OpKind::Fma (and exact negations of its
// operands); the multiplies they absorbed are left for DCE.
void contractMultiplyAdd(ir::Program& program);

}  // namespace lf::passes
