// Complex LU, Cholesky and triangular solves (LAPACK's c/z getrf, potrf and trsm, cuSOLVER's
// getrf and potrf, HLO's cholesky and triangular-solve) import to the lu, cholesky and
// triangular-solve ops on (real, imaginary) parts, trans 'C' and ADJOINT as conjugate_a; a complex
// custom call loopfuse does not take is an error that names the target.
#include <gtest/gtest.h>

#include "frontend/test_util.h"

namespace lf::frontend::testing {
namespace {

TEST(ComplexLinalgImport, LuCholeskyAndTriangularSolveTakeParts) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = c64[4,4] parameter(0)
  b = c64[4,2] parameter(1)
  lu = (c64[4,4]{0,1}, s32[4]{0}, s32[]) custom-call(a), custom_call_target="lapack_cgetrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  f = c64[4,4] get-tuple-element(lu), index=0
  p = s32[4] get-tuple-element(lu), index=1
  ch = (c64[4,4]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_cpotrf_ffi", backend_config={uplo = 85 : ui8}
  u = c64[4,4] get-tuple-element(ch), index=0
  x = c64[4,2]{0,1} custom-call(u, b), custom_call_target="lapack_ctrsm_ffi", backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 67 : ui8, uplo = 85 : ui8}
  y = c64[4,2] triangular-solve(f, b), left_side=true, lower=true, transpose_a=ADJOINT
  z = c64[4,4] cholesky(a), lower=true
  s = c64[4,2] custom-call(y), custom_call_target="Sharding"
  ROOT out = (s32[4], c64[4,2], c64[4,2], c64[4,4]) tuple(p, x, s, z)
})");
  for (const char* expected :
       {"lu(%3, %5) : f32[4,4], f32[4,4], s32[4], s32[]",
        "cholesky(%3, %5) lower=false : f32[4,4], f32[4,4], s32[]",
        "triangular-solve(%14, %15, %7, %9) left_side=true lower=false unit_diagonal=false "
        "transpose_a=true conjugate_a=true : f32[4,2], f32[4,2]",
        "triangular-solve(%10, %11, %7, %9) left_side=true lower=true unit_diagonal=false "
        "transpose_a=true conjugate_a=true : f32[4,2], f32[4,2]",
        "cholesky(%3, %5) lower=true : f32[4,4], f32[4,4], s32[]", "return %12, %26, %29, %32"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
}

TEST(ComplexLinalgImport, HermitianEighGivesComplexVectorsAndRealValues) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = c128[2,3,3] parameter(0)
  e = (c128[2,3,3]{1,2,0}, f64[2,3]{1,0}, s32[2]{0}) custom-call(a), custom_call_target="lapack_zheevd_ffi", backend_config={mode = 86 : ui8, uplo = 76 : ui8}
  g = (c128[2,3,3], f64[2,3], s32[2]) custom-call(a), custom_call_target="cusolver_syevd_ffi", backend_config={algorithm = 0 : ui8, lower = true}
  v = c128[2,3,3] get-tuple-element(e), index=0
  w = f64[2,3] get-tuple-element(g), index=1
  ROOT out = (c128[2,3,3], f64[2,3]) tuple(v, w)
})");
  for (const char* expected :
       {"eigh(%2, %4) : f64[2,3,3], f64[2,3,3], f64[2,3], s32[2]", "return %15, %11"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
}

// Values only: the svd op on the parts; u and vt, which jax declares and never reads, are zeros.
TEST(ComplexLinalgImport, SingularValuesOfComplexMatrices) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = c64[5,3] parameter(0)
  s = (c64[5,3]{0,1}, f32[3]{0}, c64[5,5]{0,1}, c64[3,3]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_cgesdd_ffi", backend_config={mode = 78 : ui8}
  ROOT w = f32[3] get-tuple-element(s), index=1
})");
  for (const char* expected :
       {"svd(%2, %4) compute_uv=false full_matrices=false : f32[5,3], f32[5,3], f32[3], s32[]",
        "broadcast(%9) dimensions={} : f32[5,5]", "broadcast(%13) dimensions={} : f32[3,3]",
        "return %7"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
}

// geev of a real matrix with no vectors (jnp.linalg.eigvals; cuhybrid_eig_real on a GPU): the
// eig-values op gives wr and wi, and vl, vr are zeros (two parts each).
TEST(ComplexLinalgImport, EigenvaluesOfRealMatrices) {
  for (const char* call :
       {"custom_call_target=\"lapack_sgeev_ffi\", backend_config={compute_left = 78 : ui8, "
        "compute_right = 78 : ui8}",
        "custom_call_target=\"cuhybrid_eig_real\", backend_config={left = false, magma = "
        "\"auto\", right = false}"}) {
    std::string ir = importText(std::string(R"(HloModule m
ENTRY main {
  a = f32[2,4,4] parameter(0)
  e = (f32[2,4]{1,0}, f32[2,4]{1,0}, c64[2,4,4]{1,2,0}, c64[2,4,4]{1,2,0}, s32[2]{0}) custom-call(a), )") +
                                call + R"(
  ROOT wi = f32[2,4] get-tuple-element(e), index=1
})");
    for (const char* expected :
         {"eig-values(%0) : f32[2,4,4], f32[2,4], f32[2,4], s32[2]", "return %3"}) {
      EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
    }
  }
}

TEST(ComplexLinalgImport, TransposeWithoutConjugation) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = c128[3,3] parameter(0)
  b = c128[2,3] parameter(1)
  ROOT x = c128[2,3] custom-call(a, b), custom_call_target="lapack_ztrsm_ffi", backend_config={diag = 85 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}
})");
  EXPECT_NE(ir.find("left_side=false lower=true unit_diagonal=true transpose_a=true : f64[2,3], "
                    "f64[2,3]"),
            std::string::npos)
      << ir;
}

TEST(ComplexLinalgImport, ComplexCallsLoopfuseLacksNameTheTarget) {
  const std::string head = "HloModule m\nENTRY main {\n  ";
  for (const auto& [hlo, message] : std::vector<std::pair<std::string, std::string>>{
           {"a = c64[4,3] parameter(0)\n  t = c64[3] parameter(1)\n  b = c64[4,2] parameter(2)\n  "
            "ROOT o = c64[4,2] custom-call(a, t, b), custom_call_target=\"cusolver_ormqr_ffi\", "
            "backend_config={left = true, transpose = true}",
            "unsupported custom-call target 'cusolver_ormqr_ffi' on complex numbers"},
           {"a = c64[3,3] parameter(0)\n  ROOT s = (c64[3,3], f32[3], c64[3,3], c64[3,3], s32[]) "
            "custom-call(a), custom_call_target=\"cusolver_gesvdj_ffi\", "
            "backend_config={compute_uv = true, full_matrices = false}",
            "unsupported cusolver_gesvdj_ffi of complex matrices with their singular vectors"},
           {"a = c64[2000,1100] parameter(0)\n  ROOT s = (c64[2000,1100], f32[1100], "
            "c64[2000,2000], "
            "c64[1100,1100], s32[]) custom-call(a), custom_call_target=\"lapack_cgesdd_ffi\", "
            "backend_config={mode = 78 : ui8}",
            "unsupported lapack_cgesdd_ffi of 2000 x 1100 complex matrices (up to min(m, n) = "
            "1024)"},
           {"a = c64[3,3] parameter(0)\n  ROOT e = (c64[3,3], f32[3], s32[]) custom-call(a), "
            "custom_call_target=\"lapack_cheevd_ffi\", backend_config={mode = 86 : ui8, uplo = 85 "
            ": ui8}",
            "unsupported lapack_cheevd_ffi of the upper triangle (uplo 'U')"},
           {"a = c64[3,3] parameter(0)\n  ROOT lu = (c64[3,3], s32[2], s32[]) custom-call(a), "
            "custom_call_target=\"lapack_cgetrf_ffi\", backend_config={}",
            "custom-call 'lapack_cgetrf_ffi' of f32[3,3] gives (f32[3,3], f32[3,3], s32[3], "
            "s32[])"},
           {"a = c64[3,3] parameter(0)\n  b = c64[3,1] parameter(1)\n  ROOT x = c64[3,1] "
            "custom-call(a, b), custom_call_target=\"lapack_ctrsm_ffi\", backend_config={diag = 78 "
            ": ui8, side = 76 : ui8, trans_x = 88 : ui8, uplo = 76 : ui8}",
            "backend_config trans_x = 88 is not one of 'NTC'"},
           {"a = f32[3,3] parameter(0)\n  ROOT e = (f32[3], f32[3], c64[3,3], c64[3,3], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_sgeev_ffi\", backend_config={compute_left "
            "= 78 : ui8, compute_right = 86 : ui8}",
            "unsupported lapack_sgeev_ffi with eigenvectors (jnp.linalg.eig): loopfuse computes "
            "the "
            "eigenvalues alone (jnp.linalg.eigvals)"},
           {"a = f64[80,80] parameter(0)\n  ROOT e = (f64[80], f64[80], c128[80,80], c128[80,80], "
            "s32[]) custom-call(a), custom_call_target=\"cuhybrid_eig_real\", backend_config={left "
            "= false, magma = \"auto\", right = false}",
            "unsupported cuhybrid_eig_real of 80 x 80 matrices (loopfuse's eigvals runs LAPACK's "
            "small-matrix QR iteration, up to 75 rows)"},
           {"a = c64[3,3] parameter(0)\n  ROOT e = (c64[3], c64[3,3], c64[3,3], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_cgeev_ffi\", backend_config={compute_left "
            "= 78 : ui8, compute_right = 78 : ui8}",
            "unsupported custom-call target 'lapack_cgeev_ffi'"}}) {
    std::string err = importError(head + hlo + "\n}\n");
    EXPECT_NE(err.find(message), std::string::npos) << message << "\n" << err;
    EXPECT_NE(err.find("test.hlo:"), std::string::npos) << "no file:line:col in\n" << err;
  }
}

}  // namespace
}  // namespace lf::frontend::testing
