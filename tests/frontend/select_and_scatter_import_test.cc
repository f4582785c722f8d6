// select-and-scatter's window becomes SelectAndScatterAttrs, its select and scatter computations
// two scalar regions; a source of the wrong shape, mismatched element types, region signatures and
// the window forms XLA does not have are named errors.
#include <gtest/gtest.h>

#include <tuple>

#include "test_util.h"

namespace lf::frontend::testing {
namespace {

constexpr const char* kRegions = R"(HloModule m
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

std::string program(const std::string& operand, const std::string& source,
                    const std::string& root) {
  return std::string(kRegions) + "ENTRY main {\n  x = " + operand +
         " parameter(0)\n  s = " + source + " parameter(1)\n  z = f32[] constant(0)\n  " + root +
         "\n}\n";
}

TEST(SelectAndScatterImport, WindowAndRegions) {
  EXPECT_EQ(
      importText(program("f32[1,6,5]", "f32[1,3,2]",
                         "ROOT r = f32[1,6,5] select-and-scatter(x, s, z), window={size=1x3x3 "
                         "stride=1x2x2 pad=0_0x1_0x0_0}, select=ge, scatter=add")),
      R"(program m(%0: f32[1,6,5], %1: f32[1,3,2]) -> (f32[1,6,5]) {
  %2 = constant(0) : f32[]
  %3 = select-and-scatter(%0, %1, %2) sizes={1,3,3} strides={1,2,2} pad_low={0,1,0} pad_high={0,0,0} : f32[1,6,5]
    select(%4: f32[], %5: f32[]) {
      %6 = compare(%4, %5) direction=GE type=FLOAT : pred[]
      yield %6
    }
    scatter(%7: f32[], %8: f32[]) {
      %9 = add(%7, %8) : f32[]
      yield %9
    }
  return %3
}
)");
}

TEST(SelectAndScatterImport, BadFormsAreNamed) {
  const std::string sas = "ROOT r = f32[4,4] select-and-scatter(x, s, z), ";
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"f32[2,2]", sas + "window={size=2x2 stride=2x2}, select=ge, scatter=add", ""},
      {"f32[3,2]", sas + "window={size=2x2 stride=2x2}, select=ge, scatter=add",
       "select-and-scatter source f32[3,2] must have one element per window (f32[2,2])"},
      {"f32[2,2]", sas + "window={size=2x2 stride=2x2 lhs_dilate=2x1}, select=ge, scatter=add",
       "select-and-scatter with a dilated window is not supported"},
      {"f32[2,2]", sas + "window={size=2x2 stride=2x2 window_reversal=1x0}, select=ge, scatter=add",
       "select-and-scatter with window_reversal is not supported"},
      {"f32[2,2]", sas + "window={size=2 stride=2}, select=ge, scatter=add",
       "select-and-scatter window has the wrong rank for f32[4,4]"},
      {"f32[2,2]", sas + "window={size=2x2 stride=2x2}, select=add, scatter=add",
       "select-and-scatter region must yield (pred[])"},
      {"f32[2,2]", sas + "window={size=2x2 stride=2x2}, select=ge, scatter=ge",
       "select-and-scatter region must yield (f32[])"},
      {"s32[2,2]", sas + "window={size=2x2 stride=2x2}, select=ge, scatter=add",
       "the source and the init value must have the operand's element type"},
      {"f32[2,2]",
       "ROOT r = f32[4,4] select-and-scatter(x, s), window={size=2x2 stride=2x2}, select=ge, "
       "scatter=add",
       "3 operands"},
  };
  for (const auto& [source, root, message] : cases) {
    std::string err = importError(program("f32[4,4]", source, root));
    if (message.empty()) {
      EXPECT_EQ(err, "<no error>") << root;
      continue;
    }
    EXPECT_NE(err.find(message), std::string::npos) << root << "\n" << err;
  }
}

}  // namespace
}  // namespace lf::frontend::testing
