// The QR, eigh and SVD custom calls (LAPACK's geqrf, orgqr, syevd and gesdd, and cuSOLVER's) import
// to the qr, householder-product, eigh and svd ops; what loopfuse does not reproduce (the upper
// triangle, matrices past LAPACK's QL/QR size) and malformed calls are errors that name the call.
#include <gtest/gtest.h>

#include "frontend/test_util.h"

namespace lf::frontend::testing {
namespace {

TEST(LinalgImport, QrAndEighCustomCalls) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = f32[2,5,3] parameter(0)
  s = f64[4,4] parameter(1)
  g = (f32[2,5,3], f32[2,3]) custom-call(a), custom_call_target="lapack_sgeqrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={}
  r = f32[2,5,3] get-tuple-element(g), index=0
  t = f32[2,3] get-tuple-element(g), index=1
  q = f32[2,5,3] custom-call(r, t), custom_call_target="cusolver_orgqr_ffi", backend_config={}
  e = (f64[4,4], f64[4], s32[]) custom-call(s), custom_call_target="lapack_dsyevd_ffi", backend_config={mode = 86 : ui8, uplo = 76 : ui8}
  c = (f64[4,4], f64[4], s32[]) custom-call(s), custom_call_target="cusolver_syevd_ffi", backend_config={algorithm = 0 : ui8, lower = true}
  v = f64[4,4] get-tuple-element(e), index=0
  w = f64[4] get-tuple-element(c), index=1
  ROOT out = (f32[2,5,3], f64[4,4], f64[4]) tuple(q, v, w)
})");
  for (const char* expected :
       {"qr(%0) : f32[2,5,3], f32[2,3]", "householder-product(%2, %3) : f32[2,5,3]",
        "eigh(%1) : f64[4,4], f64[4], s32[]"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
}

// jnp.linalg.svd's gesdd, mode 'S' (u m x k, vt k x n), 'A' (m x m, n x n) and 'N' (the values:
// jax still declares u and vt m x m and n x n, which become zeros), f32, f64 and batched.
TEST(LinalgImport, SvdCustomCalls) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = f32[6,4] parameter(0)
  b = f64[4,6] parameter(1)
  c = f32[3,6,4] parameter(2)
  s = (f32[6,4]{0,1}, f32[4]{0}, f32[6,4]{0,1}, f32[4,4]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_sgesdd_ffi", operand_layout_constraints={f32[6,4]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 83 : ui8}
  f = (f64[4,6]{0,1}, f64[4]{0}, f64[4,4]{0,1}, f64[6,6]{0,1}, s32[]) custom-call(b), custom_call_target="lapack_dgesdd_ffi", operand_layout_constraints={f64[4,6]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 65 : ui8}
  n = (f32[6,4]{0,1}, f32[4]{0}, f32[6,6]{0,1}, f32[4,4]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_sgesdd_ffi", operand_layout_constraints={f32[6,4]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 78 : ui8}
  t = (f32[3,6,4]{1,2,0}, f32[3,4]{1,0}, f32[3,6,4]{1,2,0}, f32[3,4,4]{1,2,0}, s32[3]{0}) custom-call(c), custom_call_target="lapack_sgesdd_ffi", operand_layout_constraints={f32[3,6,4]{1,2,0}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={mode = 83 : ui8}
  su = f32[6,4] get-tuple-element(s), index=2
  fvt = f64[6,6] get-tuple-element(f), index=3
  nw = f32[4] get-tuple-element(n), index=1
  nu = f32[6,6] get-tuple-element(n), index=2
  nvt = f32[4,4] get-tuple-element(n), index=3
  ti = s32[3] get-tuple-element(t), index=4
  ROOT out = (f32[6,4], f64[6,6], f32[4], f32[6,6], f32[4,4], s32[3]) tuple(su, fvt, nw, nu, nvt, ti)
})");
  for (const char* expected :
       {"svd(%0) compute_uv=true full_matrices=false : f32[6,4], f32[4], f32[6,4], f32[4,4], s32[]",
        "svd(%1) compute_uv=true full_matrices=true : f64[4,6], f64[4], f64[4,4], f64[6,6], s32[]",
        "svd(%0) compute_uv=false full_matrices=false : f32[6,4], f32[4], s32[]",
        "svd(%2) compute_uv=true full_matrices=false : f32[3,6,4], f32[3,4], f32[3,6,4], "
        "f32[3,4,4], s32[3]",
        "constant(0) : f32[]", "broadcast(%16) dimensions={} : f32[6,6]",
        "broadcast(%18) dimensions={} : f32[4,4]", "return %5, %11, %14, %17, %19, %24"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
  size_t svds = 0;
  for (size_t at = ir.find(" = svd("); at != std::string::npos; at = ir.find(" = svd(", at + 1)) {
    ++svds;
  }
  EXPECT_EQ(svds, 4u) << ir;
}

TEST(LinalgImport, ErrorsNameTheCall) {
  const std::string head = "HloModule m\nENTRY main {\n  ";
  for (const auto& [hlo, message] : std::vector<std::pair<std::string, std::string>>{
           {"a = f32[3,3] parameter(0)\n  ROOT e = (f32[3,3], f32[3], s32[]) custom-call(a), "
            "custom_call_target=\"lapack_ssyevd_ffi\", backend_config={mode = 86 : ui8, uplo = 85 "
            ": ui8}",
            "unsupported lapack_ssyevd_ffi of the upper triangle (uplo 'U')"},
           {"a = f32[3,3] parameter(0)\n  ROOT e = (f32[3,3], f32[3], s32[]) custom-call(a), "
            "custom_call_target=\"cusolver_syevd_ffi\", backend_config={lower = false}",
            "unsupported cusolver_syevd_ffi of the upper triangle (lower=false)"},
           {"a = f32[1025,1025] parameter(0)\n  ROOT e = (f32[1025,1025], f32[1025], s32[]) "
            "custom-call(a), "
            "custom_call_target=\"lapack_ssyevd_ffi\", backend_config={mode = 86 : ui8, uplo = 76 "
            ": ui8}",
            "unsupported lapack_ssyevd_ffi of 1025 x 1025 matrices (loopfuse's eigh runs one "
            "matrix per thread, up to 1024 rows)"},
           {"a = f32[3,3] parameter(0)\n  ROOT e = (f32[3,3], f32[3], s32[]) custom-call(a), "
            "custom_call_target=\"lapack_ssyevd_ffi\", backend_config={mode = 88 : ui8, uplo = 76 "
            ": ui8}",
            "backend_config mode = 88 is not one of 'NV'"},
           {"a = f32[3,3] parameter(0)\n  ROOT e = (f32[3,3], f32[3], s32[]) custom-call(a), "
            "custom_call_target=\"lapack_ssyevd_ffi\", backend_config={mode = 86 : ui8}",
            "custom-call backend_config lacks 'uplo'"},
           {"a = f32[3,2] parameter(0)\n  ROOT e = (f32[3,2], f32[2], s32[]) custom-call(a), "
            "custom_call_target=\"lapack_ssyevd_ffi\", backend_config={mode = 86 : ui8, uplo = 76 "
            ": ui8}",
            "eigh needs square matrices in its last two dimensions, got f32[3,2]"},
           {"a = f32[4,3] parameter(0)\n  ROOT g = (f32[4,3], f32[4]) custom-call(a), "
            "custom_call_target=\"lapack_sgeqrf_ffi\", backend_config={}",
            "custom-call 'lapack_sgeqrf_ffi' of f32[4,3] gives (f32[4,3], f32[3])"},
           {"a = s32[4,3] parameter(0)\n  ROOT g = (s32[4,3], s32[3]) custom-call(a), "
            "custom_call_target=\"lapack_sgeqrf_ffi\", backend_config={}",
            "qr of s32[4,3]: only f32 and f64 matrices"},
           {"a = f32[4] parameter(0)\n  ROOT g = (f32[4], f32[1]) custom-call(a), "
            "custom_call_target=\"lapack_sgeqrf_ffi\", backend_config={}",
            "lapack_sgeqrf_ffi needs matrices, got f32[4]"},
           {"a = f32[3,4] parameter(0)\n  t = f32[3] parameter(1)\n  ROOT q = f32[3,4] "
            "custom-call(a, t), custom_call_target=\"lapack_sorgqr_ffi\", backend_config={}",
            "householder-product of a f32[3,4] needs taus [..., k] with a's batch and dtype and m "
            ">= n >= k, got f32[3]"},
           {"a = f32[4,3] parameter(0)\n  t = f32[4] parameter(1)\n  ROOT q = f32[4,3] "
            "custom-call(a, t), custom_call_target=\"lapack_sorgqr_ffi\", backend_config={}",
            "m >= n >= k, got f32[4]"},
           {"a = f32[6,4] parameter(0)\n  t = f32[4] parameter(1)\n  b = f32[5,2] parameter(2)\n  "
            "ROOT o = f32[5,2] custom-call(a, t, b), custom_call_target=\"lapack_sormqr_ffi\", "
            "backend_config={left = true, transpose = true}",
            "ormqr left of a f32[6,4] needs c with a's batch and dtype and 6 rows, got f32[5,2]"},
           {"a = f32[6,4] parameter(0)\n  t = f32[5] parameter(1)\n  b = f32[6,2] parameter(2)\n  "
            "ROOT o = f32[6,2] custom-call(a, t, b), custom_call_target=\"lapack_sormqr_ffi\", "
            "backend_config={left = true, transpose = true}",
            "ormqr of a f32[6,4] needs taus [..., k] with a's batch and dtype and k <= both "
            "dimensions, got f32[5]"},
           {"a = f32[6,4] parameter(0)\n  t = f32[4] parameter(1)\n  b = f32[6,2] parameter(2)\n  "
            "ROOT o = f32[6,2] custom-call(a, t, b), custom_call_target=\"lapack_sormqr_ffi\", "
            "backend_config={left = true}",
            "lapack_sormqr_ffi needs 'transpose' in its backend_config"},
           {"a = f32[200,100] parameter(0)\n  t = f32[100] parameter(1)\n  b = f32[200,1] "
            "parameter(2)\n  ROOT o = f32[200,1] custom-call(a, t, b), "
            "custom_call_target=\"lapack_sormqr_ffi\", backend_config={left = true, transpose = "
            "true}",
            "unsupported lapack_sormqr_ffi of f32[200,100] with 100 reflectors"},
           {"a = f32[1025,1030] parameter(0)\n  ROOT s = (f32[1025,1030], f32[1025], "
            "f32[1025,1025], "
            "f32[1025,1030], s32[]) custom-call(a), custom_call_target=\"lapack_sgesdd_ffi\", "
            "backend_config={mode = 83 : ui8}",
            "unsupported lapack_sgesdd_ffi of 1025 x 1030 matrices (loopfuse's svd decomposes each "
            "matrix on one thread, up to min(m, n) = 1024)"},
           {"a = f32[6,4] parameter(0)\n  ROOT s = (f32[6,4], f32[4], f32[6,4], f32[4,4], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 79 : "
            "ui8}",
            "custom-call backend_config mode = 79 is not one of 'NSA'"},
           {"a = f64[6,4] parameter(0)\n  ROOT s = (f64[6,4], f64[4], f64[6,4], f64[4,4], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_dgesdd_ffi\", backend_config={}",
            "custom-call backend_config lacks 'mode'"},
           {"a = f32[6,4] parameter(0)\n  ROOT s = (f32[6,4], f32[4], f32[6,6], f32[4,4], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 83 : "
            "ui8}",
            "type mismatch: svd of f32[6,4] gives f32[6,4] as result 2, not f32[6,6]"},
           {"a = f64[4,6] parameter(0)\n  ROOT s = (f64[4,6], f64[4], f64[4,4], f64[4,6], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_dgesdd_ffi\", backend_config={mode = 65 : "
            "ui8}",
            "type mismatch: svd of f64[4,6] gives f64[6,6] as result 3, not f64[4,6]"},
           {"a = f32[6,4] parameter(0)\n  ROOT s = (f32[6,4], f32[4], f32[6,4], f32[4,4]) "
            "custom-call(a), custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 83 : "
            "ui8}",
            "lapack_sgesdd_ffi gives (a, values, u, vt, info)"},
           {"a = f32[4] parameter(0)\n  ROOT s = (f32[4], f32[1], f32[1,1], f32[1,4], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 83 : "
            "ui8}",
            "lapack_sgesdd_ffi needs matrices, got f32[4]"},
           {"a = s32[6,4] parameter(0)\n  ROOT s = (s32[6,4], s32[4], s32[6,4], s32[4,4], s32[]) "
            "custom-call(a), custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 83 : "
            "ui8}",
            "svd of s32[6,4]: only f32 and f64 matrices"}}) {
    std::string err = importError(head + hlo + "\n}\n");
    EXPECT_NE(err.find(message), std::string::npos) << message << "\n" << err;
    EXPECT_NE(err.find("test.hlo:"), std::string::npos) << "no file:line:col in\n" << err;
  }
}

}  // namespace
}  // namespace lf::frontend::testing
