// The tridiagonal solve's custom calls (LAPACK's gtsv on the CPU, cuSPARSE's gtsv2 on CUDA)
// import to tridiagonal-factor and tridiagonal-solve; malformed calls are errors at the HLO
// instruction that name the call, and what loopfuse does not run (a perturbed solve too large
// for one thread's arrays) is reported as unsupported.
#include <gtest/gtest.h>

#include "frontend/test_util.h"

namespace lf::frontend::testing {
namespace {

TEST(TridiagonalImport, GtsvAndGtsv2) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  dl = f64[2,8] parameter(0)
  d = f64[2,8] parameter(1)
  du = f64[2,8] parameter(2)
  b = f64[2,8,3] parameter(3)
  g = (f64[2,8], f64[2,8], f64[2,8], f64[2,8,3], s32[2]) custom-call(dl, d, du, b), custom_call_target="lapack_dgtsv_ffi", api_version=API_VERSION_TYPED_FFI
  x = f64[2,8,3] get-tuple-element(g), index=3
  info = s32[2] get-tuple-element(g), index=4
  y = f64[2,8,3] custom-call(dl, d, du, b), custom_call_target="cusparse_gtsv2_ffi", api_version=API_VERSION_TYPED_FFI
  ROOT out = (f64[2,8,3], s32[2], f64[2,8,3]) tuple(x, info, y)
})");
  for (const char* expected :
       {"tridiagonal-factor(%0, %1, %2) : f64[2,8], f64[2,8], f64[2,8], f64[2,8], u8[2,8], "
        "s32[2]",
        "tridiagonal-solve(%4, %5, %6, %7, %8, %9, %3) : f64[2,8,3]",
        // gtsv2 reports no zero pivot: the systems gtsv finds singular give NaN, as on the CPU.
        "select(%21, %17, %23) : f64[2,8,3]"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
  // tridiagonal_solve(..., perturb_singular=True): jax's own kernel, one op.
  ir = importText(R"(HloModule m
ENTRY main {
  d = f32[3,8] parameter(0)
  b = f32[3,8,2] parameter(1)
  ROOT x = f32[3,8,2] custom-call(d, d, d, b), custom_call_target="tridiagonal_solve_perturbed_ffi", api_version=API_VERSION_TYPED_FFI
})");
  for (const char* expected : {"tridiagonal-solve-perturbed(%0, %0, %0, %1) : f32[3,8,2]"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
}

// cgtsv / zgtsv: every complex array is its real and imaginary parts.
TEST(TridiagonalImport, ComplexSystems) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  dl = c128[5] parameter(0)
  d = c128[5] parameter(1)
  du = c128[5] parameter(2)
  b = c128[5,2] parameter(3)
  g = (c128[5], c128[5], c128[5], c128[5,2], s32[]) custom-call(dl, d, du, b), custom_call_target="lapack_zgtsv_ffi", api_version=API_VERSION_TYPED_FFI
  ROOT x = c128[5,2] get-tuple-element(g), index=3
})");
  for (const char* expected :
       {"tridiagonal-factor(%5, %7, %9, %11, %13, %15) : f64[5], f64[5], f64[5], f64[5], f64[5], "
        "f64[5], f64[5], f64[5], u8[5], s32[]",
        "tridiagonal-solve(%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %17, %19) : f64[5,2], "
        "f64[5,2]"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
}

TEST(TridiagonalImport, ErrorsNameTheCall) {
  const std::string head = "HloModule m\nENTRY main {\n  ";
  for (auto [hlo, message] : std::initializer_list<std::pair<const char*, const char*>>{
           {"d = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n  ROOT x = f32[8] "
            "custom-call(d, d, d, b), custom_call_target=\"cusparse_gtsv2_ffi\"",
            "cusparse_gtsv2_ffi needs diagonals [..., n] and b [..., n, k], got f32[8] and f32[8]"},
           {"d = f32[8] parameter(0)\n  e = f32[7] parameter(1)\n  b = f32[8,1] parameter(2)\n  "
            "ROOT x = f32[8,1] custom-call(d, e, d, b), custom_call_target=\"cusparse_gtsv2_ffi\"",
            "type mismatch: tridiagonal-factor diagonals f32[8] and f32[7]"},
           {"d = f32[8] parameter(0)\n  b = f32[7,1] parameter(1)\n  ROOT x = f32[7,1] "
            "custom-call(d, d, d, b), custom_call_target=\"cusparse_gtsv2_ffi\"",
            "shape mismatch: tridiagonal-solve of diagonals f32[8] needs b [..., n, k] with their "
            "dimensions first and their dtype, got f32[7,1]"},
           {"d = s32[8] parameter(0)\n  b = s32[8,1] parameter(1)\n  ROOT x = s32[8,1] "
            "custom-call(d, d, d, b), custom_call_target=\"cusparse_gtsv2_ffi\"",
            "tridiagonal-factor of s32[8]: only f32 and f64 diagonals"},
           {"d = f32[8] parameter(0)\n  b = f32[8,2] parameter(1)\n  ROOT g = (f32[8], f32[8], "
            "f32[8], f32[8,2]) custom-call(d, d, d, b), custom_call_target=\"lapack_sgtsv_ffi\"",
            "custom-call 'lapack_sgtsv_ffi' of f32[8] diagonals gives (f32[8] x 3, f32[8,2], "
            "s32[])"},
           {"d = f32[8] parameter(0)\n  b = f32[8,2] parameter(1)\n  ROOT x = f32[8,2] "
            "custom-call(d, d, d), custom_call_target=\"cusparse_gtsv2_ffi\"",
            "custom-call takes 4 operands, got 3"},
           {"d = f32[6000] parameter(0)\n  b = f32[6000,2] parameter(1)\n  ROOT x = f32[6000,2] "
            "custom-call(d, d, d, b), custom_call_target=\"tridiagonal_solve_perturbed_ffi\"",
            "unsupported tridiagonal_solve_perturbed_ffi of f32[6000,2]: loopfuse's perturbed "
            "tridiagonal solve keeps 3 n + k <= 16384 elements per thread"},
           {"d = f32[8] parameter(0)\n  b = f32[8] parameter(1)\n  ROOT x = f32[8] "
            "custom-call(d, d, d, b), custom_call_target=\"cu_tridiagonal_solve_perturbed\"",
            "cu_tridiagonal_solve_perturbed needs diagonals [..., n] and b [..., n, k], got f32[8] "
            "and f32[8]"},
           {"d = f32[8] parameter(0)\n  b = f64[8,1] parameter(1)\n  ROOT x = f64[8,1] "
            "custom-call(d, d, d, b), custom_call_target=\"tridiagonal_solve_perturbed_ffi\"",
            "shape mismatch: tridiagonal-solve-perturbed of diagonals f32[8] needs b [..., n, k]"},
           {"d = c64[8] parameter(0)\n  b = f32[8,2] parameter(1)\n  ROOT g = (c64[8], c64[8], "
            "c64[8], f32[8,2], s32[]) custom-call(d, d, d, b), "
            "custom_call_target=\"lapack_cgtsv_ffi\"",
            "custom-call 'lapack_cgtsv_ffi' of real and complex arrays"}}) {
    std::string err = importError(head + hlo + "\n}\n");
    EXPECT_NE(err.find(message), std::string::npos) << message << "\n" << err;
    EXPECT_NE(err.find("test.hlo:"), std::string::npos) << "no file:line:col in\n" << err;
  }
}

}  // namespace
}  // namespace lf::frontend::testing
