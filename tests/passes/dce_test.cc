// Dead code elimination: unused ops go, in nested regions too; used ones and their producers stay.
#include "passes/dce.h"

#include <gtest/gtest.h>

namespace lf::passes {
namespace {

using K = ir::OpKind;

ir::Type f32(std::vector<int64_t> dims = {}) { return ir::Type{DType::F32, std::move(dims)}; }

TEST(Dce, RemovesUnusedOpsAndKeepsTheOutputsChain) {
  ir::Program p;
  ir::Value* x = p.body.addArg(f32({2}), "x");
  ir::Value* neg = p.body.append(K::Negate, {x}, {f32({2})}, {}, {}, "neg")->result();
  ir::Value* dead = p.body.append(K::Exp, {neg}, {f32({2})}, {}, {}, "dead")->result();
  p.body.append(K::Abs, {dead}, {f32({2})}, {}, {}, "dead2");
  ir::Value* out = p.body.append(K::Add, {neg, x}, {f32({2})}, {}, {}, "out")->result();
  p.body.yields.push_back(out);
  eliminateDeadCode(p);
  ASSERT_EQ(p.body.ops.size(), 2u);
  EXPECT_EQ(p.body.ops[0]->name, "neg");
  EXPECT_EQ(p.body.ops[1]->name, "out");
}

TEST(Dce, CleansNestedRegionsAndKeepsOuterValuesTheyUse) {
  ir::Program p;
  ir::Value* x = p.body.addArg(f32(), "x");
  ir::Value* outer = p.body.append(K::Negate, {x}, {f32()}, {}, {}, "outer")->result();
  p.body.append(K::Sqrt, {x}, {f32()}, {}, {}, "unused_outer");
  ir::Op* w = p.body.append(K::While, {x}, {f32()}, {}, {}, "while");
  ir::Region* cond = w->addRegion();
  ir::Value* c = cond->addArg(f32(), "c");
  cond->yields.push_back(
      cond->append(K::Compare, {c, c}, {ir::Type{DType::Pred, {}}},
                   ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Float}, {}, "lt")
          ->result());
  ir::Region* body = w->addRegion();
  ir::Value* s = body->addArg(f32(), "s");
  body->append(K::Exp, {s}, {f32()}, {}, {}, "unused_inner");
  body->yields.push_back(body->append(K::Add, {s, outer}, {f32()}, {}, {}, "next")->result());
  p.body.yields.push_back(w->result());
  eliminateDeadCode(p);
  ASSERT_EQ(p.body.ops.size(), 2u);
  EXPECT_EQ(p.body.ops[0]->name, "outer");
  EXPECT_EQ(p.body.ops[1]->name, "while");
  ASSERT_EQ(body->ops.size(), 1u);
  EXPECT_EQ(body->ops[0]->name, "next");
  EXPECT_EQ(cond->ops.size(), 1u);
}

}  // namespace
}  // namespace lf::passes
