// Elementwise ops: every unary/binary family imports to the IR op of the same name.
#include <gtest/gtest.h>

#include "frontend/test_util.h"

namespace lf::frontend::testing {
namespace {

TEST(ElementwiseImport, AddAndCompare) {
  std::string ir = importText(R"(HloModule jit_f
ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  a = f32[2,3] add(x, y)
  ROOT c = pred[2,3] compare(a, y), direction=LT
})");
  EXPECT_EQ(ir, R"(program jit_f(%0: f32[2,3], %1: f32[2,3]) -> (pred[2,3]) {
  %2 = add(%0, %1) : f32[2,3]
  %3 = compare(%2, %1) direction=LT type=FLOAT : pred[2,3]
  return %3
}
)");
}

// jax 0.11's sort comparator prints the total-order float compare as `order=TOTAL`.
TEST(ElementwiseImport, CompareOrderTotalIsTotalOrder) {
  std::string ir = importText(R"(HloModule jit_f
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  ROOT c = pred[2] compare(x, y), direction=LT, order=TOTAL
})");
  EXPECT_NE(ir.find("direction=LT type=TOTALORDER"), std::string::npos) << ir;
}

TEST(ElementwiseImport, CompareUnknownOrderIsAnError) {
  std::string err = importError(R"(HloModule jit_f
ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = pred[2] compare(x, x), direction=LT, order=WEIRD
})");
  EXPECT_NE(err.find("test.hlo:4:55: error: unknown comparison order 'WEIRD'"), std::string::npos)
      << err;
}

}  // namespace
}  // namespace lf::frontend::testing

namespace lf::frontend::testing {
namespace {

// Ops jax 0.11.2 does not emit for CPU/CUDA (so the corpus cannot cover them): `copy` forwards its
// operand, `logistic` is an op of its own, `after-all` makes a token that nothing computes with.
TEST(ElementwiseImport, CopyLogisticAndAfterAll) {
  std::string ir = importText(R"(HloModule jit_f
ENTRY main {
  x = f32[3] parameter(0)
  c = f32[3] copy(x)
  l = f32[3] logistic(c)
  t = token[] after-all()
  ROOT r = f32[3] add(l, c)
})");
  EXPECT_EQ(ir, R"(program jit_f(%0: f32[3]) -> (f32[3]) {
  %1 = logistic(%0) : f32[3]
  %2 = add(%1, %0) : f32[3]
  return %2
}
)");
}

}  // namespace
}  // namespace lf::frontend::testing

namespace lf::frontend::testing {
namespace {

TEST(ElementwiseImport, ReducePrecisionKeepsItsWidths) {
  std::string ir = importText(R"(HloModule jit_f
ENTRY main {
  x = f32[3] parameter(0)
  ROOT r = f32[3] reduce-precision(x), exponent_bits=5, mantissa_bits=10
})");
  EXPECT_NE(ir.find("reduce-precision(%0) exponent_bits=5 mantissa_bits=10 : f32[3]"),
            std::string::npos)
      << ir;
}

// Widths beyond f64's change nothing; they are capped, so the kernel's template arguments stay
// small.
TEST(ElementwiseImport, ReducePrecisionCapsHugeWidths) {
  std::string ir = importText(R"(HloModule jit_f
ENTRY main {
  x = f64[3] parameter(0)
  ROOT r = f64[3] reduce-precision(x), exponent_bits=4000000000, mantissa_bits=99
})");
  EXPECT_NE(ir.find("exponent_bits=64 mantissa_bits=64"), std::string::npos) << ir;
}

TEST(ElementwiseImport, ReducePrecisionBadWidthsAreErrors) {
  EXPECT_NE(importError(R"(HloModule jit_f
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] reduce-precision(x), exponent_bits=0, mantissa_bits=10
})")
                .find("test.hlo:4:54: error: reduce-precision exponent_bits must be at least 1, "
                      "got 0"),
            std::string::npos);
  EXPECT_NE(importError(R"(HloModule jit_f
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] reduce-precision(x), exponent_bits=5, mantissa_bits=-3
})")
                .find("test.hlo:4:71: error: reduce-precision mantissa_bits must not be negative, "
                      "got -3"),
            std::string::npos);
  std::string missing = importError(R"(HloModule jit_f
ENTRY main {
  x = f32[4] parameter(0)
  ROOT r = f32[4] reduce-precision(x), mantissa_bits=10
})");
  EXPECT_NE(missing.find("test.hlo:4:"), std::string::npos) << missing;
  EXPECT_NE(missing.find("exponent_bits"), std::string::npos) << missing;
  std::string integer = importError(R"(HloModule jit_f
ENTRY main {
  x = s32[4] parameter(0)
  ROOT r = s32[4] reduce-precision(x), exponent_bits=5, mantissa_bits=10
})");
  EXPECT_NE(integer.find("test.hlo:4:"), std::string::npos) << integer;
  EXPECT_NE(integer.find("reduce-precision does not accept element type s32"), std::string::npos)
      << integer;
}

}  // namespace
}  // namespace lf::frontend::testing
