// Tuple flattening, call inlining, while/conditional conversion, variadic reduce, constants of
// every dtype (bytes worked out by hand) and the unsupported-op report.
#include <gtest/gtest.h>

#include "frontend/loop_info.h"
#include "frontend/test_util.h"

namespace lf::frontend::testing {
namespace {

TEST(StructureImport, WhileWithTupleStateAndCall) {
  std::string ir = importText(R"(HloModule jit_loop
add1 {
  p = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT s = s32[] add(p, one)
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
  i2 = s32[] call(i), to_apply=add1
  x2 = f32[2] multiply(x, x)
  ROOT t = (s32[], f32[2]) tuple(i2, x2)
}
ENTRY main {
  x = f32[2] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[2]) tuple(z, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT r = f32[2] get-tuple-element(w), index=1
})");
  EXPECT_EQ(ir, R"(program jit_loop(%0: f32[2]) -> (f32[2]) {
  %1 = constant(0) : s32[]
  %2, %3 = while(%1, %0) : s32[], f32[2]
    cond(%4: s32[], %5: f32[2]) {
      %6 = constant(10) : s32[]
      %7 = compare(%4, %6) direction=LT type=SIGNED : pred[]
      yield %7
    }
    body(%8: s32[], %9: f32[2]) {
      %10 = constant(1) : s32[]
      %11 = add(%8, %10) : s32[]
      %12 = multiply(%9, %9) : f32[2]
      yield %11, %12
    }
  return %3
}
)");
}

TEST(StructureImport, TupleParameterAndOutputsFlatten) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  p = (f32[], (s32[2], pred[])) parameter(0)
  q = u8[3] parameter(1)
  inner = (s32[2], pred[]) get-tuple-element(p), index=1
  b = pred[] get-tuple-element(inner), index=1
  ROOT t = (u8[3], (s32[2], pred[]), pred[]) tuple(q, inner, b)
})");
  EXPECT_EQ(
      ir,
      R"(program m(%0: f32[], %1: s32[2], %2: pred[], %3: u8[3]) -> (u8[3], s32[2], pred[], pred[]) {
  return %3, %1, %2, %2
}
)");
}

TEST(StructureImport, VariadicReduceAndPredConditional) {
  std::string ir = importText(R"(HloModule m
argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  gt = pred[] compare(a, b), direction=GT
  v = f32[] select(gt, a, b)
  i = s32[] select(gt, ai, bi)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
yes {
  p = f32[] parameter(0)
  ROOT n = f32[] negate(p)
}
no {
  p = (f32[]) parameter(0)
  ROOT g = f32[] get-tuple-element(p), index=0
}
ENTRY main {
  x = f32[4] parameter(0)
  idx = s32[4] iota(), iota_dimension=0
  lo = f32[] constant(-inf)
  z = s32[] constant(0)
  r = (f32[], s32[]) reduce(x, idx, lo, z), dimensions={0}, to_apply=argmax
  m = f32[] get-tuple-element(r), index=0
  c = pred[] constant(true)
  tm = (f32[]) tuple(m)
  ROOT k = f32[] conditional(c, m, tm), true_computation=yes, false_computation=no
})");
  EXPECT_EQ(ir, R"(program m(%0: f32[4]) -> (f32[]) {
  %1 = iota() dimension=0 : s32[4]
  %2 = constant(-inf) : f32[]
  %3 = constant(0) : s32[]
  %4, %5 = reduce(%0, %1, %2, %3) dimensions={0} : f32[], s32[]
    reducer(%6: f32[], %7: s32[], %8: f32[], %9: s32[]) {
      %10 = compare(%6, %8) direction=GT type=FLOAT : pred[]
      %11 = select(%10, %6, %8) : f32[]
      %12 = select(%10, %7, %9) : s32[]
      yield %11, %12
    }
  %13 = constant(true) : pred[]
  %14 = conditional(%13, %4, %4) selector=pred branch_operands={1,1} : f32[]
    on_true(%15: f32[]) {
      %16 = negate(%15) : f32[]
      yield %16
    }
    on_false(%17: f32[]) {
      yield %17
    }
  return %14
}
)");
}

// Constant bytes, worked out by hand: bf16 1.5 = 0x3FC0, f16 0.1 = 0x2E66 (nearest to 0.1 is
// 0.0999755859375), s64 min, u32 max, f32 -0.0, a NaN payload, pred arrays as 0/1.
TEST(StructureImport, ConstantsOfEveryDtype) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = bf16[] constant(1.5)
  b = f16[2] constant({0.1, -inf})
  c = s64[] constant(-9223372036854775808)
  d = u32[] constant(4294967295)
  e = f32[2] constant({-0, nan(0x1)})
  f = pred[3] constant({1, 0, 1})
  g = s8[2] constant({-128, 127})
  h = f64[] constant(0.1)
  i = u64[] constant(18446744073709551615)
  j = bf16[] constant(-nan)
  ROOT t = (bf16[], f16[2], s64[], u32[], f32[2], pred[3], s8[2], f64[], u64[], bf16[]) tuple(a, b, c, d, e, f, g, h, i, j)
})");
  EXPECT_EQ(
      ir,
      R"(program m() -> (bf16[], f16[2], s64[], u32[], f32[2], pred[3], s8[2], f64[], u64[], bf16[]) {
  %0 = constant(1.5) : bf16[]
  %1 = constant({0.099975586, -inf}) : f16[2]
  %2 = constant(-9223372036854775808) : s64[]
  %3 = constant(4294967295) : u32[]
  %4 = constant({-0, nan(0x1)}) : f32[2]
  %5 = constant({true, false, true}) : pred[3]
  %6 = constant({-128, 127}) : s8[2]
  %7 = constant(0.1) : f64[]
  %8 = constant(18446744073709551615) : u64[]
  %9 = constant(-nan) : bf16[]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
}
)");
  // The raw bytes.
  SourceFile file("c.hlo", R"(HloModule m
ENTRY main {
  a = bf16[] constant(1.5)
  b = f16[] constant(0.1)
  c = s64[] constant(-9223372036854775808)
  e = f32[] constant(nan(0x1))
  ROOT t = (bf16[], f16[], s64[], f32[]) tuple(a, b, c, e)
})");
  ir::Program p = importModule(hlo::parseModule(file));
  auto bytes = [&](int i) { return p.body.ops[i]->attr<ir::ConstantAttrs>().bytes; };
  EXPECT_EQ(bytes(0), (std::vector<uint8_t>{0xC0, 0x3F}));
  EXPECT_EQ(bytes(1), (std::vector<uint8_t>{0x66, 0x2E}));
  EXPECT_EQ(bytes(2), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0x80}));
  EXPECT_EQ(bytes(3), (std::vector<uint8_t>{0x01, 0x00, 0x80, 0x7F}));
}

TEST(StructureImport, ReportsEveryUnsupportedOpAtOnce) {
  std::string err = importError(R"(HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  f = f8e4m3fn[4] convert(x)
  r = f32[4] rng(x, x), distribution=rng_uniform
  k = f32[4] custom-call(x), custom_call_target="foo"
  z = c64[4] fft(x), fft_type=RFFT, fft_length={6}
  c = c64[4] cosine(z)
  ROOT t = (f8e4m3fn[4], f32[4], f32[4], c64[4]) tuple(f, r, k, c)
})");
  EXPECT_NE(err.find("test.hlo:4:7: error: unsupported element type 'f8e4m3fn'"), std::string::npos)
      << err;
  EXPECT_NE(err.find("test.hlo:8:14: error: unsupported op 'cosine' on complex numbers (c64[4]) "
                     "(instruction c in computation main)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("test.hlo:5:14: error: unsupported op 'rng'"), std::string::npos) << err;
  EXPECT_NE(err.find("unsupported custom-call target 'foo'"), std::string::npos) << err;
  EXPECT_NE(err.find("jax.jit"), std::string::npos) << err;
}

TEST(StructureImport, ReportsTypeMismatchAtInstruction) {
  std::string err = importError(R"(HloModule m
ENTRY main {
  x = f32[2] parameter(0)
  y = f32[3] parameter(1)
  ROOT a = f32[2] add(x, y)
})");
  EXPECT_NE(err.find("test.hlo:5:8: error: type mismatch: add operands f32[2] and f32[3] "
                     "(instruction a in computation main)"),
            std::string::npos)
      << err;
}

// JAX's sharding annotation (around a jax.random.key argument) is the identity; one that changes
// the type is malformed and named.
TEST(StructureImport, ShardingCustomCallIsTheIdentity) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  x = u32[2] parameter(0)
  s = u32[2] custom-call(x), custom_call_target="Sharding", sharding={replicated}
  ROOT y = u32[2] add(s, x)
})");
  EXPECT_EQ(ir.find("custom"), std::string::npos) << ir;
  std::string err = importError(R"(HloModule m
ENTRY main {
  x = u32[2] parameter(0)
  ROOT s = u32[3] custom-call(x), custom_call_target="Sharding"
})");
  EXPECT_NE(err.find("custom-call 'Sharding' changes the type: operand u32[2], result u32[3]"),
            std::string::npos)
      << err;
}

// topk is what XLA's TopkDecomposer makes of it: a stable sort of (x, iota) by a total-order
// greater-than (signed less-than for largest=false on ints), sliced to k along the last dimension.
TEST(StructureImport, TopkIsAStableSortOfValuesAndIndicesSlicedToK) {
  EXPECT_EQ(importText(R"(HloModule m
ENTRY main {
  x = f32[2,5] parameter(0)
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true, is_stable=true
})"),
            R"(program m(%0: f32[2,5]) -> (f32[2,3], s32[2,3]) {
  %1 = iota() dimension=1 : s32[2,5]
  %2, %3 = sort(%0, %1) dimension=1 is_stable=true : f32[2,5], s32[2,5]
    comparator(%4: f32[], %5: f32[], %6: s32[], %7: s32[]) {
      %8 = compare(%4, %5) direction=GT type=TOTALORDER : pred[]
      yield %8
    }
  %9 = slice(%2) slice={[0:2:1], [0:3:1]} : f32[2,3]
  %10 = slice(%3) slice={[0:2:1], [0:3:1]} : s32[2,3]
  return %9, %10
}
)");
  std::string smallest = importText(R"(HloModule m
ENTRY main {
  x = s8[4] parameter(0)
  ROOT t = (s8[1], s32[1]) topk(x), k=1, largest=false
})");
  EXPECT_NE(smallest.find("direction=LT type=SIGNED"), std::string::npos) << smallest;
  for (const auto& [hlo, message] : std::vector<std::pair<std::string, std::string>>{
           {"x = f32[2,4] parameter(0)\n  ROOT t = (f32[2,5], s32[2,5]) topk(x), k=5",
            "topk k=5 is out of range for f32[2,4]"},
           {"x = s32[6] parameter(0)\n  ROOT t = (s32[2], s32[3]) topk(x), k=2",
            "topk of s32[6] with k=2 gives (values, s32 indices) with last dimension 2"},
           {"x = pred[6] parameter(0)\n  ROOT t = (pred[2], s32[2]) topk(x), k=2",
            "topk of pred[6]: the values must be numbers"},
           {"x = f32[] parameter(0)\n  ROOT t = (f32[], s32[]) topk(x), k=1",
            "topk needs an array of rank >= 1, got f32[]"}}) {
    std::string err = importError("HloModule m\nENTRY main {\n  " + hlo + "\n}\n");
    EXPECT_NE(err.find(message), std::string::npos) << err;
  }
}

// LAPACK's potrf/trsm custom calls read their flags from backend_config (ASCII codes: 76 'L',
// 85 'U', 82 'R', 84 'T', 78 'N'); cuSOLVER's potrf has `lower = true`; XLA's own ops read theirs
// from attributes. A flag outside its letters is named.
TEST(StructureImport, LinalgCustomCallsAndOps) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = f64[2,3,3] parameter(0)
  b = f64[2,4,3] parameter(1)
  p = (f64[2,3,3], s32[2]) custom-call(a), custom_call_target="lapack_dpotrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 85 : ui8}
  q = (f64[2,3,3], s32[2]) custom-call(a), custom_call_target="cusolver_potrf_ffi", backend_config={lower = true}
  f = f64[2,3,3] get-tuple-element(p), index=0
  g = f64[2,3,3] get-tuple-element(q), index=0
  x = f64[2,4,3] custom-call(f, b), custom_call_target="lapack_dtrsm_ffi", backend_config={diag = 85 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}
  y = f64[2,4,3] triangular-solve(g, b), left_side=false, lower=true, transpose_a=NO_TRANSPOSE
  c = f64[2,3,3] cholesky(a), lower=true
  ROOT t = (f64[2,4,3], f64[2,4,3], f64[2,3,3]) tuple(x, y, c)
})");
  for (const char* expected :
       {"cholesky(%0) lower=false : f64[2,3,3], s32[2]", "cholesky(%0) lower=true",
        "triangular-solve(%2, %1) left_side=false lower=false unit_diagonal=true transpose_a=true",
        "left_side=false lower=true unit_diagonal=false transpose_a=false"}) {
    EXPECT_NE(ir.find(expected), std::string::npos) << expected << "\n" << ir;
  }
  std::string err = importError(R"(HloModule m
ENTRY main {
  a = f32[3,3] parameter(0)
  ROOT p = (f32[3,3], s32[]) custom-call(a), custom_call_target="lapack_spotrf_ffi", backend_config={uplo = 88 : ui8}
})");
  EXPECT_NE(err.find("backend_config uplo = 88 is not one of 'LU'"), std::string::npos) << err;
  err = importError(R"(HloModule m
ENTRY main {
  a = f32[3,2] parameter(0)
  ROOT c = f32[3,2] cholesky(a), lower=true
})");
  EXPECT_NE(err.find("cholesky needs square matrices in its last two dimensions, got f32[3,2]"),
            std::string::npos)
      << err;
  err = importError(R"(HloModule m
ENTRY main {
  a = f32[3] parameter(0)
  ROOT p = (f32[3], s32[1], s32[]) custom-call(a), custom_call_target="lapack_sgetrf_ffi", backend_config={}
})");
  EXPECT_NE(err.find("lapack_sgetrf_ffi needs matrices, got f32[3]"), std::string::npos) << err;
  std::string lu = importText(R"(HloModule m
ENTRY main {
  a = f32[2,5,3] parameter(0)
  p = (f32[2,5,3], s32[2,3], s32[2]) custom-call(a), custom_call_target="cusolver_getrf_ffi", backend_config={}
  v = s32[2,3] get-tuple-element(p), index=1
  ROOT perm = s32[2,5] custom-call(v), custom_call_target="cu_lu_pivots_to_permutation"
})");
  EXPECT_NE(lu.find("lu(%0) : f32[2,5,3], s32[2,3], s32[2]"), std::string::npos) << lu;
  EXPECT_NE(lu.find("lu-pivots-to-permutation(%2) : s32[2,5]"), std::string::npos) << lu;
}

TEST(StructureImport, ThreefryCustomCall) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  k = u32[4] parameter(0)
  ROOT r = (u32[4], u32[4]) custom-call(k, k, k, k), custom_call_target="cu_threefry2x32_ffi", api_version=API_VERSION_TYPED_FFI
})");
  EXPECT_EQ(ir, R"(program m(%0: u32[4]) -> (u32[4], u32[4]) {
  %1, %2 = threefry2x32(%0, %0, %0, %0) : u32[4], u32[4]
  return %1, %2
}
)");
}

TEST(LoopInfo, FindsCountedLoopAndNesting) {
  SourceFile file("l.hlo", R"(HloModule m
icond {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(n, i), direction=GT
}
ibody {
  s = (s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[]) tuple(j)
}
cond {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[] get-tuple-element(s), index=1
  z = s32[] constant(0)
  zt = (s32[]) tuple(z)
  w = (s32[]) while(zt), condition=icond, body=ibody
  one = s32[] constant(1)
  j = s32[] add(one, i)
  y = f32[] add(x, x)
  ROOT t = (s32[], f32[]) tuple(j, y)
}
ENTRY main {
  x = f32[] parameter(0)
  two = s32[] constant(2)
  init = (s32[], f32[]) tuple(two, x)
  w = (s32[], f32[]) while(init), condition=cond, body=body
  ROOT r = f32[] get-tuple-element(w), index=1
})");
  std::vector<LoopInfo> loops = findLoops(hlo::parseModule(file));
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0].computation, "main");
  EXPECT_EQ(loops[0].depth, 0);
  EXPECT_EQ(loops[0].tripCount, std::optional<int64_t>(8));
  EXPECT_EQ(loops[1].computation, "body");
  EXPECT_EQ(loops[1].depth, 1);
  EXPECT_EQ(loops[1].tripCount, std::optional<int64_t>(3));
}

}  // namespace
}  // namespace lf::frontend::testing
