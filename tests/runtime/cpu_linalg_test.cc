// Cholesky, triangular solve and LU on the CPU, against values worked out by hand: both
// triangles, a failed factorization's info, every side / transpose / unit-diagonal form of the
// solve, partial pivoting and the permutation it makes.
#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

// a = [[4, 2], [2, 5]] = L L^T with L = [[2, 0], [1, 2]]; U = L^T. The other triangle keeps a's
// values (LAPACK's potrf leaves it); info is 0, or j + 1 at the first pivot that is not positive:
// [[1, 2], [2, 1]] fails at j = 1 (1 - 2*2 < 0), [[-1, 0], [0, 1]] at j = 0.
TEST(CpuLinalg, CholeskyLowerUpperAndInfo) {
  for (bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "lower" : "upper");
    ProgramBuilder b;
    ir::Value* a = b.param(type(DType::F32, {3, 2, 2}), "a");
    ir::Op* c = b.op(K::Cholesky, {a}, {type(DType::F32, {3, 2, 2}), type(DType::S32, {3})},
                     ir::CholeskyAttrs{lower});
    b.output(c->result(0));
    b.output(c->result(1));
    auto out = runCpu(b.program,
                      {array<float>(DType::F32, {3, 2, 2}, {4, 2, 2, 5, 1, 2, 2, 1, -1, 0, 0, 1})});
    ASSERT_EQ(out.size(), 2u);
    std::vector<float> f = values<float>(out[0]);
    // Lower: [[2, (2)], [1, 2]]; upper: [[2, 1], [(2), 2]], (.) kept from a.
    EXPECT_EQ(std::vector<float>(f.begin(), f.begin() + 4),
              lower ? (std::vector<float>{2, 2, 1, 2}) : (std::vector<float>{2, 1, 2, 2}));
    EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{0, 2, 1}));
  }
}

// a = [[2, 0], [1, 4]] (lower; the 7 above the diagonal must not be read), b = [[2, 4], [5, 6]].
// Left, a x = b: x = [[1, 2], [1, 1]]. Left, a^T x = b: x = [[3/8, 5/4], [5/4, 3/2]].
// Right, x a = b: x = [[1/2, 1], [7/4, 3/2]]. Unit diagonal, left: [[1, 0], [1, 1]] x = b gives
// [[2, 4], [3, 2]].
TEST(CpuLinalg, TriangularSolveEveryForm) {
  struct Case {
    ir::TriangularSolveAttrs attrs;
    std::vector<float> expected;
  };
  const std::vector<Case> cases = {
      {{true, true, false, false}, {1, 2, 1, 1}},
      {{true, true, false, true}, {0.375f, 1.25f, 1.25f, 1.5f}},
      {{false, true, false, false}, {0.5f, 1, 1.75f, 1.5f}},
      {{true, true, true, false}, {2, 4, 3, 2}},
  };
  for (const Case& c : cases) {
    ProgramBuilder b;
    ir::Value* a = b.param(type(DType::F32, {2, 2}), "a");
    ir::Value* rhs = b.param(type(DType::F32, {2, 2}), "b");
    b.output(b.op1(K::TriangularSolve, {a, rhs}, type(DType::F32, {2, 2}), c.attrs));
    auto out = runCpu(b.program, {array<float>(DType::F32, {2, 2}, {2, 7, 1, 4}),
                                  array<float>(DType::F32, {2, 2}, {2, 4, 5, 6})});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(values<float>(out[0]), c.expected)
        << "left_side=" << c.attrs.leftSide << " transpose_a=" << c.attrs.transposeA
        << " unit_diagonal=" << c.attrs.unitDiagonal;
  }
}

// [[1, 2], [3, 4]]: row 1 has the larger |pivot|, so the rows swap (pivots 1-based: 2, 2), then
// L = [[1, 0], [1/3, 1]], U = [[3, 4], [0, 2 - 4/3]]. [[0, 0], [0, 1]]: column 0 has no nonzero
// pivot, so info = 1 and nothing moves; the second step pivots on the 1.
TEST(CpuLinalg, LuPivotsAndInfo) {
  ProgramBuilder b;
  ir::Value* a = b.param(type(DType::F32, {2, 2, 2}), "a");
  ir::Op* lu = b.op(K::Lu, {a},
                    {type(DType::F32, {2, 2, 2}), type(DType::S32, {2, 2}), type(DType::S32, {2})});
  for (int i = 0; i < 3; ++i) b.output(lu->result(i));
  auto out = runCpu(b.program, {array<float>(DType::F32, {2, 2, 2}, {1, 2, 3, 4, 0, 0, 0, 1})});
  ASSERT_EQ(out.size(), 3u);
  const std::vector<float> f = values<float>(out[0]);
  const std::vector<float> expected = {3, 4, 1.0f / 3, 2 - 4.0f / 3, 0, 0, 0, 1};
  for (size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(f[i], expected[i], 1e-6) << i;
  EXPECT_EQ(values<int32_t>(out[1]), (std::vector<int32_t>{2, 2, 1, 2}));
  EXPECT_EQ(values<int32_t>(out[2]), (std::vector<int32_t>{0, 1}));
}

// Pivots (0-based) 2, 2, 2 over 3 rows: [0, 1, 2] -> swap 0,2 -> [2, 1, 0] -> swap 1,2 ->
// [2, 0, 1] -> swap 2,2 -> [2, 0, 1]. Pivots 7, -1, 1: the out-of-range ones swap nothing, then
// 2,1 swap: [0, 2, 1].
TEST(CpuLinalg, PivotsToPermutation) {
  ProgramBuilder b;
  ir::Value* p = b.param(type(DType::S32, {2, 3}), "p");
  b.output(b.op1(K::LuPivotsToPermutation, {p}, type(DType::S32, {2, 3})));
  auto out = runCpu(b.program, {array<int32_t>(DType::S32, {2, 3}, {2, 2, 2, 7, -1, 1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{2, 0, 1, 0, 2, 1}));
}

}  // namespace
}  // namespace lf::testing
