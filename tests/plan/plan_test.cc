// The planner: where each value lives, loop-state temporaries, and the explain text.
#include "plan/plan.h"

#include <gtest/gtest.h>

namespace lf::plan {
namespace {

using K = ir::OpKind;

ir::Type f32(std::vector<int64_t> dims = {}) { return ir::Type{DType::F32, std::move(dims)}; }

// The v1 plan (no fusion, no locals): every value in the scratch arena.
const PlanOptions kMaterialiseAll{false, 0};

TEST(Plan, InputsScratchAndReshapeAliases) {
  ir::Program p;
  p.name = "m";
  ir::Value* x = p.body.addArg(f32({2, 3}), "x");
  ir::Value* neg = p.body.append(K::Negate, {x}, {f32({2, 3})}, {}, {}, "neg")->result();
  ir::Value* flat = p.body.append(K::Reshape, {neg}, {f32({6})}, {}, {}, "flat")->result();
  ir::Value* back = p.body.append(K::Reshape, {flat}, {f32({3, 2})}, {}, {}, "back")->result();
  ir::Value* e = p.body.append(K::Exp, {back}, {f32({3, 2})}, {}, {}, "e")->result();
  p.body.yields = {e};
  Kernel k = plan(p, Target::Cpu, kMaterialiseAll);
  EXPECT_EQ(k.storage.at(x).kind, StorageKind::Input);
  EXPECT_EQ(k.storage.at(neg).kind, StorageKind::Scratch);
  // Chains resolve to the buffer that holds the data.
  EXPECT_EQ(k.storage.at(back).kind, StorageKind::Alias);
  EXPECT_EQ(k.storage.at(back).root, neg);
  EXPECT_EQ(k.storage.at(e).kind, StorageKind::Scratch);
  EXPECT_EQ(k.storage.at(neg).offset, 0);
  EXPECT_EQ(k.storage.at(e).offset, 64);  // 24 bytes rounded up to the 64-byte alignment
  EXPECT_EQ(k.scratchBytes, 128);
  EXPECT_EQ(k.stageCount, 2);
  EXPECT_EQ(k.opPlan(p.body.ops[1].get()).stage, -1);
}

// A While over three f32[64] states: the first two swap (a permutation), the third becomes
// its negation. Built by the tests below with or without fusion.
struct SwapLoop {
  ir::Program p;
  ir::Op* w = nullptr;
  ir::Region* cond = nullptr;
  std::vector<ir::Value*> s;
  ir::Value* neg = nullptr;

  explicit SwapLoop(int64_t n) {
    p.name = "loop";
    ir::Value* a = p.body.addArg(f32({n}), "a");
    ir::Value* b = p.body.addArg(f32({n}), "b");
    w = p.body.append(K::While, {a, b, a}, {f32({n}), f32({n}), f32({n})}, {}, {}, "w");
    cond = w->addRegion();
    for (int i = 0; i < 3; ++i) cond->addArg(f32({n}));
    ir::Value* c = cond->append(K::Constant, {}, {ir::Type{DType::Pred, {}}},
                                ir::ConstantAttrs{{0}}, {}, "false")
                       ->result();
    cond->yields = {c};
    ir::Region* body = w->addRegion();
    for (int i = 0; i < 3; ++i) s.push_back(body->addArg(f32({n})));
    ir::Value* e = body->append(K::Exp, {s[2]}, {f32({n})}, {}, {}, "e")->result();
    neg = body->append(K::Negate, {e}, {f32({n})}, {}, {}, "neg")->result();
    ir::Value* m = body->append(K::Multiply, {e, neg}, {f32({n})}, {}, {}, "m")->result();
    body->yields = {s[1], s[0], m};
    p.body.yields = {w->result(0), w->result(2)};
  }
};

TEST(Plan, WhileStateAliasesTheResultBuffers) {
  SwapLoop loop(64);
  Kernel k = plan(loop.p, Target::Cpu, kMaterialiseAll);
  EXPECT_EQ(k.storage.at(loop.s[0]).kind, StorageKind::Alias);
  EXPECT_EQ(k.storage.at(loop.s[0]).root, loop.w->result(0));
  EXPECT_EQ(k.storage.at(loop.cond->args[2].get()).root, loop.w->result(2));
  const OpPlan& wp = k.opPlan(loop.w);
  ASSERT_EQ(wp.updates.size(), 3u);
  // Without fusion every new state is an existing buffer: copied into the idle one.
  EXPECT_EQ(wp.updates[0], StateUpdate::Copied);
  EXPECT_EQ(wp.updates[1], StateUpdate::Copied);
  EXPECT_EQ(wp.updates[2], StateUpdate::Copied);
  EXPECT_EQ(k.perIterationCopies().size(), 3u);
  std::string text = k.explain();
  EXPECT_NE(text.find("alias of"), std::string::npos) << text;
}

TEST(Plan, LargeStateIsWrittenIntoTheIdleBuffer) {
  SwapLoop loop(64);
  Kernel k = plan(loop.p, Target::Cpu);
  const OpPlan& wp = k.opPlan(loop.w);
  // exp is read twice: materialised; neg is read once: fused into m; m, the new state, is computed
  // straight into the idle buffer of state 2 when the iteration ends.
  const ir::Value* e = loop.neg->def->operands[0];
  EXPECT_EQ(k.storage.at(e).kind, StorageKind::Scratch);
  EXPECT_EQ(k.storage.at(loop.neg).kind, StorageKind::Fused);
  EXPECT_EQ(wp.updates[2], StateUpdate::Evaluated);
  EXPECT_GE(k.storage.at(loop.w->result(2)).nextOffset, 0);
  std::string text = k.explain();
  EXPECT_NE(text.find("fused: neg"), std::string::npos) << text;
}

TEST(Plan, MaterialisedNewStateIsProducedInTheIdleBuffer) {
  SwapLoop loop(64);
  // The new state is exp, which two other ops read: the op writes the idle buffer itself.
  ir::Value* e = loop.neg->def->operands[0];
  loop.w->regions[1]->yields[2] = e;
  Kernel k = plan(loop.p, Target::Cpu);
  EXPECT_EQ(k.storage.at(e).kind, StorageKind::NextState);
  EXPECT_EQ(k.storage.at(e).root, loop.w->result(2));
  EXPECT_EQ(k.opPlan(loop.w).updates[2], StateUpdate::Produced);
  std::string text = k.explain();
  EXPECT_NE(text.find("written into the idle buffer by its producer"), std::string::npos) << text;
}

TEST(Plan, SmallValuesLiveInRegisters) {
  SwapLoop loop(4);
  Kernel k = plan(loop.p, Target::Cpu);
  const OpPlan& wp = k.opPlan(loop.w);
  for (StateUpdate u : wp.updates) EXPECT_EQ(u, StateUpdate::Register);
  EXPECT_EQ(k.storage.at(loop.w->result(0)).kind, StorageKind::Local);
  EXPECT_EQ(k.scratchBytes, 0);
  EXPECT_TRUE(k.perIterationCopies().empty());
  EXPECT_NE(k.explain().find("barriers per iteration: 0"), std::string::npos) << k.explain();
}

// lax.scan's stacked output: ys = dynamic-update-slice(ys, y, i, 0) yielded as the same state.
TEST(Plan, ScanOutputIsUpdatedInPlace) {
  ir::Program p;
  p.name = "scan";
  ir::Type s32{DType::S32, {}};
  ir::Value* ys0 = p.body.addArg(f32({100, 8}), "ys");
  ir::Value* i0 = p.body.addArg(s32, "i");
  ir::Op* w = p.body.append(K::While, {ys0, i0}, {f32({100, 8}), s32}, {}, {}, "w");
  ir::Region* cond = w->addRegion();
  cond->addArg(f32({100, 8}));
  ir::Value* ci = cond->addArg(s32);
  ir::Value* lt = cond->append(K::Compare, {ci, ci}, {ir::Type{DType::Pred, {}}},
                               ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Signed})
                      ->result();
  cond->yields = {lt};
  ir::Region* body = w->addRegion();
  ir::Value* ys = body->addArg(f32({100, 8}));
  ir::Value* i = body->addArg(s32);
  ir::Value* row = body->append(K::Iota, {}, {f32({1, 8})}, ir::IotaAttrs{1}, {}, "row")->result();
  ir::Value* zero = body->append(K::Constant, {}, {s32}, ir::ConstantAttrs{{0, 0, 0, 0}})->result();
  ir::Op* dus =
      body->append(K::DynamicUpdateSlice, {ys, row, i, zero}, {f32({100, 8})}, {}, {}, "dus");
  body->yields = {dus->result(), i};
  p.body.yields = {w->result(0)};
  Kernel k = plan(p, Target::Cpu);
  EXPECT_TRUE(k.opPlan(dus).inPlace);
  EXPECT_EQ(k.opPlan(w).updates[0], StateUpdate::InPlace);
  EXPECT_TRUE(k.perIterationCopies().empty());
  // Without the plan's in-place update the same loop copies the stack every iteration.
  Kernel v1 = plan(p, Target::Cpu, kMaterialiseAll);
  EXPECT_FALSE(v1.opPlan(dus).inPlace);
  EXPECT_FALSE(v1.perIterationCopies().empty());
}

}  // namespace
}  // namespace lf::plan

namespace lf::plan {
namespace {

// One elementwise op over f32[n] that the output reads: a stage writing n elements.
ir::Program elementwise(int64_t n) {
  ir::Program p;
  p.name = "ew";
  ir::Value* x = p.body.addArg(ir::Type{DType::F32, {n}}, "x");
  ir::Value* e = p.body.append(ir::OpKind::Exp, {x}, {x->type}, {}, {}, "e")->result();
  ir::Value* m = p.body.append(ir::OpKind::Multiply, {e, e}, {x->type}, {}, {}, "m")->result();
  p.body.yields = {m};
  return p;
}

// eigh's workspace: a local array of the thread up to 64 rows on the CPU; above, and on a GPU,
// one workspace per matrix in scratch (elements of the real type, then int32s).
TEST(Plan, EighWorkspaceIsScratchAbove64RowsAndOnTheGpu) {
  auto eigh = [](int64_t n, int64_t batch, Target target) {
    ir::Program p;
    p.name = "eigh";
    ir::Value* a = p.body.addArg(f32({batch, n, n}), "a");
    ir::Op* op = p.body.append(K::Eigh, {a},
                               {f32({batch, n, n}), f32({batch, n}), ir::Type{DType::S32, {batch}}},
                               {}, {}, "eigh");
    p.body.yields = {op->result(0), op->result(1), op->result(2)};
    Kernel k = plan(p, target, PlanOptions{});
    const std::vector<int64_t> temps = k.opPlan(op).temps;
    return std::make_pair(temps, k.scratchBytes);
  };
  EXPECT_TRUE(eigh(64, 3, Target::Cpu).first.empty());
  const auto [temps, bytes] = eigh(65, 3, Target::Cpu);
  ASSERT_EQ(temps.size(), 2u);
  EXPECT_GE(temps[1] - temps[0], 3 * eighWorkElements(65, false) * 4);
  EXPECT_GE(bytes, temps[1] + 3 * eighIntWorkElements(65) * 4);
  EXPECT_EQ(eigh(8, 2, Target::Cuda).first.size(), 2u);
  EXPECT_EQ(eighWorkElements(30, false), 30 * 30 + 60 + 2 * 30 * 30 + 120 + 1);
  EXPECT_EQ(eighWorkElements(30, true), 2 * 30 * 30 + 90 + 2 * 30 * 30 + 120 + 1);
  EXPECT_EQ(eighWorkElements(25, false), 625 + 50 + 51);
}

TEST(CudaMode, ChosenFromTheLargestStage) {
  ir::Program small = elementwise(8);
  Kernel k = plan(small, Target::Cuda);
  EXPECT_EQ(k.cuda.mode, CudaMode::Thread) << k.cuda.reason;
  EXPECT_EQ(k.cuda.blockThreads, 1u);

  ir::Program medium = elementwise(1000);
  k = plan(medium, Target::Cuda);
  EXPECT_EQ(k.cuda.mode, CudaMode::Block) << k.cuda.reason;
  EXPECT_EQ(k.cuda.largestStage, 1000);
  EXPECT_EQ(k.cuda.blockThreads, 256u);
  EXPECT_NE(k.explain().find("cuda mode: block"), std::string::npos) << k.explain();

  ir::Program fewWarps = elementwise(70);
  EXPECT_EQ(plan(fewWarps, Target::Cuda).cuda.blockThreads, 96u);  // 3 warps

  ir::Program large = elementwise(int64_t{1} << 20);
  k = plan(large, Target::Cuda);
  EXPECT_EQ(k.cuda.mode, CudaMode::Grid) << k.cuda.reason;

  PlanOptions forced;
  forced.forceCudaMode = true;
  forced.cudaMode = CudaMode::Block;
  k = plan(small, Target::Cuda, forced);
  EXPECT_EQ(k.cuda.mode, CudaMode::Block);
  EXPECT_NE(k.cuda.reason.find("LOOPFUSE_CUDA_MODE"), std::string::npos);
}

}  // namespace
}  // namespace lf::plan
