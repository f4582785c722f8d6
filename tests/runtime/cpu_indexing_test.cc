// Dynamic slices, gather and scatter run on the CPU, against values worked out by hand.
#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

TEST(CpuIndexing, DynamicSliceClampsSignedAndUnsignedStarts) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {5}), "x");
  ir::Value* s = b.param(type(DType::S32), "s");
  ir::Value* u = b.param(type(DType::U32), "u");
  b.output(b.op1(K::DynamicSlice, {x, s}, type(DType::F32, {3}), ir::DynamicSliceAttrs{{3}}));
  b.output(b.op1(K::DynamicSlice, {x, u}, type(DType::F32, {3}), ir::DynamicSliceAttrs{{3}}));
  std::vector<float> x5 = {0, 1, 2, 3, 4};
  auto out =
      runCpu(b.program, {array<float>(DType::F32, {5}, x5), array<int32_t>(DType::S32, {}, {-1}),
                         array<uint32_t>(DType::U32, {}, {0xffffffffu})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 1, 2}));  // -1 -> 0
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{2, 3, 4}));  // huge -> 5 - 3
}

TEST(CpuIndexing, DynamicUpdateSliceClampsStart) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {2, 3}), "x");
  ir::Value* upd = b.param(type(DType::F32, {1, 2}), "upd");
  ir::Value* i = b.param(type(DType::S64), "i");
  ir::Value* j = b.param(type(DType::S64), "j");
  b.output(b.op1(K::DynamicUpdateSlice, {x, upd, i, j}, type(DType::F32, {2, 3})));
  auto out =
      runCpu(b.program, {array<float>(DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5}),
                         array<float>(DType::F32, {1, 2}, {8, 9}),
                         array<int64_t>(DType::S64, {}, {1}), array<int64_t>(DType::S64, {}, {7})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 1, 2, 3, 8, 9}));  // j 7 -> 1
}

TEST(CpuIndexing, GatherRowsClampsOutOfRange) {
  // x[idx] for x f32[3,2], idx s32[3,1] = {2, 0, 5}: rows 2, 0, and 2 (5 clamped).
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {3, 2}), "x");
  ir::Value* idx = b.param(type(DType::S32, {3, 1}), "idx");
  ir::GatherAttrs a;
  a.offsetDims = {1};
  a.collapsedSliceDims = {0};
  a.startIndexMap = {0};
  a.sliceSizes = {1, 2};
  a.indexVectorDim = 1;
  b.output(b.op1(K::Gather, {x, idx}, type(DType::F32, {3, 2}), a));
  auto out = runCpu(b.program, {array<float>(DType::F32, {3, 2}, {0, 1, 2, 3, 4, 5}),
                                array<int32_t>(DType::S32, {3, 1}, {2, 0, 5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{4, 5, 0, 1, 4, 5}));
}

TEST(CpuIndexing, GatherWithBatchingDims) {
  // out[i] = x[i, idx[i]]: batching dim 0 of x pairs with dim 0 of the indices.
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {2, 3}), "x");
  ir::Value* idx = b.param(type(DType::S32, {2, 1}), "idx");
  ir::GatherAttrs a;
  a.collapsedSliceDims = {1};
  a.operandBatchingDims = {0};
  a.startIndicesBatchingDims = {0};
  a.startIndexMap = {1};
  a.sliceSizes = {1, 1};
  a.indexVectorDim = 1;
  b.output(b.op1(K::Gather, {x, idx}, type(DType::F32, {2}), a));
  auto out = runCpu(b.program, {array<float>(DType::F32, {2, 3}, {0, 1, 2, 3, 4, 5}),
                                array<int32_t>(DType::S32, {2, 1}, {2, 0})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{2, 3}));
}

TEST(CpuIndexing, ScatterAddAccumulatesDuplicatesAndDropsOutOfBounds) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {5}), "x");
  ir::Value* idx = b.param(type(DType::S32, {3, 1}), "idx");
  ir::Value* upd = b.param(type(DType::F32, {3}), "upd");
  ir::ScatterAttrs a;
  a.insertedWindowDims = {0};
  a.scatterDimsToOperandDims = {0};
  a.indexVectorDim = 1;
  ir::Op* s = b.op(K::Scatter, {x, idx, upd}, {type(DType::F32, {5})}, a);
  b.binaryRegion(s, K::Add, DType::F32);
  b.output(s->result());
  auto out = runCpu(b.program, {array<float>(DType::F32, {5}, {10, 10, 10, 10, 10}),
                                array<int32_t>(DType::S32, {3, 1}, {1, 1, 7}),
                                array<float>(DType::F32, {3}, {1, 2, 3})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{10, 13, 10, 10, 10}));
}

TEST(CpuIndexing, ScatterSetsAWindowInOrder) {
  // x.at[idx].set(rows): later updates of one row win; the window is a whole row.
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {3, 2}), "x");
  ir::Value* idx = b.param(type(DType::S32, {2, 1}), "idx");
  ir::Value* upd = b.param(type(DType::F32, {2, 2}), "upd");
  ir::ScatterAttrs a;
  a.updateWindowDims = {1};
  a.insertedWindowDims = {0};
  a.scatterDimsToOperandDims = {0};
  a.indexVectorDim = 1;
  ir::Op* s = b.op(K::Scatter, {x, idx, upd}, {type(DType::F32, {3, 2})}, a);
  ir::Region* r = s->addRegion();
  r->addArg(type(DType::F32), "current");
  r->yields.push_back(r->addArg(type(DType::F32), "update"));
  b.output(s->result());
  auto out = runCpu(b.program, {array<float>(DType::F32, {3, 2}, {0, 0, 0, 0, 0, 0}),
                                array<int32_t>(DType::S32, {2, 1}, {1, 1}),
                                array<float>(DType::F32, {2, 2}, {5, 6, 7, 8})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{0, 0, 7, 8, 0, 0}));
}

}  // namespace
}  // namespace lf::testing
