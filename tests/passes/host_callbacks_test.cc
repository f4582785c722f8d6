// Host callbacks become the host-callback status: zeros for their results, a status result on each
// enclosing conditional, status state on each enclosing while (whose condition then requires 0),
// a guard on every loop that runs after one may have been reached, and the status as the last
// output.
#include "passes/host_callbacks.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// A Newton-style loop whose body checks its iterate with a pure_callback in the branch taken on
// failure (equinox's error_if), then a second loop that runs after it.
constexpr const char* kCheckedLoops = R"(HloModule checked
ok {
  p = f32[2] parameter(0)
  ROOT same = f32[2] copy(p)
}
fail {
  p = f32[2] parameter(0)
  ROOT cb = f32[2] custom-call(p), custom_call_target="xla_ffi_python_cpu_callback"
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
  x2 = f32[2] multiply(x, x)
  z = f32[] constant(0)
  zs = f32[2] broadcast(z), dimensions={}
  pos = pred[2] compare(x2, zs), direction=GE
  t = pred[] constant(true)
  all = pred[] reduce(pos, t), dimensions={0}, to_apply=and
  checked = f32[2] conditional(all, x2, x2), true_computation=ok, false_computation=fail
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT st2 = (s32[], f32[2]) tuple(i2, checked)
}
and {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT c = pred[] and(a, b)
}
cond2 {
  v = f32[2] parameter(0)
  s = f32[1] slice(v), slice={[0:1]}
  r = f32[] reshape(s)
  lim = f32[] constant(100)
  ROOT lt = pred[] compare(r, lim), direction=LT
}
body2 {
  v = f32[2] parameter(0)
  ROOT d = f32[2] add(v, v)
}
ENTRY main {
  x = f32[2] parameter(0)
  zi = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zi, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  x1 = f32[2] get-tuple-element(w), index=1
  ROOT w2 = f32[2] while(x1), condition=cond2, body=body2
})";

TEST(HostCallbacks, LoopStateConditionalResultAndGuardedLaterLoop) {
  EXPECT_EQ(afterPass(kCheckedLoops, lowerHostCallbacks),
            R"(program checked(%0: f32[2]) -> (f32[2], s32[]) {
  %1 = constant(0) : s32[]
  %2 = constant(0) : s32[]
  %3, %4, %5 = while(%1, %0, %2) : s32[], f32[2], s32[]
    cond(%6: s32[], %7: f32[2], %8: s32[]) {
      %9 = constant(10) : s32[]
      %10 = compare(%6, %9) direction=LT type=SIGNED : pred[]
      %11 = constant(0) : s32[]
      %12 = compare(%8, %11) direction=EQ type=SIGNED : pred[]
      %13 = and(%10, %12) : pred[]
      yield %13
    }
    body(%14: s32[], %15: f32[2], %16: s32[]) {
      %17 = multiply(%15, %15) : f32[2]
      %18 = constant(0) : f32[]
      %19 = broadcast(%18) dimensions={} : f32[2]
      %20 = compare(%17, %19) direction=GE type=FLOAT : pred[2]
      %21 = constant(true) : pred[]
      %22 = reduce(%20, %21) dimensions={0} : pred[]
        reducer(%23: pred[], %24: pred[]) {
          %25 = and(%23, %24) : pred[]
          yield %25
        }
      %26, %27 = conditional(%22, %17, %17) selector=pred branch_operands={1,1} : f32[2], s32[]
        on_true(%28: f32[2]) {
          %29 = constant(0) : s32[]
          yield %28, %29
        }
        on_false(%30: f32[2]) {
          %31 = constant(0) : f32[]
          %32 = broadcast(%31) dimensions={} : f32[2]
          %33 = constant(1) : s32[]
          yield %32, %33
        }
      %34 = constant(1) : s32[]
      %35 = add(%14, %34) : s32[]
      yield %35, %26, %27
    }
  %36 = while(%4) : f32[2]
    cond(%37: f32[2]) {
      %38 = slice(%37) slice={[0:1:1]} : f32[1]
      %39 = reshape(%38) : f32[]
      %40 = constant(100) : f32[]
      %41 = compare(%39, %40) direction=LT type=FLOAT : pred[]
      %42 = constant(0) : s32[]
      %43 = compare(%5, %42) direction=EQ type=SIGNED : pred[]
      %44 = and(%41, %43) : pred[]
      yield %44
    }
    body(%45: f32[2]) {
      %46 = add(%45, %45) : f32[2]
      yield %46
    }
  return %36, %5
}
)");
}

TEST(HostCallbacks, SitesAreRecordedInProgramOrder) {
  ir::Program program = importHlo(kCheckedLoops);
  lowerHostCallbacks(program);
  ASSERT_EQ(program.hostCallbacks.size(), 1u);
  EXPECT_EQ(program.hostCallbacks[0].name, "cb");
  EXPECT_EQ(program.hostCallbacks[0].target, "xla_ffi_python_cpu_callback");
  EXPECT_EQ(program.hostCallbacks[0].loc.line, 8);
  EXPECT_FALSE(program.hostCallbacks[0].hasSideEffect);
  EXPECT_EQ(program.outputNames.back(), "host_callback_status");
  // Running the pass again changes nothing.
  const std::string once = ir::print(program);
  lowerHostCallbacks(program);
  EXPECT_EQ(ir::print(program), once);
}

TEST(HostCallbacks, ProgramWithoutCallbacksIsUnchanged) {
  const char* hlo = R"(HloModule plain
ENTRY main {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
})";
  ir::Program program = importHlo(hlo);
  const std::string before = ir::print(program);
  lowerHostCallbacks(program);
  EXPECT_EQ(ir::print(program), before);
  EXPECT_TRUE(program.hostCallbacks.empty());
}

}  // namespace
}  // namespace lf::passes::testing
