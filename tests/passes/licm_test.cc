// Loop-invariant code motion: hoisting (through nested loops), pass-through state, and what stays.
#include "passes/licm.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// The weights and the flag pass through the body unchanged: they become the operands, leave the
// loop state, and the work on them (a reduce included) moves before the loop; the conditional and
// the work on changing state stay.
TEST(Licm, HoistsInvariantWorkAndDropsPassThroughState) {
  EXPECT_EQ(afterPass(R"(HloModule licm_hoist
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
yes {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
no {
  p = f32[2] parameter(0)
  ROOT n = f32[2] abs(p)
}
cond {
  st = (s32[], f32[2], f32[2], pred[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[2], f32[2], pred[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  acc = f32[2] get-tuple-element(st), index=1
  w = f32[2] get-tuple-element(st), index=2
  flag = pred[] get-tuple-element(st), index=3
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  sp = f32[2] exponential(w)
  sp2 = f32[2] log-plus-one(sp)
  z = f32[] constant(0)
  total = f32[] reduce(sp2, z), dimensions={0}, to_apply=sum
  tb = f32[2] broadcast(total), dimensions={}
  branch = f32[2] conditional(flag, sp2, sp2), true_computation=yes, false_computation=no
  a1 = f32[2] multiply(acc, sp2)
  a2 = f32[2] add(a1, tb)
  a3 = f32[2] add(a2, branch)
  ROOT t = (s32[], f32[2], f32[2], pred[]) tuple(i2, a3, w, flag)
}
ENTRY main {
  x = f32[2] parameter(0)
  w = f32[2] parameter(1)
  flag = pred[] parameter(2)
  zi = s32[] constant(0)
  init = (s32[], f32[2], f32[2], pred[]) tuple(zi, x, w, flag)
  wl = (s32[], f32[2], f32[2], pred[]) while(init), condition=cond, body=body
  acc = f32[2] get-tuple-element(wl), index=1
  wout = f32[2] get-tuple-element(wl), index=2
  ROOT t = (f32[2], f32[2]) tuple(acc, wout)
})",
                      hoistLoopInvariants),
            R"(program licm_hoist(%0: f32[2], %1: f32[2], %2: pred[]) -> (f32[2], f32[2]) {
  %3 = constant(0) : s32[]
  %4 = constant(10) : s32[]
  %5 = constant(1) : s32[]
  %6 = exponential(%1) : f32[2]
  %7 = log-plus-one(%6) : f32[2]
  %8 = constant(0) : f32[]
  %9 = reduce(%7, %8) dimensions={0} : f32[]
    reducer(%10: f32[], %11: f32[]) {
      %12 = add(%10, %11) : f32[]
      yield %12
    }
  %13 = broadcast(%9) dimensions={} : f32[2]
  %14, %15 = while(%3, %0) : s32[], f32[2]
    cond(%16: s32[], %17: f32[2]) {
      %18 = compare(%16, %4) direction=LT type=SIGNED : pred[]
      yield %18
    }
    body(%19: s32[], %20: f32[2]) {
      %21 = add(%19, %5) : s32[]
      %22 = conditional(%2, %7, %7) selector=pred branch_operands={1,1} : f32[2]
        on_true(%23: f32[2]) {
          %24 = negate(%23) : f32[2]
          yield %24
        }
        on_false(%25: f32[2]) {
          %26 = abs(%25) : f32[2]
          yield %26
        }
      %27 = multiply(%20, %7) : f32[2]
      %28 = add(%27, %13) : f32[2]
      %29 = add(%28, %22) : f32[2]
      yield %21, %29
    }
  return %15, %1
}
)");
}

// exp(s) of the inner body leaves the inner loop, then the outer one; the outer condition's convert
// leaves too.
TEST(Licm, HoistsThroughNestedLoops) {
  EXPECT_EQ(afterPass(R"(HloModule licm_nested
icond {
  st = (s32[], f32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(st), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(j, three), direction=LT
}
ibody {
  st = (s32[], f32[], f32[]) parameter(0)
  j = s32[] get-tuple-element(st), index=0
  v = f32[] get-tuple-element(st), index=1
  s = f32[] get-tuple-element(st), index=2
  one = s32[] constant(1)
  j2 = s32[] add(j, one)
  e = f32[] exponential(s)
  v2 = f32[] multiply(v, e)
  ROOT t = (s32[], f32[], f32[]) tuple(j2, v2, s)
}
ocond {
  st = (s32[], f32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  s = f32[] get-tuple-element(st), index=2
  lim = s32[] convert(s)
  ROOT lt = pred[] compare(i, lim), direction=LT
}
obody {
  st = (s32[], f32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[] get-tuple-element(st), index=1
  s = f32[] get-tuple-element(st), index=2
  zero = s32[] constant(0)
  init = (s32[], f32[], f32[]) tuple(zero, v, s)
  inner = (s32[], f32[], f32[]) while(init), condition=icond, body=ibody
  v2 = f32[] get-tuple-element(inner), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[], f32[]) tuple(i2, v2, s)
}
ENTRY main {
  v = f32[] parameter(0)
  s = f32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[], f32[]) tuple(zero, v, s)
  w = (s32[], f32[], f32[]) while(init), condition=ocond, body=obody
  ROOT out = f32[] get-tuple-element(w), index=1
})",
                      hoistLoopInvariants),
            R"(program licm_nested(%0: f32[], %1: f32[]) -> (f32[]) {
  %2 = constant(0) : s32[]
  %3 = convert(%1) : s32[]
  %4 = constant(0) : s32[]
  %5 = constant(3) : s32[]
  %6 = constant(1) : s32[]
  %7 = exponential(%1) : f32[]
  %8 = constant(1) : s32[]
  %9, %10 = while(%2, %0) : s32[], f32[]
    cond(%11: s32[], %12: f32[]) {
      %13 = compare(%11, %3) direction=LT type=SIGNED : pred[]
      yield %13
    }
    body(%14: s32[], %15: f32[]) {
      %16, %17 = while(%4, %15) : s32[], f32[]
        cond(%18: s32[], %19: f32[]) {
          %20 = compare(%18, %5) direction=LT type=SIGNED : pred[]
          yield %20
        }
        body(%21: s32[], %22: f32[]) {
          %23 = add(%21, %6) : s32[]
          %24 = multiply(%22, %7) : f32[]
          yield %23, %24
        }
      %25 = add(%14, %8) : s32[]
      yield %25, %17
    }
  return %10
}
)");
}

// State that rotates (x <- y, y <- exp(x)) is not invariant, even with equal initial values.
TEST(Licm, KeepsStateThatChanges) {
  EXPECT_EQ(afterPass(R"(HloModule licm_keeps_variant_work
cond {
  st = (s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[2], f32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[2] get-tuple-element(st), index=1
  y = f32[2] get-tuple-element(st), index=2
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  x2 = f32[2] exponential(x)
  ROOT t = (s32[], f32[2], f32[2]) tuple(i2, y, x2)
}
ENTRY main {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2], f32[2]) tuple(zero, x, x)
  w = (s32[], f32[2], f32[2]) while(init), condition=cond, body=body
  ROOT out = f32[2] get-tuple-element(w), index=1
})",
                      hoistLoopInvariants),
            R"(program licm_keeps_variant_work(%0: f32[2]) -> (f32[2]) {
  %1 = constant(0) : s32[]
  %2 = constant(4) : s32[]
  %3 = constant(1) : s32[]
  %4, %5, %6 = while(%1, %0, %0) : s32[], f32[2], f32[2]
    cond(%7: s32[], %8: f32[2], %9: f32[2]) {
      %10 = compare(%7, %2) direction=LT type=SIGNED : pred[]
      yield %10
    }
    body(%11: s32[], %12: f32[2], %13: f32[2]) {
      %14 = add(%11, %3) : s32[]
      %15 = exponential(%12) : f32[2]
      yield %14, %13, %15
    }
  return %5
}
)");
}
// Passes may make a body yield an enclosing value; when that is the initial value, the state is
// invariant too. Built by hand: the frontend only makes closed regions.
TEST(Licm, StateYieldingItsInitialValueIsInvariant) {
  using K = ir::OpKind;
  const ir::Type s32{DType::S32, {}}, f32{DType::F32, {2}};
  ir::Program p;
  p.name = "m";
  ir::Value* x = p.body.addArg(f32, "x");
  ir::Value* n = p.body.addArg(s32, "n");
  ir::Value* zero =
      p.body.append(K::Constant, {}, {s32}, ir::ConstantAttrs{{0, 0, 0, 0}}, {}, "zero")->result();
  ir::Op* w = p.body.append(K::While, {zero, x}, {s32, f32}, {}, {}, "w");
  ir::Region* cond = w->addRegion();
  ir::Value* ci = cond->addArg(s32, "i");
  cond->addArg(f32, "v");
  cond->yields.push_back(
      cond->append(K::Compare, {ci, n}, {ir::Type{DType::Pred, {}}},
                   ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Signed})
          ->result());
  ir::Region* body = w->addRegion();
  ir::Value* bi = body->addArg(s32, "i");
  ir::Value* bv = body->addArg(f32, "v");
  ir::Value* one = body->append(K::Constant, {}, {s32}, ir::ConstantAttrs{{1, 0, 0, 0}})->result();
  body->yields.push_back(body->append(K::Add, {bi, one}, {s32})->result());
  body->yields.push_back(x);
  body->append(K::Exp, {bv}, {f32});
  p.body.yields = {w->result(0), w->result(1)};
  p.outputNames = {"output_0", "output_1"};
  hoistLoopInvariants(p);
  EXPECT_EQ(verifierErrors(p), "");
  EXPECT_EQ(ir::print(p), R"(program m(%0: f32[2], %1: s32[]) -> (s32[], f32[2]) {
  %2 = constant(0) : s32[]
  %3 = constant(1) : s32[]
  %4 = exponential(%0) : f32[2]
  %5 = while(%2) : s32[]
    cond(%6: s32[]) {
      %7 = compare(%6, %1) direction=LT type=SIGNED : pred[]
      yield %7
    }
    body(%8: s32[]) {
      %9 = add(%8, %3) : s32[]
      yield %9
    }
  return %5, %0
}
)");
}

}  // namespace
}  // namespace lf::passes::testing
