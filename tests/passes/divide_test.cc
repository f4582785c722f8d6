// XLA's division rewrites: which divides become multiplies, and which stay because a value they
// would rewrite has another use. The bits are checked against jax.jit in
// tests/python/test_jit_divide.py; here, the forms.
#include "passes/divide.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// x / broadcast(s) -> x * broadcast(1 / s); x / 4.0 -> x * 0.25 (the reciprocal of the
// constant, computed here); x / broadcast(sqrt(s)) -> x * broadcast(rsqrt(s)).
TEST(Divide, DivisionsByABroadcastOrAConstantBecomeMultiplies) {
  EXPECT_EQ(afterPass(R"(HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  s = f32[] parameter(1)
  t = f32[] parameter(2)
  bs = f32[4] broadcast(s), dimensions={}
  d1 = f32[4] divide(x, bs)
  c = f32[] constant(4)
  bc = f32[4] broadcast(c), dimensions={}
  d2 = f32[4] divide(x, bc)
  r = f32[] sqrt(t)
  br = f32[4] broadcast(r), dimensions={}
  d3 = f32[4] divide(x, br)
  ROOT out = (f32[4], f32[4], f32[4]) tuple(d1, d2, d3)
})",
                      rewriteDivides),
            R"(program m(%0: f32[4], %1: f32[], %2: f32[]) -> (f32[4], f32[4], f32[4]) {
  %3 = constant(1) : f32[]
  %4 = divide(%3, %1) : f32[]
  %5 = broadcast(%4) dimensions={} : f32[4]
  %6 = multiply(%0, %5) : f32[4]
  %7 = constant(0.25) : f32[]
  %8 = broadcast(%7) dimensions={} : f32[4]
  %9 = multiply(%0, %8) : f32[4]
  %10 = constant(1) : f32[]
  %11 = rsqrt(%2) : f32[]
  %12 = multiply(%10, %11) : f32[]
  %13 = broadcast(%12) dimensions={} : f32[4]
  %14 = multiply(%0, %13) : f32[4]
  return %6, %9, %14
}
)");
}

// A / sqrt(B), A / rsqrt(B), A / pow(B, C); (A / B) / C, A / (B / C), (A / B) / (C / D).
TEST(Divide, RewritesQuotientsOfRootsPowersAndQuotients) {
  EXPECT_EQ(
      afterPass(R"(HloModule m
ENTRY main {
  a = f64[3] parameter(0)
  b = f64[3] parameter(1)
  c = f64[3] parameter(2)
  d = f64[3] parameter(3)
  s = f64[3] sqrt(b)
  q1 = f64[3] divide(a, s)
  r = f64[3] rsqrt(b)
  q2 = f64[3] divide(a, r)
  p = f64[3] power(b, c)
  q3 = f64[3] divide(a, p)
  ab = f64[3] divide(a, b)
  q4 = f64[3] divide(ab, c)
  bc = f64[3] divide(b, c)
  q5 = f64[3] divide(a, bc)
  ab2 = f64[3] divide(a, b)
  cd = f64[3] divide(c, d)
  q6 = f64[3] divide(ab2, cd)
  ROOT out = (f64[3], f64[3], f64[3], f64[3], f64[3], f64[3]) tuple(q1, q2, q3, q4, q5, q6)
})",
                rewriteDivides),
      R"(program m(%0: f64[3], %1: f64[3], %2: f64[3], %3: f64[3]) -> (f64[3], f64[3], f64[3], f64[3], f64[3], f64[3]) {
  %4 = rsqrt(%1) : f64[3]
  %5 = multiply(%0, %4) : f64[3]
  %6 = sqrt(%1) : f64[3]
  %7 = multiply(%0, %6) : f64[3]
  %8 = negate(%2) : f64[3]
  %9 = power(%1, %8) : f64[3]
  %10 = multiply(%0, %9) : f64[3]
  %11 = multiply(%1, %2) : f64[3]
  %12 = divide(%0, %11) : f64[3]
  %13 = multiply(%0, %2) : f64[3]
  %14 = divide(%13, %1) : f64[3]
  %15 = multiply(%0, %3) : f64[3]
  %16 = multiply(%1, %2) : f64[3]
  %17 = divide(%15, %16) : f64[3]
  return %5, %7, %10, %12, %14, %17
}
)");
}

// What XLA leaves alone: a divisor broadcast from a value with a second use (a loop passes its
// invariant through; JAX broadcasts a scalar once per division), a sqrt with another use,
// integer division, and a plain elementwise quotient.
TEST(Divide, KeepsDivisionsWhoseDivisorHasOtherUses) {
  EXPECT_EQ(
      afterPass(R"(HloModule m
body {
  p = (f32[4], f32[]) parameter(0)
  x = f32[4] get-tuple-element(p), index=0
  s = f32[] get-tuple-element(p), index=1
  bs = f32[4] broadcast(s), dimensions={}
  q = f32[4] divide(x, bs)
  ROOT t = (f32[4], f32[]) tuple(q, s)
}
cond {
  p = (f32[4], f32[]) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY main {
  x = f32[4] parameter(0)
  s = f32[] parameter(1)
  i = s32[4] parameter(2)
  init = (f32[4], f32[]) tuple(x, s)
  w = (f32[4], f32[]) while(init), condition=cond, body=body
  loop = f32[4] get-tuple-element(w), index=0
  b1 = f32[4] broadcast(s), dimensions={}
  d1 = f32[4] divide(x, b1)
  b2 = f32[4] broadcast(s), dimensions={}
  d2 = f32[4] divide(loop, b2)
  r = f32[4] sqrt(x)
  d3 = f32[4] divide(x, r)
  d4 = f32[4] add(d3, r)
  d5 = f32[4] divide(x, loop)
  ci = s32[] constant(3)
  bi = s32[4] broadcast(ci), dimensions={}
  d6 = s32[4] divide(i, bi)
  ROOT out = (f32[4], f32[4], f32[4], f32[4], s32[4]) tuple(d1, d2, d4, d5, d6)
})",
                rewriteDivides),
      R"(program m(%0: f32[4], %1: f32[], %2: s32[4]) -> (f32[4], f32[4], f32[4], f32[4], s32[4]) {
  %3, %4 = while(%0, %1) : f32[4], f32[]
    cond(%5: f32[4], %6: f32[]) {
      %7 = constant(false) : pred[]
      yield %7
    }
    body(%8: f32[4], %9: f32[]) {
      %10 = broadcast(%9) dimensions={} : f32[4]
      %11 = divide(%8, %10) : f32[4]
      yield %11, %9
    }
  %12 = broadcast(%1) dimensions={} : f32[4]
  %13 = divide(%0, %12) : f32[4]
  %14 = broadcast(%1) dimensions={} : f32[4]
  %15 = divide(%3, %14) : f32[4]
  %16 = sqrt(%0) : f32[4]
  %17 = divide(%0, %16) : f32[4]
  %18 = add(%17, %16) : f32[4]
  %19 = divide(%0, %3) : f32[4]
  %20 = constant(3) : s32[]
  %21 = broadcast(%20) dimensions={} : s32[4]
  %22 = divide(%2, %21) : s32[4]
  return %13, %15, %18, %19, %22
}
)");
}

// The reciprocal of a constant array, element by element, rounded once to the type: 1/3 in f32
// is 0x3eaaaaab, in bf16 0x3eab.
TEST(Divide, InvertsConstantArraysInTheirOwnType) {
  EXPECT_EQ(afterPass(R"(HloModule m
ENTRY main {
  x = f32[3] parameter(0)
  k = f32[3] constant({3, -0.5, 10})
  d = f32[3] divide(x, k)
  y = bf16[2] parameter(1)
  kb = bf16[2] constant({3, 8})
  e = bf16[2] divide(y, kb)
  ROOT out = (f32[3], bf16[2]) tuple(d, e)
})",
                      rewriteDivides),
            R"(program m(%0: f32[3], %1: bf16[2]) -> (f32[3], bf16[2]) {
  %2 = constant({0.33333334, -2, 0.1}) : f32[3]
  %3 = multiply(%0, %2) : f32[3]
  %4 = constant({0.33398438, 0.125}) : bf16[2]
  %5 = multiply(%1, %4) : bf16[2]
  return %3, %5
}
)");
}

}  // namespace
}  // namespace lf::passes::testing

namespace lf::passes::testing {
namespace {

// JAX broadcasts a vector divisor through reshapes made for that division alone: the reshape's
// one use decides, not the vector's, and the sqrt under the reshapes becomes an rsqrt.
TEST(Divide, AVectorDivisorBroadcastThroughItsOwnReshapeIsRewritten) {
  EXPECT_EQ(afterPass(R"(HloModule m
ENTRY main {
  x = f32[2,3] parameter(0)
  v = f32[2] parameter(1)
  r = f32[2,1] reshape(v)
  same = f32[2,1] broadcast(r), dimensions={0,1}
  back = f32[2] reshape(same)
  b = f32[2,3] broadcast(back), dimensions={0}
  d = f32[2,3] divide(x, b)
  w = f32[2] sqrt(v)
  rw = f32[2,1] reshape(w)
  sw = f32[2,1] broadcast(rw), dimensions={0,1}
  bw = f32[2] reshape(sw)
  b2 = f32[2,3] broadcast(bw), dimensions={0}
  e = f32[2,3] divide(x, b2)
  ROOT out = (f32[2,3], f32[2,3], f32[2]) tuple(d, e, v)
})",
                      rewriteDivides),
            R"(program m(%0: f32[2,3], %1: f32[2]) -> (f32[2,3], f32[2,3], f32[2]) {
  %2 = reshape(%1) : f32[2,1]
  %3 = broadcast(%2) dimensions={0,1} : f32[2,1]
  %4 = reshape(%3) : f32[2]
  %5 = constant(1) : f32[]
  %6 = broadcast(%5) dimensions={} : f32[2]
  %7 = divide(%6, %4) : f32[2]
  %8 = broadcast(%7) dimensions={0} : f32[2,3]
  %9 = multiply(%0, %8) : f32[2,3]
  %10 = constant(1) : f32[]
  %11 = broadcast(%10) dimensions={} : f32[2]
  %12 = rsqrt(%1) : f32[2]
  %13 = reshape(%12) : f32[2,1]
  %14 = reshape(%13) : f32[2,1]
  %15 = reshape(%14) : f32[2]
  %16 = multiply(%11, %15) : f32[2]
  %17 = broadcast(%16) dimensions={0} : f32[2,3]
  %18 = multiply(%0, %17) : f32[2,3]
  return %9, %18, %1
}
)");
}

}  // namespace
}  // namespace lf::passes::testing
