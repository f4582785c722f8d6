// While and Conditional run on the CPU, against values worked out by hand.
#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

ir::Value* less(ProgramBuilder& b, ir::Value* x, ir::Value* y, ir::Region* r) {
  return b.op1(K::Compare, {x, y}, type(DType::Pred),
               ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Signed}, r);
}

std::vector<ir::Value*> addArgs(ir::Region* r, const ir::Op* like) {
  std::vector<ir::Value*> args;
  for (const auto& v : like->operands) args.push_back(r->addArg(v->type, "state"));
  return args;
}

TEST(CpuControl, WhileWithDynamicTripCount) {
  // i = 0, acc = 1; while (i < n) { i += 1; acc *= 2 }  ->  i = n, acc = 2^n.
  ProgramBuilder b;
  ir::Value* n = b.param(type(DType::S32), "n");
  ir::Value* zero = b.constant<int32_t>(type(DType::S32), {0});
  ir::Value* one = b.constant<float>(type(DType::F32, {2}), {1, -1});
  ir::Op* w =
      b.op(K::While, {zero, one, n}, {type(DType::S32), type(DType::F32, {2}), type(DType::S32)});
  ir::Region* cond = w->addRegion();
  auto c = addArgs(cond, w);
  cond->yields.push_back(less(b, c[0], c[2], cond));
  ir::Region* body = w->addRegion();
  auto s = addArgs(body, w);
  ir::Value* step = b.constant<int32_t>(type(DType::S32), {1}, body);
  ir::Value* two = b.constant<float>(type(DType::F32, {2}), {2, 2}, body);
  body->yields = {b.op1(K::Add, {s[0], step}, type(DType::S32), ir::NoAttrs{}, body),
                  b.op1(K::Multiply, {s[1], two}, type(DType::F32, {2}), ir::NoAttrs{}, body),
                  s[2]};
  b.output(w->result(0));
  b.output(w->result(1));
  auto out = runCpu(b.program, {array<int32_t>(DType::S32, {}, {5})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{5}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{32, -32}));
}

TEST(CpuControl, WhileBodySwappingItsState) {
  // (a, b, i) -> (b, a, i + 1), three times: a and b end swapped.
  ProgramBuilder b;
  ir::Value* a0 = b.param(type(DType::F32, {2}), "a");
  ir::Value* b0 = b.param(type(DType::F32, {2}), "b");
  ir::Value* zero = b.constant<int32_t>(type(DType::S32), {0});
  ir::Op* w = b.op(K::While, {a0, b0, zero},
                   {type(DType::F32, {2}), type(DType::F32, {2}), type(DType::S32)});
  ir::Region* cond = w->addRegion();
  auto c = addArgs(cond, w);
  ir::Value* three = b.constant<int32_t>(type(DType::S32), {3}, cond);
  cond->yields.push_back(less(b, c[2], three, cond));
  ir::Region* body = w->addRegion();
  auto s = addArgs(body, w);
  ir::Value* step = b.constant<int32_t>(type(DType::S32), {1}, body);
  body->yields = {s[1], s[0], b.op1(K::Add, {s[2], step}, type(DType::S32), ir::NoAttrs{}, body)};
  b.output(w->result(0));
  b.output(w->result(1));
  auto out = runCpu(b.program,
                    {array<float>(DType::F32, {2}, {1, 2}), array<float>(DType::F32, {2}, {3, 4})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{3, 4}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{1, 2}));
}

TEST(CpuControl, NestedWhile) {
  // total = 0; for i in 0..n: for j in 0..i: total += 1  ->  n(n-1)/2.
  ProgramBuilder b;
  ir::Value* n = b.param(type(DType::S32), "n");
  ir::Value* zero = b.constant<int32_t>(type(DType::S32), {0});
  ir::Op* outer =
      b.op(K::While, {zero, zero, n}, {type(DType::S32), type(DType::S32), type(DType::S32)});
  ir::Region* ocond = outer->addRegion();
  auto oc = addArgs(ocond, outer);
  ocond->yields.push_back(less(b, oc[0], oc[2], ocond));
  ir::Region* obody = outer->addRegion();
  auto os = addArgs(obody, outer);
  ir::Value* one = b.constant<int32_t>(type(DType::S32), {1}, obody);
  ir::Value* j0 = b.constant<int32_t>(type(DType::S32), {0}, obody);
  ir::Op* inner =
      b.op(K::While, {j0, os[1], os[0]}, {type(DType::S32), type(DType::S32), type(DType::S32)},
           ir::NoAttrs{}, obody);
  ir::Region* icond = inner->addRegion();
  auto ic = addArgs(icond, inner);
  icond->yields.push_back(less(b, ic[0], ic[2], icond));
  ir::Region* ibody = inner->addRegion();
  auto is = addArgs(ibody, inner);
  ir::Value* inc = b.constant<int32_t>(type(DType::S32), {1}, ibody);
  ibody->yields = {b.op1(K::Add, {is[0], inc}, type(DType::S32), ir::NoAttrs{}, ibody),
                   b.op1(K::Add, {is[1], inc}, type(DType::S32), ir::NoAttrs{}, ibody), is[2]};
  obody->yields = {b.op1(K::Add, {os[0], one}, type(DType::S32), ir::NoAttrs{}, obody),
                   inner->result(1), os[2]};
  b.output(outer->result(1));
  auto out = runCpu(b.program, {array<int32_t>(DType::S32, {}, {5})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{10}));
}

TEST(CpuControl, ConditionalOnPredicate) {
  // pred ? x + 1 : x * 2 (branch 0 is the true branch).
  auto build = [](ProgramBuilder& b) {
    ir::Value* p = b.param(type(DType::Pred), "p");
    ir::Value* x = b.param(type(DType::F32, {2}), "x");
    ir::Op* c = b.op(K::Conditional, {p, x, x}, {type(DType::F32, {2})},
                     ir::ConditionalAttrs{{1, 1}, true});
    ir::Region* t = c->addRegion();
    ir::Value* tx = t->addArg(type(DType::F32, {2}), "x");
    ir::Value* one = b.constant<float>(type(DType::F32, {2}), {1, 1}, t);
    t->yields.push_back(b.op1(K::Add, {tx, one}, type(DType::F32, {2}), ir::NoAttrs{}, t));
    ir::Region* f = c->addRegion();
    ir::Value* fx = f->addArg(type(DType::F32, {2}), "x");
    f->yields.push_back(b.op1(K::Multiply, {fx, fx}, type(DType::F32, {2}), ir::NoAttrs{}, f));
    b.output(c->result());
  };
  ProgramBuilder b;
  build(b);
  auto x = array<float>(DType::F32, {2}, {3, -2});
  auto onTrue = runCpu(b.program, {array<uint8_t>(DType::Pred, {}, {1}), x});
  auto onFalse = runCpu(b.program, {array<uint8_t>(DType::Pred, {}, {0}), x});
  ASSERT_EQ(onTrue.size(), 1u);
  ASSERT_EQ(onFalse.size(), 1u);
  EXPECT_EQ(values<float>(onTrue[0]), (std::vector<float>{4, -1}));
  EXPECT_EQ(values<float>(onFalse[0]), (std::vector<float>{9, 4}));
}

TEST(CpuControl, ConditionalOnIndexRunsLastBranchWhenOutOfRange) {
  ProgramBuilder b;
  ir::Value* i = b.param(type(DType::S32), "i");
  ir::Value* x = b.param(type(DType::S32), "x");
  ir::Op* c = b.op(K::Conditional, {i, x, x, x}, {type(DType::S32)},
                   ir::ConditionalAttrs{{1, 1, 1}, false});
  K kinds[] = {K::Negate, K::Abs, K::Not};
  for (K k : kinds) {
    ir::Region* r = c->addRegion();
    ir::Value* a = r->addArg(type(DType::S32), "x");
    r->yields.push_back(b.op1(k, {a}, type(DType::S32), ir::NoAttrs{}, r));
  }
  b.output(c->result());
  auto minusSix = array<int32_t>(DType::S32, {}, {-6});
  auto run = [&](int32_t index) {
    auto out = runCpu(b.program, {array<int32_t>(DType::S32, {}, {index}), minusSix});
    return out.empty() ? -999 : values<int32_t>(out[0])[0];
  };
  EXPECT_EQ(run(0), 6);
  EXPECT_EQ(run(1), 6);
  EXPECT_EQ(run(2), 5);   // ~(-6)
  EXPECT_EQ(run(7), 5);   // out of range: last branch
  EXPECT_EQ(run(-1), 5);  // negative: last branch
}

}  // namespace
}  // namespace lf::testing
