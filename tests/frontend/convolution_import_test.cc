// convolution's dimension labels and window become ConvolutionAttrs; malformed labels, a window of
// the wrong rank, and the forms loopfuse does not run are named errors.
#include <gtest/gtest.h>

#include "test_util.h"

namespace lf::frontend::testing {
namespace {

TEST(ConvolutionImport, LabelsAndWindowBecomeAttributes) {
  EXPECT_EQ(importText(R"(HloModule m
ENTRY main {
  x = f32[2,3,9,9] parameter(0)
  w = f32[6,1,3,3] parameter(1)
  ROOT c = f32[2,6,3,4] convolution(x, w), window={size=3x3 stride=2x2 pad=1_0x-1_1 rhs_dilate=2x1}, dim_labels=bf01_oi01->bf01, feature_group_count=3
})"),
            R"(program m(%0: f32[2,3,9,9], %1: f32[6,1,3,3]) -> (f32[2,6,3,4]) {
  %2 = convolution(%0, %1) lhs=b0,f1,s{2,3} rhs=i1,o0,s{2,3} out=b0,f1,s{2,3} size={3,3} stride={2,2} pad_low={1,-1} pad_high={0,1} lhs_dilation={1,1} rhs_dilation={2,1} groups=3 : f32[2,6,3,4]
  return %2
}
)");
}

TEST(ConvolutionImport, BadFormsAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ROOT c = f32[1,4,4,1] convolution(x, w), window={size=1x1}, dim_labels=b01f_01io-b01f",
       "dim_labels=b01f_01io-b01f is not of the form lhs_rhs->out"},
      {"ROOT c = f32[1,4,4,1] convolution(x, w), window={size=1x1}, dim_labels=b00f_01io->b01f",
       "dim_labels part 'b00f' must name 'b', 'f' and the spatial dimensions"},
      {"ROOT c = f32[1,4,4,1] convolution(x, w), window={size=1}, dim_labels=b01f_01io->b01f",
       "convolution window has 1 dimensions, dim_labels 2 spatial ones"},
      {"ROOT c = f32[1,4,4,1] convolution(x, w), window={size=1x1}, dim_labels=b01f_01io->b01f, "
       "batch_group_count=2",
       "batch_group_count > 1"},
      {"ROOT c = f32[1,4,4,1] convolution(x, w), window={size=1x1 window_reversal=1x0}, "
       "dim_labels=b01f_01io->b01f",
       "convolution with window_reversal is not supported"},
      {"ROOT c = f32[1,5,4,1] convolution(x, w), window={size=1x1}, dim_labels=b01f_01io->b01f",
       "type mismatch: convolution of f32[1,4,4,1] and f32[1,1,1,1] gives f32[1,4,4,1], not "
       "f32[1,5,4,1]"},
  };
  for (const auto& [root, message] : cases) {
    std::string err = importError(
        "HloModule m\nENTRY main {\n  x = f32[1,4,4,1] parameter(0)\n  w = f32[1,1,1,1] "
        "parameter(1)\n  " +
        root + "\n}\n");
    EXPECT_NE(err, "") << root;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace lf::frontend::testing
