// Elementwise ops run on the CPU, against values worked out by hand.
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

TEST(CpuElementwise, AddMultiplyF32) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {4}), "x");
  ir::Value* y = b.param(type(DType::F32, {4}), "y");
  ir::Value* sum = b.op1(K::Add, {x, y}, type(DType::F32, {4}));
  b.output(b.op1(K::Multiply, {sum, x}, type(DType::F32, {4})));
  auto out = runCpu(b.program, {array<float>(DType::F32, {4}, {1, 2, 3, -4}),
                                array<float>(DType::F32, {4}, {10, 20, 30, 40})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{11, 44, 99, -144}));
}

TEST(CpuElementwise, IntegerDivisionEdgeCases) {
  // XLA: x / 0 = -1, INT_MIN / -1 = INT_MIN, x % 0 = x, INT_MIN % -1 = 0.
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::S32, {4}), "x");
  ir::Value* y = b.param(type(DType::S32, {4}), "y");
  b.output(b.op1(K::Divide, {x, y}, type(DType::S32, {4})));
  b.output(b.op1(K::Remainder, {x, y}, type(DType::S32, {4})));
  const int32_t kMin = std::numeric_limits<int32_t>::min();
  auto out = runCpu(b.program, {array<int32_t>(DType::S32, {4}, {7, kMin, -7, 5}),
                                array<int32_t>(DType::S32, {4}, {0, -1, 2, 0})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{-1, kMin, -3, -1}));
  EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{7, 0, -1, 5}));
}

TEST(CpuElementwise, ShiftsPastWidthAndWrappingAdd) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::U32, {3}), "x");
  ir::Value* s = b.param(type(DType::U32, {3}), "s");
  b.output(b.op1(K::ShiftRightLogical, {x, s}, type(DType::U32, {3})));
  b.output(b.op1(K::ShiftLeft, {x, s}, type(DType::U32, {3})));
  b.output(b.op1(K::Add, {x, x}, type(DType::U32, {3})));
  auto out = runCpu(b.program, {array<uint32_t>(DType::U32, {3}, {0x80000001u, 0xffu, 5}),
                                array<uint32_t>(DType::U32, {3}, {31, 32, 1})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(values<uint32_t>(out[0]), (std::vector<uint32_t>{1, 0, 2}));
  EXPECT_EQ(values<uint32_t>(out[1]), (std::vector<uint32_t>{0x80000000u, 0, 10}));
  EXPECT_EQ(values<uint32_t>(out[2]), (std::vector<uint32_t>{2, 0x1fe, 10}));
}

TEST(CpuElementwise, CompareSelectClampWithScalarBounds) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {4}), "x");
  ir::Value* zero = b.constant<float>(type(DType::F32, {4}), {0, 0, 0, 0});
  ir::Value* lo = b.constant<float>(type(DType::F32), {-1.5f});
  ir::Value* hi = b.constant<float>(type(DType::F32), {2.5f});
  ir::Value* neg = b.op1(K::Compare, {x, zero}, type(DType::Pred, {4}),
                         ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Float});
  ir::Value* negx = b.op1(K::Negate, {x}, type(DType::F32, {4}));
  b.output(b.op1(K::Select, {neg, negx, x}, type(DType::F32, {4})));
  b.output(b.op1(K::Clamp, {lo, x, hi}, type(DType::F32, {4})));
  b.output(neg);
  auto out = runCpu(b.program, {array<float>(DType::F32, {4}, {-3, -1, 2, 7})});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{3, 1, 2, 7}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{-1.5f, -1, 2, 2.5f}));
  EXPECT_EQ(values<uint8_t>(out[2]), (std::vector<uint8_t>{1, 1, 0, 0}));
}

TEST(CpuElementwise, ConvertSaturatesAndBitcastKeepsBits) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {4}), "x");
  b.output(b.op1(K::Convert, {x}, type(DType::S32, {4})));
  b.output(b.op1(K::BitcastConvert, {x}, type(DType::U32, {4})));
  float nan = std::numeric_limits<float>::quiet_NaN();
  auto out = runCpu(b.program, {array<float>(DType::F32, {4}, {-2.7f, 3e10f, nan, -0.0f})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<int32_t>(out[0]),
            (std::vector<int32_t>{-2, std::numeric_limits<int32_t>::max(), 0, 0}));
  EXPECT_EQ(values<uint32_t>(out[1])[3], 0x80000000u);
  EXPECT_EQ(values<uint32_t>(out[1])[0], 0xc02ccccdu);  // -2.7f
}

TEST(CpuElementwise, ConstantsKeepNegativeZeroAndNaNPayload) {
  ProgramBuilder b;
  ir::Value* c = b.constant<uint32_t>(type(DType::F32, {2}), {0x80000000u, 0x7fc00123u});
  b.output(b.op1(K::BitcastConvert, {c}, type(DType::U32, {2})));
  auto out = runCpu(b.program, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<uint32_t>(out[0]), (std::vector<uint32_t>{0x80000000u, 0x7fc00123u}));
}

TEST(CpuElementwise, BitcastToNarrowerTypeAddsMinorDim) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::U32, {2}), "x");
  b.output(b.op1(K::BitcastConvert, {x}, type(DType::U16, {2, 2})));
  auto out = runCpu(b.program, {array<uint32_t>(DType::U32, {2}, {0x11112222u, 0x33334444u})});
  ASSERT_EQ(out.size(), 1u);
  // Little-endian: the low half comes first.
  EXPECT_EQ(values<uint16_t>(out[0]), (std::vector<uint16_t>{0x2222, 0x1111, 0x4444, 0x3333}));
}

TEST(CpuElementwise, ThreefryKnownAnswer) {
  // Random123's known answer for threefry2x32 with 20 rounds: key (0,0), counter (0,0).
  ProgramBuilder b;
  ir::Value* k0 = b.param(type(DType::U32, {1}), "k0");
  ir::Value* k1 = b.param(type(DType::U32, {1}), "k1");
  ir::Value* x0 = b.param(type(DType::U32, {1}), "x0");
  ir::Value* x1 = b.param(type(DType::U32, {1}), "x1");
  ir::Op* t =
      b.op(K::Threefry2x32, {k0, k1, x0, x1}, {type(DType::U32, {1}), type(DType::U32, {1})});
  b.output(t->result(0));
  b.output(t->result(1));
  auto zero = array<uint32_t>(DType::U32, {1}, {0});
  auto out = runCpu(b.program, {zero, zero, zero, zero});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<uint32_t>(out[0])[0], 0x6b200159u);
  EXPECT_EQ(values<uint32_t>(out[1])[0], 0x99ba4efeu);
}

}  // namespace
}  // namespace lf::testing
