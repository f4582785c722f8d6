// Cholesky and triangular solve on the CPU, against values worked out by hand: both triangles,
// a failed factorization's info, and every side / transpose / unit-diagonal form of the solve.
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

}  // namespace
}  // namespace lf::testing
