// Host callbacks (jax.pure_callback / jax.debug.callback custom calls): imported inside a
// conditional branch, also within a while body; reported at the instruction everywhere else.
#include <gtest/gtest.h>

#include "test_util.h"

namespace lf::frontend::testing {
namespace {

constexpr const char* kBranches = R"(
ok {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
fail {
  p = f32[2] parameter(0)
  code = s32[] constant(7)
  ROOT cb = f32[2] custom-call(code, p), custom_call_target="xla_ffi_python_cpu_callback", api_version=API_VERSION_TYPED_FFI, backend_config={index = 0 : ui64}
}
)";

TEST(HostCallbackImport, InsideAConditionalBranch) {
  std::string hlo = std::string("HloModule m\n") + kBranches + R"(
ENTRY main {
  x = f32[2] parameter(0)
  good = pred[] parameter(1)
  ROOT c = f32[2] conditional(good, x, x), true_computation=ok, false_computation=fail
})";
  EXPECT_EQ(importText(hlo), R"(program m(%0: f32[2], %1: pred[]) -> (f32[2]) {
  %2 = conditional(%1, %0, %0) selector=pred branch_operands={1,1} : f32[2]
    on_true(%3: f32[2]) {
      %4 = negate(%3) : f32[2]
      yield %4
    }
    on_false(%5: f32[2]) {
      %6 = constant(7) : s32[]
      %7 = host-callback(%6, %5) target=xla_ffi_python_cpu_callback side_effect=false : f32[2]
      yield %7
    }
  return %2
}
)");
}

TEST(HostCallbackImport, SideEffectingCallbackInAConditionalInAWhileBody) {
  std::string ir = importText(R"(HloModule m
noop {
  p = f32[] parameter(0)
  ROOT t = () tuple()
}
report {
  p = f32[] parameter(0)
  cb = () custom-call(p), custom_call_target="xla_ffi_python_cpu_callback", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI
  ROOT t = () tuple()
}
cond {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[] get-tuple-element(st), index=1
  big = f32[] constant(100)
  gt = pred[] compare(v, big), direction=GT
  c = () conditional(gt, v, v), true_computation=report, false_computation=noop
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  v2 = f32[] add(v, v)
  ROOT t = (s32[], f32[]) tuple(i2, v2)
}
ENTRY main {
  x = f32[] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[]) tuple(z, x)
  w = (s32[], f32[]) while(init), condition=cond, body=body
  ROOT v = f32[] get-tuple-element(w), index=1
})");
  EXPECT_NE(ir.find("host-callback(%"), std::string::npos) << ir;
  EXPECT_NE(ir.find("target=xla_ffi_python_cpu_callback side_effect=true"), std::string::npos)
      << ir;
}

TEST(HostCallbackImport, ReachedOnEveryCallIsReported) {
  std::string err = importError(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  ROOT cb = f32[2] custom-call(x), custom_call_target="xla_ffi_python_cpu_callback", api_version=API_VERSION_TYPED_FFI
})");
  EXPECT_NE(err.find("test.hlo:4:8: error: host callback 'cb' (xla_ffi_python_cpu_callback) "
                     "runs on every call (it is not inside a conditional branch), and loopfuse "
                     "cannot run Python inside the kernel; run this function with jax.jit"),
            std::string::npos)
      << err;
}

TEST(HostCallbackImport, InsideAReducerOrALoopConditionIsReported) {
  std::string err = importError(R"(HloModule m
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  cb = f32[] custom-call(a, b), custom_call_target="xla_ffi_python_cpu_callback"
  ROOT s = f32[] add(cb, b)
}
ENTRY main {
  x = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=sum
})");
  EXPECT_NE(err.find("error: host callback 'cb' (xla_ffi_python_cpu_callback) inside a reduce's "
                     "computation is not supported"),
            std::string::npos)
      << err;
  err = importError(R"(HloModule m
cond {
  v = f32[] parameter(0)
  cb = f32[] custom-call(v), custom_call_target="xla_ffi_python_gpu_callback"
  z = f32[] constant(0)
  ROOT gt = pred[] compare(cb, z), direction=GT
}
body {
  v = f32[] parameter(0)
  ROOT h = f32[] negate(v)
}
ENTRY main {
  x = f32[] parameter(0)
  ROOT w = f32[] while(x), condition=cond, body=body
})");
  EXPECT_NE(err.find("error: host callback 'cb' (xla_ffi_python_gpu_callback) inside a while "
                     "loop's condition is not supported"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace lf::frontend::testing
