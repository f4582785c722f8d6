// Which CPU kernels start with kCpuWideVectorsDefine (the host compiler then prefers 512-bit
// vectors): those whose element loops all run whole 512-bit vectors, some of them four or more.
#include <gtest/gtest.h>

#include <string>

#include "codegen/emit.h"
#include "frontend/import.h"
#include "hlo/ast.h"

namespace lf::codegen {
namespace {

std::string tanhModule(const std::string& type) {
  return "HloModule m\nENTRY main {\n  x = " + type + " parameter(0)\n  ROOT t = " + type +
         " tanh(x)\n}\n";
}

bool wide(const std::string& text, Target target = Target::Cpu) {
  ir::Program program = frontend::importModule(hlo::parseModule(SourceFile("wide.hlo", text)));
  return emit(program, target).source.rfind(kCpuWideVectorsDefine, 0) == 0;
}

TEST(WideVectors, RowsOfWholeVectorsPreferThem) {
  EXPECT_TRUE(wide(tanhModule("f32[16,64]")));  // rows of 256 bytes: four 512-bit vectors
  EXPECT_TRUE(wide(tanhModule("f64[3,32]")));
}

TEST(WideVectors, ALoopThatLeavesATailKeepsTheDefault) {
  // 12 f64 (96 bytes): one 512-bit vector and a tail, where 256-bit vectors fit exactly (the seed
  // program's loops, 1.2x slower with 512).
  EXPECT_FALSE(wide(tanhModule("f64[12]")));
  EXPECT_FALSE(wide(R"(HloModule m
ENTRY main {
  x = f32[16,64] parameter(0)
  y = f64[12] parameter(1)
  a = f32[16,64] tanh(x)
  b = f64[12] tanh(y)
  ROOT t = (f32[16,64], f64[12]) tuple(a, b)
}
)"));
}

TEST(WideVectors, ShortLoopsAndCudaKeepTheDefault) {
  EXPECT_FALSE(wide(tanhModule("f32[8]")));     // one vector: nothing to gain
  EXPECT_FALSE(wide(tanhModule("f32[2,16]")));  // rows of one vector
  EXPECT_FALSE(wide(tanhModule("f32[16,64]"), Target::Cuda));
}

}  // namespace
}  // namespace lf::codegen
