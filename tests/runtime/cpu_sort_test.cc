// Sort runs on the CPU: per row, stable, several operands permuted together.
#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

// Comparator over N operands that compares operand 0 only: a_0 < b_0.
void lessOnFirst(ProgramBuilder& b, ir::Op* sort, DType keyType, const std::vector<DType>& all) {
  ir::Region* r = sort->addRegion();
  std::vector<ir::Value*> args;
  for (DType t : all) {
    args.push_back(r->addArg(type(t), "a"));
    args.push_back(r->addArg(type(t), "b"));
  }
  ir::CompareType ct = isFloat(keyType) ? ir::CompareType::TotalOrder : ir::CompareType::Signed;
  r->yields.push_back(b.op1(K::Compare, {args[0], args[1]}, type(DType::Pred),
                            ir::CompareAttrs{ir::CompareDirection::LT, ct}, r));
}

TEST(CpuSort, SortsEachRowAlongTheMinorDim) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {2, 4}), "x");
  ir::Op* s = b.op(K::Sort, {x}, {type(DType::F32, {2, 4})}, ir::SortAttrs{1, true});
  lessOnFirst(b, s, DType::F32, {DType::F32});
  b.output(s->result());
  auto out = runCpu(b.program, {array<float>(DType::F32, {2, 4}, {3, 1, 2, 0, -1, 5, 4, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 1, 2, 3, -1, 4, 4, 5}));
}

TEST(CpuSort, SortsAlongTheMajorDim) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::S32, {3, 2}), "x");
  ir::Op* s = b.op(K::Sort, {x}, {type(DType::S32, {3, 2})}, ir::SortAttrs{0, true});
  lessOnFirst(b, s, DType::S32, {DType::S32});
  b.output(s->result());
  auto out = runCpu(b.program, {array<int32_t>(DType::S32, {3, 2}, {3, 0, 1, 5, 2, -1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{1, -1, 2, 0, 3, 5}));
}

TEST(CpuSort, StableWithValuesCarriedAlong) {
  ProgramBuilder b;
  ir::Value* keys = b.param(type(DType::S32, {7}), "keys");
  ir::Value* vals = b.op1(K::Iota, {}, type(DType::S32, {7}), ir::IotaAttrs{0});
  ir::Op* s = b.op(K::Sort, {keys, vals}, {type(DType::S32, {7}), type(DType::S32, {7})},
                   ir::SortAttrs{0, true});
  lessOnFirst(b, s, DType::S32, {DType::S32, DType::S32});
  b.output(s->result(0));
  b.output(s->result(1));
  auto out = runCpu(b.program, {array<int32_t>(DType::S32, {7}, {2, 1, 2, 1, 0, 2, 1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{0, 1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{4, 1, 3, 6, 0, 2, 5}));
}

}  // namespace
}  // namespace lf::testing
