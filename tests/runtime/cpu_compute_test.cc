// Dot, reduce and reduce-window run on the CPU, against values worked out by hand.
#include <cmath>
#include <limits>
#include <string>

#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

TEST(CpuCompute, DotWithBatchDims) {
  ProgramBuilder b;
  ir::Value* l = b.param(type(DType::F32, {2, 2, 3}), "l");
  ir::Value* r = b.param(type(DType::F32, {2, 3, 1}), "r");
  b.output(b.op1(K::Dot, {l, r}, type(DType::F32, {2, 2, 1}), ir::DotAttrs{{0}, {0}, {2}, {1}}));
  auto out =
      runCpu(b.program, {array<float>(DType::F32, {2, 2, 3}, {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}),
                         array<float>(DType::F32, {2, 3, 1}, {1, 1, 1, 7, 8, 9})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{6, 15, 7, 8}));
}

TEST(CpuCompute, DotContractingMinorDimsOfBoth) {
  // lhs @ rhs^T with f64.
  ProgramBuilder b;
  ir::Value* l = b.param(type(DType::F64, {2, 3}), "l");
  ir::Value* r = b.param(type(DType::F64, {4, 3}), "r");
  b.output(b.op1(K::Dot, {l, r}, type(DType::F64, {2, 4}), ir::DotAttrs{{}, {}, {1}, {1}}));
  auto out =
      runCpu(b.program, {array<double>(DType::F64, {2, 3}, {1, 2, 3, 4, 5, 6}),
                         array<double>(DType::F64, {4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<double>(out[0]), (std::vector<double>{1, 2, 3, 6, 4, 5, 6, 15}));
}

// A batched dot large enough for the CPU's tiled form (tiles of 4 rows x 16 columns, here with the
// rhs transposed: contracting its minor dim), against the products summed in increasing
// contraction order with one fma each, as XLA:CPU sums them, so the bits must match exactly.
TEST(CpuCompute, TiledDotSumsInContractionOrder) {
  constexpr int kB = 2, kM = 8, kK = 37, kN = 32;
  ProgramBuilder b;
  ir::Value* l = b.param(type(DType::F32, {kB, kM, kK}), "l");
  ir::Value* r = b.param(type(DType::F32, {kB, kN, kK}), "r");
  b.output(b.op1(K::Dot, {l, r}, type(DType::F32, {kB, kM, kN}), ir::DotAttrs{{0}, {0}, {2}, {2}}));
  codegen::EmittedKernel k = codegen::emit(b.program, codegen::Target::Cpu);
  ASSERT_NE(k.source.find("int64_t tile = "), std::string::npos) << "not the tiled form";
  std::vector<float> lv(kB * kM * kK), rv(kB * kN * kK);
  for (size_t i = 0; i < lv.size(); ++i) lv[i] = 0.37f * static_cast<float>((i * 7) % 23) - 3.1f;
  for (size_t i = 0; i < rv.size(); ++i) rv[i] = 0.11f * static_cast<float>((i * 5) % 19) - 0.9f;
  auto out = runCpu(b.program, {array<float>(DType::F32, {kB, kM, kK}, lv),
                                array<float>(DType::F32, {kB, kN, kK}, rv)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> got = values<float>(out[0]);
  for (int bb = 0; bb < kB; ++bb) {
    for (int m = 0; m < kM; ++m) {
      for (int n = 0; n < kN; ++n) {
        float acc = 0.0f;
        for (int c = 0; c < kK; ++c) {
          acc = std::fma(lv[(bb * kM + m) * kK + c], rv[(bb * kN + n) * kK + c], acc);
        }
        ASSERT_EQ(got[(bb * kM + m) * kN + n], acc) << bb << "," << m << "," << n;
      }
    }
  }
}

// A dot of shape [batch, m1, m2, k] x [batch, k, n1, n2], or with rhsTransposed [m1, m2, k] x
// [n1, k] (batch 1: no batch dim) or [batch, m1, m2, k] x [batch, n1, k], computed with fmaf / fma
// in increasing contraction order: the bits every CPU form of the dot must give.
struct DotCase {
  DType dtype;
  int64_t batch, m1, m2, k, n1, n2;
  bool rhsTransposed = false;
};

template <class T>
std::vector<T> dotByFmaChains(const DotCase& c, const std::vector<T>& l, const std::vector<T>& r) {
  const int64_t m = c.m1 * c.m2, n = c.n1 * c.n2;
  std::vector<T> out(c.batch * m * n);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T acc = 0;
        for (int64_t q = 0; q < c.k; ++q) {
          const T rq = c.rhsTransposed ? r[(b * n + j) * c.k + q] : r[(b * c.k + q) * n + j];
          acc = std::fma(l[(b * m + i) * c.k + q], rq, acc);
        }
        out[(b * m + i) * n + j] = acc;
      }
  return out;
}

// Runs the dot of `c` on the CPU and checks every bit; with narrowVectors, the 32-byte variant.
template <class T>
void expectRegisterTiledDot(const DotCase& c, bool narrowVectors) {
  ProgramBuilder b;
  std::vector<int64_t> ld = {c.batch, c.m1, c.m2, c.k}, rd = {c.batch, c.k, c.n1, c.n2};
  std::vector<int64_t> od = {c.batch, c.m1, c.m2, c.n1, c.n2};
  ir::DotAttrs attrs{{0}, {0}, {3}, {1}};
  if (c.rhsTransposed && c.batch == 1) {
    ld = {c.m1, c.m2, c.k}, rd = {c.n1, c.k}, od = {c.m1, c.m2, c.n1};
    attrs = ir::DotAttrs{{}, {}, {2}, {1}};
  } else if (c.rhsTransposed) {
    rd = {c.batch, c.n1, c.k}, od = {c.batch, c.m1, c.m2, c.n1};
    attrs = ir::DotAttrs{{0}, {0}, {3}, {2}};
  }
  ir::Value* l = b.param(type(c.dtype, ld), "l");
  ir::Value* r = b.param(type(c.dtype, rd), "r");
  b.output(b.op1(K::Dot, {l, r}, type(c.dtype, od), attrs));
  codegen::EmittedKernel k = codegen::emit(b.program, codegen::Target::Cpu);
  const bool vectors = c.n1 * c.n2 * static_cast<int64_t>(sizeof(T)) >= 32;
  // explain names the form (the dot of ProgramBuilder is named dot.<n>).
  EXPECT_NE(k.explain.find(vectors ? ": register tiles of " : ": scalar register tiles of "),
            std::string::npos)
      << k.explain;
  if (vectors) {
    ASSERT_NE(k.source.find("lf_vfma("), std::string::npos) << "not the vector tiles";
    // The packed copy is a variable pack_v_... ("pack_" alone is in the prelude: lapack_...).
    EXPECT_EQ(k.source.find("pack_v_") != std::string::npos, c.rhsTransposed);
  } else {
    ASSERT_NE(k.source.find("rows from row 0"), std::string::npos) << "not the scalar tiles";
  }
  if (narrowVectors) useNarrowVectors(k);
  const std::vector<T> lv = lhsTestValues<T>(c.batch * c.m1 * c.m2 * c.k),
                       rv = rhsTestValues<T>(c.batch * c.k * c.n1 * c.n2);
  auto exe = runtime::Executable::compileCpu(k, testCompileOptions());
  auto out = exe->run({array<T>(c.dtype, ld, lv), array<T>(c.dtype, rd, rv)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<T> got = values<T>(out[0]), want = dotByFmaChains(c, lv, rv);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
}

// Shapes that fill whole tiles and shapes that leave rows, columns and corners over (tiles of 8 or
// 6 rows and 2 vectors of 16 or 8 f32 lanes), rows narrower than a vector, a batch, split free
// dims, a vector-matrix product, an empty contraction, a transposed rhs (x @ w.T, read from a
// transposed copy), with and without a batch, and the scalar tiles of narrow products; each in
// both vector widths.
TEST(CpuCompute, RegisterTiledDotSumsInContractionOrder) {
  const DotCase cases[] = {
      {DType::F32, 1, 8, 1, 37, 32, 1},
      {DType::F32, 2, 13, 1, 5, 45, 1},
      {DType::F32, 1, 1, 1, 64, 128, 1},
      {DType::F32, 1, 7, 1, 3, 8, 1},
      {DType::F32, 3, 2, 5, 9, 3, 7},
      {DType::F32, 1, 16, 1, 0, 32, 1},
      {DType::F64, 2, 9, 1, 11, 21, 1},
      {DType::F64, 1, 12, 1, 40, 4, 4},
      {DType::F32, 1, 3, 5, 17, 41, 1, true},
      {DType::F32, 1, 64, 1, 4, 64, 1, true},
      {DType::F64, 1, 4, 1, 33, 12, 1, true},
      // A batch of transposed rhs (V diag(w) V^T after an eigh): one batch's copy at a time.
      {DType::F32, 3, 48, 1, 48, 48, 1, true},
      {DType::F64, 2, 5, 2, 7, 19, 1, true},
      // Scalar tiles: a matrix times a vector, a few columns, a batch, a transposed rhs.
      {DType::F32, 1, 96, 1, 32, 1, 1},
      {DType::F32, 2, 7, 3, 13, 3, 1},
      {DType::F64, 1, 25, 1, 9, 2, 1, true},
      {DType::F32, 1, 17, 1, 40, 7, 1},
  };
  for (const DotCase& c : cases) {
    for (bool narrow : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(c.dtype)) + " batch " + std::to_string(c.batch) + " m " +
                   std::to_string(c.m1 * c.m2) + " k " + std::to_string(c.k) + " n " +
                   std::to_string(c.n1 * c.n2) + (c.rhsTransposed ? " (rhs transposed)" : "") +
                   (narrow ? ", 32-byte vectors" : ""));
      if (c.dtype == DType::F32)
        expectRegisterTiledDot<float>(c, narrow);
      else
        expectRegisterTiledDot<double>(c, narrow);
    }
  }
}

TEST(CpuCompute, ReduceSumOneDimAndAllDims) {
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {2, 3}), "x");
  ir::Value* zero = b.constant<float>(type(DType::F32), {0});
  ir::Op* rows = b.op(K::Reduce, {x, zero}, {type(DType::F32, {2})}, ir::ReduceAttrs{{1}});
  b.binaryRegion(rows, K::Add, DType::F32);
  ir::Op* all = b.op(K::Reduce, {x, zero}, {type(DType::F32)}, ir::ReduceAttrs{{0, 1}});
  b.binaryRegion(all, K::Add, DType::F32);
  b.output(rows->result());
  b.output(all->result());
  auto out = runCpu(b.program, {array<float>(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{6, 15}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{21}));
}

TEST(CpuCompute, VariadicReduceArgmaxTakesFirstMaximum) {
  ProgramBuilder b;
  ir::Value* v = b.param(type(DType::F32, {5}), "v");
  ir::Value* idx = b.op1(K::Iota, {}, type(DType::S32, {5}), ir::IotaAttrs{0});
  ir::Value* ninf = b.constant<float>(type(DType::F32), {-std::numeric_limits<float>::infinity()});
  ir::Value* zero = b.constant<int32_t>(type(DType::S32), {0});
  ir::Op* red = b.op(K::Reduce, {v, idx, ninf, zero}, {type(DType::F32), type(DType::S32)},
                     ir::ReduceAttrs{{0}});
  ir::Region* r = red->addRegion();
  ir::Value* av = r->addArg(type(DType::F32), "av");
  ir::Value* ai = r->addArg(type(DType::S32), "ai");
  ir::Value* bv = r->addArg(type(DType::F32), "bv");
  ir::Value* bi = r->addArg(type(DType::S32), "bi");
  auto cmp = [&](ir::Value* x, ir::Value* y, ir::CompareDirection d, ir::CompareType t) {
    return b.op1(K::Compare, {x, y}, type(DType::Pred), ir::CompareAttrs{d, t}, r);
  };
  ir::Value* gt = cmp(bv, av, ir::CompareDirection::GT, ir::CompareType::Float);
  ir::Value* eq = cmp(bv, av, ir::CompareDirection::EQ, ir::CompareType::Float);
  ir::Value* lt = cmp(bi, ai, ir::CompareDirection::LT, ir::CompareType::Signed);
  ir::Value* tie = b.op1(K::And, {eq, lt}, type(DType::Pred), ir::NoAttrs{}, r);
  ir::Value* pick = b.op1(K::Or, {gt, tie}, type(DType::Pred), ir::NoAttrs{}, r);
  r->yields.push_back(b.op1(K::Select, {pick, bv, av}, type(DType::F32), ir::NoAttrs{}, r));
  r->yields.push_back(b.op1(K::Select, {pick, bi, ai}, type(DType::S32), ir::NoAttrs{}, r));
  b.output(red->result(0));
  b.output(red->result(1));
  auto out = runCpu(b.program, {array<float>(DType::F32, {5}, {3, 7, 1, 7, 2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{7}));
  EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{1}));
}

// Reductions that keep the minor dim (over a leading dim, over two, with a partial block of
// columns, and a variadic argmax) run as blocks of column accumulators; each result must still
// fold its elements in row-major order from the init value: the bits of a sequential sum.
TEST(CpuCompute, ColumnReductionsFoldInRowMajorOrder) {
  constexpr int64_t kA = 3, kB = 5, kC = 100;
  ProgramBuilder b;
  ir::Value* x = b.param(type(DType::F32, {kA, kB, kC}), "x");
  ir::Value* sq = b.op1(K::Multiply, {x, x}, type(DType::F32, {kA, kB, kC}));
  ir::Value* zero = b.constant<float>(type(DType::F32), {0});
  ir::Op* overA = b.op(K::Reduce, {sq, zero}, {type(DType::F32, {kB, kC})}, ir::ReduceAttrs{{0}});
  b.binaryRegion(overA, K::Add, DType::F32);
  ir::Op* overAB = b.op(K::Reduce, {x, zero}, {type(DType::F32, {kC})}, ir::ReduceAttrs{{0, 1}});
  b.binaryRegion(overAB, K::Add, DType::F32);
  ir::Value* ninf = b.constant<float>(type(DType::F32), {-std::numeric_limits<float>::infinity()});
  ir::Op* maxB = b.op(K::Reduce, {x, ninf}, {type(DType::F32, {kA, kC})}, ir::ReduceAttrs{{1}});
  b.binaryRegion(maxB, K::Maximum, DType::F32);
  b.output(overA->result());
  b.output(overAB->result());
  b.output(maxB->result());
  const codegen::EmittedKernel k = codegen::emit(b.program, codegen::Target::Cpu);
  ASSERT_NE(k.source.find("const int64_t col0 = "), std::string::npos) << "not the column form";
  std::vector<float> xv(kA * kB * kC);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.37f * static_cast<float>((i * 7) % 23) - 3.1f;
  auto out = runCpu(b.program, {array<float>(DType::F32, {kA, kB, kC}, xv)});
  ASSERT_EQ(out.size(), 3u);
  auto at = [&](int64_t a, int64_t bb, int64_t c) { return xv[(a * kB + bb) * kC + c]; };
  std::vector<float> wantA(kB * kC, 0.0f), wantAB(kC, 0.0f), wantMax(kA * kC, -INFINITY);
  for (int64_t bb = 0; bb < kB; ++bb)
    for (int64_t c = 0; c < kC; ++c)
      for (int64_t a = 0; a < kA; ++a) wantA[bb * kC + c] += at(a, bb, c) * at(a, bb, c);
  for (int64_t c = 0; c < kC; ++c)
    for (int64_t a = 0; a < kA; ++a)
      for (int64_t bb = 0; bb < kB; ++bb) wantAB[c] += at(a, bb, c);
  for (int64_t a = 0; a < kA; ++a)
    for (int64_t c = 0; c < kC; ++c)
      for (int64_t bb = 0; bb < kB; ++bb)
        wantMax[a * kC + c] = std::max(wantMax[a * kC + c], at(a, bb, c));
  EXPECT_EQ(values<float>(out[0]), wantA);
  EXPECT_EQ(values<float>(out[1]), wantAB);
  EXPECT_EQ(values<float>(out[2]), wantMax);
}

ir::Value* reduceWindow(ProgramBuilder& b, ir::Value* x, ir::Value* init, K combiner,
                        ir::ReduceWindowAttrs a, int64_t outSize) {
  ir::Op* op = b.op(K::ReduceWindow, {x, init}, {type(DType::F32, {outSize})}, std::move(a));
  b.binaryRegion(op, combiner, DType::F32);
  return op->result();
}

TEST(CpuCompute, ReduceWindowStridesPaddingAndDilations) {
  ProgramBuilder b;
  ir::Value* x4 = b.param(type(DType::F32, {4}), "x4");
  ir::Value* x3 = b.param(type(DType::F32, {3}), "x3");
  ir::Value* x5 = b.param(type(DType::F32, {5}), "x5");
  ir::Value* zero = b.constant<float>(type(DType::F32), {0});
  ir::Value* ninf = b.constant<float>(type(DType::F32), {-std::numeric_limits<float>::infinity()});
  // sizes, strides, padLow, padHigh, baseDilation, windowDilation
  b.output(reduceWindow(b, x4, ninf, K::Maximum, {{2}, {2}, {0}, {0}, {1}, {1}}, 2));
  b.output(reduceWindow(b, x4, zero, K::Add, {{2}, {1}, {1}, {0}, {1}, {1}}, 4));
  b.output(reduceWindow(b, x3, zero, K::Add, {{2}, {1}, {0}, {0}, {2}, {1}}, 4));
  b.output(reduceWindow(b, x5, zero, K::Add, {{2}, {1}, {0}, {0}, {1}, {2}}, 3));
  auto out = runCpu(b.program, {array<float>(DType::F32, {4}, {1, 3, 2, 5}),
                                array<float>(DType::F32, {3}, {1, 2, 3}),
                                array<float>(DType::F32, {5}, {1, 2, 3, 4, 5})});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(values<float>(out[0]), (std::vector<float>{3, 5}));
  EXPECT_EQ(values<float>(out[1]), (std::vector<float>{1, 4, 5, 7}));  // {0,1,3,2,5}
  EXPECT_EQ(values<float>(out[2]), (std::vector<float>{1, 2, 2, 3}));  // {1,0,2,0,3}
  EXPECT_EQ(values<float>(out[3]), (std::vector<float>{4, 6, 8}));     // x[i] + x[i+2]
}

}  // namespace
}  // namespace lf::testing
