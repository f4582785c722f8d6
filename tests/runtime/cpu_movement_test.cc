// Data movement ops run on the CPU, against values worked out by hand.
#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

std::vector<float> iotaF(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

TEST(CpuMovement, BroadcastAlongEitherDim) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {3}), "x");
  b.output(b.op1(K::Broadcast, {x}, type(DType::F32, {2, 3}), ir::BroadcastAttrs{{1}}));
  b.output(b.op1(K::Broadcast, {x}, type(DType::F32, {3, 2}), ir::BroadcastAttrs{{0}}));
  auto out = runCpu(b.program, {array<float>(DType::F32, {3}, {1, 2, 3})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{1, 1, 2, 2, 3, 3}));
}

TEST(CpuMovement, ReshapeThenTranspose) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {6}), "x");
  ir::Value* r = b.op1(K::Reshape, {x}, type(DType::F32, {2, 3}));
  b.output(b.op1(K::Transpose, {r}, type(DType::F32, {3, 2}), ir::TransposeAttrs{{1, 0}}));
  b.output(r);
  auto out = runCpu(b.program, {array<float>(DType::F32, {6}, iotaF(6))});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(values<float>(out[1]), iotaF(6));
}

TEST(CpuMovement, StridedSliceAndReverse) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {2, 4}), "x");
  b.output(b.op1(K::Slice, {x}, type(DType::F32, {2, 2}), ir::SliceAttrs{{0, 1}, {2, 4}, {1, 2}}));
  b.output(b.op1(K::Reverse, {x}, type(DType::F32, {2, 4}), ir::ReverseAttrs{{1}}));
  auto out = runCpu(b.program, {array<float>(DType::F32, {2, 4}, iotaF(8))});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{1, 3, 5, 7}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{3, 2, 1, 0, 7, 6, 5, 4}));
}

TEST(CpuMovement, PadInteriorAndNegativeEdges) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {3}), "x");
  ir::Value* zero = b.constant<float>(type(DType::F32), {0});
  // interior 1: {1,0,2,0,3}; low 1: {0,1,0,2,0,3}; high -1 drops the last.
  b.output(b.op1(K::Pad, {x, zero}, type(DType::F32, {5}), ir::PadAttrs{{1}, {-1}, {1}}));
  b.output(b.op1(K::Pad, {x, zero}, type(DType::F32, {2}), ir::PadAttrs{{-1}, {0}, {0}}));
  auto out = runCpu(b.program, {array<float>(DType::F32, {3}, {1, 2, 3})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 1, 0, 2, 0}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{2, 3}));
}

TEST(CpuMovement, ConcatenateAlongMinorDim) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::S32, {2, 1}), "x");
  ir::Value* y = b.param(type(DType::S32, {2, 2}), "y");
  b.output(b.op1(K::Concatenate, {x, y}, type(DType::S32, {2, 3}), ir::ConcatenateAttrs{1}));
  auto out = runCpu(b.program, {array<int32_t>(DType::S32, {2, 1}, {1, 2}),
                                array<int32_t>(DType::S32, {2, 2}, {3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, 3, 4, 2, 5, 6}));
}

TEST(CpuMovement, IotaIntegerAndFloat) {
  ProgramBuilder b;
  b.output(b.op1(K::Iota, {}, type(DType::S32, {2, 3}), ir::IotaAttrs{1}));
  b.output(b.op1(K::Iota, {}, type(DType::F32, {2, 3}), ir::IotaAttrs{0}));
  auto out = runCpu(b.program, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace lf::testing
