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

}  // namespace
}  // namespace lf::frontend::testing
