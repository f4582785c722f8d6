// Multiply-add contraction: which adds and subtracts become fma, with which operands, and which
// stay. The expected forms are LLVM's DAG combiner rules (passes/contract.h), checked against
// jax.jit's bits in tests/python/test_jit_contraction.py.
#include "passes/contract.h"

#include "passes/licm.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// a*b + c, c + a*b, a*b - c, c - a*b; in a*b + c*d the left multiply fuses.
TEST(Contract, FusesASingleUseMultiplyIntoItsAddOrSubtract) {
  EXPECT_EQ(
      afterPass(R"(HloModule forms
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] parameter(2)
  d = f32[4] parameter(3)
  m1 = f32[4] multiply(a, b)
  s1 = f32[4] add(m1, c)
  m2 = f32[4] multiply(a, b)
  s2 = f32[4] add(c, m2)
  m3 = f32[4] multiply(a, b)
  s3 = f32[4] subtract(m3, c)
  m4 = f32[4] multiply(a, b)
  s4 = f32[4] subtract(c, m4)
  m5 = f32[4] multiply(a, b)
  m6 = f32[4] multiply(c, d)
  s5 = f32[4] add(m5, m6)
  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(s1, s2, s3, s4, s5)
})",
                contractMultiplyAdd),
      R"(program forms(%0: f32[4], %1: f32[4], %2: f32[4], %3: f32[4]) -> (f32[4], f32[4], f32[4], f32[4], f32[4]) {
  %4 = fma(%0, %1, %2) : f32[4]
  %5 = fma(%0, %1, %2) : f32[4]
  %6 = negate(%2) : f32[4]
  %7 = fma(%0, %1, %6) : f32[4]
  %8 = negate(%0) : f32[4]
  %9 = fma(%8, %1, %2) : f32[4]
  %10 = multiply(%2, %3) : f32[4]
  %11 = fma(%0, %1, %10) : f32[4]
  return %4, %5, %7, %9, %11
}
)");
}

// Negations fold first: c + -(a*b) = c - a*b, -(a*b) - c, and c - -(a*b) = c + a*b.
TEST(Contract, FoldsNegationsAsLlvmDoes) {
  EXPECT_EQ(afterPass(R"(HloModule negations
ENTRY main {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  c = f64[] parameter(2)
  m1 = f64[] multiply(a, b)
  n1 = f64[] negate(m1)
  s1 = f64[] add(c, n1)
  m2 = f64[] multiply(a, b)
  n2 = f64[] negate(m2)
  s2 = f64[] subtract(n2, c)
  m3 = f64[] multiply(a, b)
  n3 = f64[] negate(m3)
  s3 = f64[] subtract(c, n3)
  ROOT t = (f64[], f64[], f64[]) tuple(s1, s2, s3)
})",
                      contractMultiplyAdd),
            R"(program negations(%0: f64[], %1: f64[], %2: f64[]) -> (f64[], f64[], f64[]) {
  %3 = negate(%0) : f64[]
  %4 = fma(%3, %1, %2) : f64[]
  %5 = negate(%0) : f64[]
  %6 = negate(%2) : f64[]
  %7 = fma(%5, %1, %6) : f64[]
  %8 = fma(%0, %1, %2) : f64[]
  return %4, %7, %8
}
)");
}

// What stays: a multiply with a second use (another op, or an output), bf16 and integers, a
// product of two broadcast scalars over many elements (loop-invariant, hoisted away from the add
// by LLVM).
TEST(Contract, LeavesSharedBf16IntegerAndInvariantMultiplies) {
  EXPECT_EQ(
      afterPass(R"(HloModule stays
ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] parameter(2)
  h = bf16[4] parameter(3)
  k = s32[4] parameter(4)
  s = f32[] parameter(5)
  m1 = f32[4] multiply(a, b)
  s1 = f32[4] add(m1, c)
  e1 = f32[4] exponential(m1)
  m2 = f32[4] multiply(a, c)
  s2 = f32[4] add(m2, b)
  hm = bf16[4] multiply(h, h)
  hs = bf16[4] add(hm, h)
  km = s32[4] multiply(k, k)
  ks = s32[4] add(km, k)
  bs = f32[4] broadcast(s), dimensions={}
  bm = f32[4] multiply(bs, bs)
  bsum = f32[4] add(bm, c)
  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[4], bf16[4], s32[4], f32[4]) tuple(s1, e1, s2, m2, bsum, hs, ks, bsum)
})",
                contractMultiplyAdd),
      R"(program stays(%0: f32[4], %1: f32[4], %2: f32[4], %3: bf16[4], %4: s32[4], %5: f32[]) -> (f32[4], f32[4], f32[4], f32[4], f32[4], bf16[4], s32[4], f32[4]) {
  %6 = multiply(%0, %1) : f32[4]
  %7 = add(%6, %2) : f32[4]
  %8 = exponential(%6) : f32[4]
  %9 = multiply(%0, %2) : f32[4]
  %10 = add(%9, %1) : f32[4]
  %11 = multiply(%3, %3) : bf16[4]
  %12 = add(%11, %3) : bf16[4]
  %13 = multiply(%4, %4) : s32[4]
  %14 = add(%13, %4) : s32[4]
  %15 = broadcast(%5) dimensions={} : f32[4]
  %16 = multiply(%15, %15) : f32[4]
  %17 = add(%16, %2) : f32[4]
  return %7, %8, %10, %9, %17, %12, %14, %17
}
)");
}

// f16 contracts like f32: whether the fma rounds once (a CPU with f16 arithmetic, where XLA fuses)
// or twice (elsewhere, where it does not) is lf_fma's choice, by the kernel compiler's target.
TEST(Contract, FusesF16) {
  EXPECT_EQ(afterPass(R"(HloModule half
ENTRY main {
  a = f16[4] parameter(0)
  b = f16[4] parameter(1)
  m = f16[4] multiply(a, b)
  ROOT s = f16[4] subtract(m, b)
})",
                      contractMultiplyAdd),
            R"(program half(%0: f16[4], %1: f16[4]) -> (f16[4]) {
  %2 = negate(%1) : f16[4]
  %3 = fma(%0, %1, %2) : f16[4]
  return %3
}
)");
}

// XLA folds a product of constants (through other ops, broadcasts and iotas included) before
// LLVM sees it, so it stays a separate multiply; a product with a parameter fuses.
TEST(Contract, LeavesProductsThatXlaConstantFolds) {
  EXPECT_EQ(afterPass(R"(HloModule folded
ENTRY main {
  a = f32[2] parameter(0)
  k1 = f32[2] constant({1.5, 2.5})
  k2 = f32[2] constant({3, -1})
  e = f32[2] exponential(k2)
  km = f32[2] multiply(k1, e)
  s1 = f32[2] add(km, a)
  c = f32[] constant(3)
  bc = f32[2] broadcast(c), dimensions={}
  i = f32[2] iota(), iota_dimension=0
  bi = f32[2] multiply(bc, i)
  s2 = f32[2] add(bi, a)
  bm = f32[2] multiply(bc, a)
  s3 = f32[2] add(bm, a)
  ROOT t = (f32[2], f32[2], f32[2]) tuple(s1, s2, s3)
})",
                      contractMultiplyAdd),
            R"(program folded(%0: f32[2]) -> (f32[2], f32[2], f32[2]) {
  %1 = constant({1.5, 2.5}) : f32[2]
  %2 = constant({3, -1}) : f32[2]
  %3 = exponential(%2) : f32[2]
  %4 = multiply(%1, %3) : f32[2]
  %5 = add(%4, %0) : f32[2]
  %6 = constant(3) : f32[]
  %7 = broadcast(%6) dimensions={} : f32[2]
  %8 = iota() dimension=0 : f32[2]
  %9 = multiply(%7, %8) : f32[2]
  %10 = add(%9, %0) : f32[2]
  %11 = fma(%7, %0, %0) : f32[2]
  return %5, %10, %11
}
)");
}

// A multiply that LICM moved out of a loop does not fuse into the add left in the body (XLA's loop
// is a separate computation too); the one computed in the body from the carried value does.
TEST(Contract, LeavesAMultiplyOfAnEnclosingRegion) {
  const std::string printed = afterPass(R"(HloModule outer
cond {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4] get-tuple-element(p), index=1
  a = f32[4] get-tuple-element(p), index=2
  one = s32[] constant(1)
  j = s32[] add(i, one)
  aa = f32[4] multiply(a, a)
  y = f32[4] add(aa, x)
  xx = f32[4] multiply(x, x)
  z = f32[4] add(xx, y)
  ROOT r = (s32[], f32[4], f32[4]) tuple(j, z, a)
}
ENTRY main {
  x = f32[4] parameter(0)
  a = f32[4] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(zero, x, a)
  w = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(w), index=1
})",
                                        [](ir::Program& p) {
                                          hoistLoopInvariants(p);
                                          contractMultiplyAdd(p);
                                        });
  EXPECT_NE(printed.find("add("), std::string::npos) << printed;
  EXPECT_NE(printed.find("fma("), std::string::npos) << printed;
  EXPECT_EQ(printed.find("multiply(%"), printed.rfind("multiply(%")) << printed;
}

}  // namespace
}  // namespace lf::passes::testing
