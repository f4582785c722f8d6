// The planner: where each value lives, loop-state temporaries, and the explain text.
#include "plan/plan.h"

#include <gtest/gtest.h>

namespace lf::plan {
namespace {

using K = ir::OpKind;

ir::Type f32(std::vector<int64_t> dims = {}) { return ir::Type{DType::F32, std::move(dims)}; }

TEST(Plan, InputsScratchAndReshapeAliases) {
  ir::Program p;
  p.name = "m";
  ir::Value* x = p.body.addArg(f32({2, 3}), "x");
  ir::Value* neg = p.body.append(K::Negate, {x}, {f32({2, 3})}, {}, {}, "neg")->result();
  ir::Value* flat = p.body.append(K::Reshape, {neg}, {f32({6})}, {}, {}, "flat")->result();
  ir::Value* back = p.body.append(K::Reshape, {flat}, {f32({3, 2})}, {}, {}, "back")->result();
  ir::Value* e = p.body.append(K::Exp, {back}, {f32({3, 2})}, {}, {}, "e")->result();
  p.body.yields = {e};
  Kernel k = plan(p, Target::Cpu);
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

TEST(Plan, WhileStateAliasesAndSwapTemporaries) {
  ir::Program p;
  p.name = "loop";
  ir::Value* a = p.body.addArg(f32({4}), "a");
  ir::Value* b = p.body.addArg(f32({4}), "b");
  ir::Op* w = p.body.append(K::While, {a, b, a}, {f32({4}), f32({4}), f32({4})}, {}, {}, "w");
  ir::Region* cond = w->addRegion();
  for (int i = 0; i < 3; ++i) cond->addArg(f32({4}));
  ir::Value* c = cond->append(K::Constant, {}, {ir::Type{DType::Pred, {}}}, ir::ConstantAttrs{{0}},
                              {}, "false")
                     ->result();
  cond->yields = {c};
  ir::Region* body = w->addRegion();
  std::vector<ir::Value*> s;
  for (int i = 0; i < 3; ++i) s.push_back(body->addArg(f32({4})));
  body->yields = {s[1], s[0], s[2]};  // swap the first two, pass the third through
  p.body.yields = {w->result(0)};
  Kernel k = plan(p, Target::Cpu);
  EXPECT_EQ(k.storage.at(s[0]).kind, StorageKind::Alias);
  EXPECT_EQ(k.storage.at(s[0]).root, w->result(0));
  EXPECT_EQ(k.storage.at(cond->args[2].get()).root, w->result(2));
  const OpPlan& wp = k.opPlan(w);
  ASSERT_EQ(wp.temps.size(), 3u);
  EXPECT_GE(wp.temps[0], 0);
  EXPECT_GE(wp.temps[1], 0);
  EXPECT_EQ(wp.temps[2], -1);
  std::string text = k.explain();
  EXPECT_NE(text.find("barriers per iteration: 2"), std::string::npos) << text;
  EXPECT_NE(text.find("alias of"), std::string::npos) << text;
}

}  // namespace
}  // namespace lf::plan
