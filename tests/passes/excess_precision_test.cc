// XLA:CPU's excess precision: which converts of bf16 results to f32 read the f32 result instead.
// The bits are checked against jax.jit in tests/python/test_jit_excess_precision.py.
#include "passes/excess_precision.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// exp(exp(x)) in bf16, converted to f32: the outer exp is computed in f32 and not rounded; the
// inner one still is (it feeds a bf16 op). A bf16 op also used in bf16 stays for that use. f16,
// converts to bf16 and a convert to f64 keep their roundings.
TEST(ExcessPrecision, ConvertedBf16ResultsKeepTheirF32Bits) {
  EXPECT_EQ(
      afterPass(R"(HloModule m
ENTRY main {
  x = bf16[4] parameter(0)
  e1 = bf16[4] exponential(x)
  e2 = bf16[4] exponential(e1)
  w = f32[4] convert(e2)
  y = bf16[4] parameter(1)
  s = bf16[4] add(x, y)
  ws = f32[4] convert(s)
  h = f16[4] parameter(2)
  hh = f16[4] multiply(h, h)
  wh = f32[4] convert(hh)
  d = f64[4] convert(s)
  ROOT out = (f32[4], f32[4], bf16[4], f32[4], f64[4]) tuple(w, ws, s, wh, d)
})",
                keepExcessPrecision),
      R"(program m(%0: bf16[4], %1: bf16[4], %2: f16[4]) -> (f32[4], f32[4], bf16[4], f32[4], f64[4]) {
  %3 = exponential(%0) : bf16[4]
  %4 = convert(%3) : f32[4]
  %5 = exponential(%4) : f32[4]
  %6 = add(%0, %1) : bf16[4]
  %7 = convert(%0) : f32[4]
  %8 = convert(%1) : f32[4]
  %9 = add(%7, %8) : f32[4]
  %10 = multiply(%2, %2) : f16[4]
  %11 = convert(%10) : f32[4]
  %12 = convert(%6) : f64[4]
  return %5, %9, %6, %11, %12
}
)");
}

}  // namespace
}  // namespace lf::passes::testing
