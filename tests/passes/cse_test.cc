// Common subexpression elimination: what merges, and what must stay apart.
#include "passes/cse.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// Equal ops merge, and so do their users then; operand order, direction, dtype and the sign of zero
// keep ops apart.
TEST(Cse, MergesEqualOpsAndConstants) {
  EXPECT_EQ(
      afterPass(R"(HloModule cse_basic
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2] parameter(1)
  a = f32[2] add(x, y)
  b = f32[2] add(x, y)
  swapped = f32[2] add(y, x)
  c1 = f32[] constant(1)
  c2 = f32[] constant(1)
  c3 = f32[] constant(-0)
  c4 = f32[] constant(0)
  i1 = s32[] constant(1)
  n1 = f32[2] negate(a)
  n2 = f32[2] negate(b)
  e1 = f32[2] exponential(x)
  l1 = f32[2] log(x)
  lt = pred[2] compare(x, y), direction=LT
  gt = pred[2] compare(x, y), direction=GT
  lt2 = pred[2] compare(x, y), direction=LT
  ROOT t = (f32[2], f32[2], f32[2], f32[], f32[], f32[], f32[], s32[], f32[2], f32[2], pred[2], pred[2], pred[2]) tuple(n1, n2, swapped, c1, c2, c3, c4, i1, e1, l1, lt, gt, lt2)
})",
                eliminateCommonSubexpressions),
      R"(program cse_basic(%0: f32[2], %1: f32[2]) -> (f32[2], f32[2], f32[2], f32[], f32[], f32[], f32[], s32[], f32[2], f32[2], pred[2], pred[2], pred[2]) {
  %2 = add(%0, %1) : f32[2]
  %3 = add(%1, %0) : f32[2]
  %4 = constant(1) : f32[]
  %5 = constant(-0) : f32[]
  %6 = constant(0) : f32[]
  %7 = constant(1) : s32[]
  %8 = negate(%2) : f32[2]
  %9 = exponential(%0) : f32[2]
  %10 = log(%0) : f32[2]
  %11 = compare(%0, %1) direction=LT type=FLOAT : pred[2]
  %12 = compare(%0, %1) direction=GT type=FLOAT : pred[2]
  return %8, %8, %3, %4, %4, %5, %6, %7, %9, %10, %11, %12, %11
}
)");
}

// Equal reducers merge; a loop body reuses an enclosing constant, but sibling regions (cond and
// body) and reducers keep their own.
TEST(Cse, MergesAcrossRegionsOnlyDownward) {
  EXPECT_EQ(afterPass(R"(HloModule cse_regions
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
sum2 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
relu_sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  zero = f32[] constant(0)
  ROOT m = f32[] maximum(s, zero)
}
cond {
  st = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[2] get-tuple-element(st), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ten = s32[] constant(10)
  i3 = s32[] minimum(i2, ten)
  x2 = f32[2] exponential(x)
  ROOT t = (s32[], f32[2]) tuple(i3, x2)
}
ENTRY main {
  x = f32[2] parameter(0)
  z = f32[] constant(0)
  r1 = f32[] reduce(x, z), dimensions={0}, to_apply=sum
  r2 = f32[] reduce(x, z), dimensions={0}, to_apply=sum2
  r3 = f32[] reduce(x, z), dimensions={0}, to_apply=relu_sum
  one = s32[] constant(1)
  zi = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zi, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  wx = f32[2] get-tuple-element(w), index=1
  ROOT t = (f32[], f32[], f32[], f32[2], s32[]) tuple(r1, r2, r3, wx, one)
})",
                      eliminateCommonSubexpressions),
            R"(program cse_regions(%0: f32[2]) -> (f32[], f32[], f32[], f32[2], s32[]) {
  %1 = constant(0) : f32[]
  %2 = reduce(%0, %1) dimensions={0} : f32[]
    reducer(%3: f32[], %4: f32[]) {
      %5 = add(%3, %4) : f32[]
      yield %5
    }
  %6 = reduce(%0, %1) dimensions={0} : f32[]
    reducer(%7: f32[], %8: f32[]) {
      %9 = add(%7, %8) : f32[]
      %10 = constant(0) : f32[]
      %11 = maximum(%9, %10) : f32[]
      yield %11
    }
  %12 = constant(1) : s32[]
  %13 = constant(0) : s32[]
  %14, %15 = while(%13, %0) : s32[], f32[2]
    cond(%16: s32[], %17: f32[2]) {
      %18 = constant(10) : s32[]
      %19 = compare(%16, %18) direction=LT type=SIGNED : pred[]
      yield %19
    }
    body(%20: s32[], %21: f32[2]) {
      %22 = add(%20, %12) : s32[]
      %23 = constant(10) : s32[]
      %24 = minimum(%22, %23) : s32[]
      %25 = exponential(%21) : f32[2]
      yield %24, %25
    }
  return %2, %2, %6, %15, %12
}
)");
}
}  // namespace
}  // namespace lf::passes::testing
