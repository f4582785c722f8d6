// Unrolling of small loops with a constant trip count: the trip count analysis, the copies, and the
// loops that must stay.
#include "passes/unroll.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// Three copies of the body, each reading the state the previous one yields (1 + i counts too); the
// last counter update is dead.
TEST(Unroll, UnrollsAThreeTripLoop) {
  EXPECT_EQ(afterPass(R"(HloModule unroll_three
cond {
  st = (s32[], u32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], u32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = u32[2] get-tuple-element(st), index=1
  one = s32[] constant(1)
  i2 = s32[] add(one, i)
  c = u32[] convert(i)
  cb = u32[2] broadcast(c), dimensions={}
  x2 = u32[2] add(x, cb)
  x3 = u32[2] multiply(x2, x2)
  ROOT t = (s32[], u32[2]) tuple(i2, x3)
}
ENTRY main {
  x = u32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], u32[2]) tuple(zero, x)
  w = (s32[], u32[2]) while(init), condition=cond, body=body
  ROOT out = u32[2] get-tuple-element(w), index=1
})",
                      unrollSmallLoops),
            R"(program unroll_three(%0: u32[2]) -> (u32[2]) {
  %1 = constant(0) : s32[]
  %2 = constant(1) : s32[]
  %3 = add(%2, %1) : s32[]
  %4 = convert(%1) : u32[]
  %5 = broadcast(%4) dimensions={} : u32[2]
  %6 = add(%0, %5) : u32[2]
  %7 = multiply(%6, %6) : u32[2]
  %8 = constant(1) : s32[]
  %9 = add(%8, %3) : s32[]
  %10 = convert(%3) : u32[]
  %11 = broadcast(%10) dimensions={} : u32[2]
  %12 = add(%7, %11) : u32[2]
  %13 = multiply(%12, %12) : u32[2]
  %14 = convert(%9) : u32[]
  %15 = broadcast(%14) dimensions={} : u32[2]
  %16 = add(%13, %15) : u32[2]
  %17 = multiply(%16, %16) : u32[2]
  return %17
}
)");
}

// u8 from 250 while 252 > i: 2 trips; s32 from -2 while i < -5: no trip, so the results are the
// initial state.
TEST(Unroll, CountsGreaterThanFormsUnsignedAndZeroTrips) {
  EXPECT_EQ(afterPass(R"(HloModule unroll_gt_form_and_zero_trips
cond {
  st = (u8[], f32[]) parameter(0)
  i = u8[] get-tuple-element(st), index=0
  n = u8[] constant(252)
  ROOT gt = pred[] compare(n, i), direction=GT
}
body {
  st = (u8[], f32[]) parameter(0)
  i = u8[] get-tuple-element(st), index=0
  x = f32[] get-tuple-element(st), index=1
  one = u8[] constant(1)
  i2 = u8[] add(i, one)
  x2 = f32[] sine(x)
  ROOT t = (u8[], f32[]) tuple(i2, x2)
}
cond0 {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(-5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body0 {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[] get-tuple-element(st), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[] cosine(x)
  ROOT t = (s32[], f32[]) tuple(i2, x2)
}
ENTRY main {
  x = f32[] parameter(0)
  start = u8[] constant(250)
  init = (u8[], f32[]) tuple(start, x)
  w = (u8[], f32[]) while(init), condition=cond, body=body
  wx = f32[] get-tuple-element(w), index=1
  s0 = s32[] constant(-2)
  init0 = (s32[], f32[]) tuple(s0, x)
  w0 = (s32[], f32[]) while(init0), condition=cond0, body=body0
  w0x = f32[] get-tuple-element(w0), index=1
  w0i = s32[] get-tuple-element(w0), index=0
  ROOT t = (f32[], f32[], s32[]) tuple(wx, w0x, w0i)
})",
                      unrollSmallLoops),
            R"(program unroll_gt_form_and_zero_trips(%0: f32[]) -> (f32[], f32[], s32[]) {
  %1 = sine(%0) : f32[]
  %2 = sine(%1) : f32[]
  %3 = constant(-2) : s32[]
  return %2, %0, %3
}
)");
}

// A 2-trip loop inside a 3-trip loop: six sines and three cosines in a row.
TEST(Unroll, UnrollsNestedLoopsInnerFirst) {
  EXPECT_EQ(afterPass(R"(HloModule unroll_nested
icond {
  st = (s32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(st), index=0
  two = s32[] constant(2)
  ROOT lt = pred[] compare(j, two), direction=LT
}
ibody {
  st = (s32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(st), index=0
  v = f32[] get-tuple-element(st), index=1
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  v2 = f32[] sine(v)
  ROOT t = (s32[], f32[]) tuple(j2, v2)
}
ocond {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}
obody {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[] get-tuple-element(st), index=1
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, v)
  inner = (s32[], f32[]) while(init), condition=icond, body=ibody
  v2 = f32[] get-tuple-element(inner), index=1
  v3 = f32[] cosine(v2)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[]) tuple(i2, v3)
}
ENTRY main {
  v = f32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, v)
  w = (s32[], f32[]) while(init), condition=ocond, body=obody
  ROOT out = f32[] get-tuple-element(w), index=1
})",
                      unrollSmallLoops),
            R"(program unroll_nested(%0: f32[]) -> (f32[]) {
  %1 = sine(%0) : f32[]
  %2 = sine(%1) : f32[]
  %3 = cosine(%2) : f32[]
  %4 = sine(%3) : f32[]
  %5 = sine(%4) : f32[]
  %6 = cosine(%5) : f32[]
  %7 = sine(%6) : f32[]
  %8 = sine(%7) : f32[]
  %9 = cosine(%8) : f32[]
  return %9
}
)");
}

// Loops that stay: 9 trips (over kMaxUnrolledTrips), an LE condition, a step of 2, a start that
// is not a constant. Each keeps its While, and only the first has a trip count.
TEST(Unroll, LeavesOtherLoopsAlone) {
  ir::Program p = importHlo(R"(HloModule loops_that_stay
cond9 {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(9)
  ROOT lt = pred[] compare(i, n), direction=LT
}
condle {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT le = pred[] compare(i, n), direction=LE
}
body1 {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[] get-tuple-element(st), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[] sine(x)
  ROOT t = (s32[], f32[]) tuple(i2, x2)
}
cond3 {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body2 {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[] get-tuple-element(st), index=1
  two = s32[] constant(2)
  i2 = s32[] add(i, two)
  x2 = f32[] sine(x)
  ROOT t = (s32[], f32[]) tuple(i2, x2)
}
ENTRY main {
  x = f32[] parameter(0)
  start = s32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[]) tuple(zero, x)
  nine = (s32[], f32[]) while(init), condition=cond9, body=body1
  le = (s32[], f32[]) while(init), condition=condle, body=body1
  step2 = (s32[], f32[]) while(init), condition=cond3, body=body2
  init2 = (s32[], f32[]) tuple(start, x)
  dyn = (s32[], f32[]) while(init2), condition=cond3, body=body1
  a = f32[] get-tuple-element(nine), index=1
  b = f32[] get-tuple-element(le), index=1
  c = f32[] get-tuple-element(step2), index=1
  d = f32[] get-tuple-element(dyn), index=1
  ROOT t = (f32[], f32[], f32[], f32[]) tuple(a, b, c, d)
})");
  std::vector<std::optional<int64_t>> trips;
  for (const auto& op : p.body.ops) {
    if (op->kind == ir::OpKind::While) trips.push_back(constantTripCount(*op));
  }
  EXPECT_EQ(trips,
            (std::vector<std::optional<int64_t>>{9, std::nullopt, std::nullopt, std::nullopt}));
  unrollSmallLoops(p);
  EXPECT_EQ(verifierErrors(p), "");
  int loops = 0;
  for (const auto& op : p.body.ops) loops += op->kind == ir::OpKind::While;
  EXPECT_EQ(loops, 4);
}

// A 2-trip loop whose body holds `bodyOps` ops: a counter add and a chain of negates.
ir::Program loopWithBodyOps(int bodyOps) {
  using K = ir::OpKind;
  const ir::Type s32{DType::S32, {}}, f32{DType::F32, {}};
  ir::Program p;
  ir::Value* x = p.body.addArg(f32, "x");
  ir::Value* zero =
      p.body.append(K::Constant, {}, {s32}, ir::ConstantAttrs{{0, 0, 0, 0}})->result();
  ir::Value* two = p.body.append(K::Constant, {}, {s32}, ir::ConstantAttrs{{2, 0, 0, 0}})->result();
  ir::Value* one = p.body.append(K::Constant, {}, {s32}, ir::ConstantAttrs{{1, 0, 0, 0}})->result();
  ir::Op* w = p.body.append(K::While, {zero, x}, {s32, f32});
  ir::Region* cond = w->addRegion();
  ir::Value* ci = cond->addArg(s32);
  cond->addArg(f32);
  cond->yields.push_back(
      cond->append(K::Compare, {ci, two}, {ir::Type{DType::Pred, {}}},
                   ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Signed})
          ->result());
  ir::Region* body = w->addRegion();
  ir::Value* i = body->addArg(s32);
  ir::Value* v = body->addArg(f32);
  body->yields.push_back(body->append(K::Add, {i, one}, {s32})->result());
  for (int k = 1; k < bodyOps; ++k) v = body->append(K::Negate, {v}, {f32})->result();
  body->yields.push_back(v);
  p.body.yields = {w->result(1)};
  p.outputNames = {"output_0"};
  return p;
}

TEST(Unroll, BodySizeLimit) {
  ir::Program small = loopWithBodyOps(kMaxUnrolledBodyOps);
  unrollSmallLoops(small);
  EXPECT_EQ(verifierErrors(small), "");
  EXPECT_EQ(small.body.ops.size(), 3u + 2u * kMaxUnrolledBodyOps);  // constants + two copies
  ir::Program large = loopWithBodyOps(kMaxUnrolledBodyOps + 1);
  unrollSmallLoops(large);
  EXPECT_EQ(large.body.ops.back()->kind, ir::OpKind::While);
}

}  // namespace
}  // namespace lf::passes::testing
