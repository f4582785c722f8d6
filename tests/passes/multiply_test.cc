// XLA's constant reassociation of multiplies: which chains fold their constants, and which stay.
// The bits are checked against jax.jit in tests/python/test_jit_multiply.py; here, the forms.
#include "passes/multiply.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// (x * 2) * 3 -> x * 6 and 0.5 * (4 * (x * 3)) -> x * 6, the constants multiplied here (operand
// order and broadcasts as JAX writes them); (x * 3) * broadcast(s) -> x * broadcast(s * 3).
TEST(Multiply, ConstantsFoldIntoOne) {
  EXPECT_EQ(afterPass(R"(HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  s = f32[] parameter(1)
  c2 = f32[] constant(2)
  b2 = f32[4] broadcast(c2), dimensions={}
  c3 = f32[] constant(3)
  b3 = f32[4] broadcast(c3), dimensions={}
  c4 = f32[] constant(4)
  b4 = f32[4] broadcast(c4), dimensions={}
  c5 = f32[] constant(0.5)
  b5 = f32[4] broadcast(c5), dimensions={}
  m1 = f32[4] multiply(x, b2)
  r1 = f32[4] multiply(m1, b3)
  m2 = f32[4] multiply(x, b3)
  m3 = f32[4] multiply(b4, m2)
  r2 = f32[4] multiply(b5, m3)
  bs = f32[4] broadcast(s), dimensions={}
  r3 = f32[4] multiply(m2, bs)
  ROOT out = (f32[4], f32[4], f32[4]) tuple(r1, r2, r3)
})",
                      reassociateConstantMultiplies),
            R"(program m(%0: f32[4], %1: f32[]) -> (f32[4], f32[4], f32[4]) {
  %2 = constant(6) : f32[]
  %3 = broadcast(%2) dimensions={} : f32[4]
  %4 = multiply(%0, %3) : f32[4]
  %5 = constant(6) : f32[]
  %6 = broadcast(%5) dimensions={} : f32[4]
  %7 = multiply(%0, %6) : f32[4]
  %8 = constant(3) : f32[]
  %9 = multiply(%1, %8) : f32[]
  %10 = broadcast(%9) dimensions={} : f32[4]
  %11 = multiply(%0, %10) : f32[4]
  return %4, %7, %11
}
)");
}

// XLA leaves these: two scaled operands, a constant times a product with a broadcast, bf16, and
// integers.
TEST(Multiply, OtherProductsStay) {
  const char* hlo = R"(HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  s = f32[] parameter(2)
  h = bf16[4] parameter(3)
  i = s32[4] parameter(4)
  c = f32[] constant(3)
  b = f32[4] broadcast(c), dimensions={}
  xb = f32[4] multiply(x, b)
  yb = f32[4] multiply(y, b)
  r1 = f32[4] multiply(xb, yb)
  bs = f32[4] broadcast(s), dimensions={}
  xs = f32[4] multiply(x, bs)
  r2 = f32[4] multiply(xs, b)
  ch = bf16[] constant(3)
  bh = bf16[4] broadcast(ch), dimensions={}
  hb = bf16[4] multiply(h, bh)
  r3 = bf16[4] multiply(hb, bh)
  ci = s32[] constant(3)
  bi = s32[4] broadcast(ci), dimensions={}
  ib = s32[4] multiply(i, bi)
  r4 = s32[4] multiply(ib, bi)
  ROOT out = (f32[4], f32[4], bf16[4], s32[4]) tuple(r1, r2, r3, r4)
})";
  EXPECT_EQ(afterPass(hlo, reassociateConstantMultiplies), afterPass(hlo, [](ir::Program&) {}));
}

}  // namespace
}  // namespace lf::passes::testing
