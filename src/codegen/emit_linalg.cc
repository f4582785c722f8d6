// Cholesky, triangular solve and LU: one matrix per SPMD iteration, each solved by one thread in
// the textbook order (small matrices, as samplers and filters use them). Results are within the
// float tolerances of LAPACK's, not bit-exact: LAPACK's blocked kernels sum in their own order.
#include <algorithm>

#include "codegen/emitter.h"

namespace lf::codegen {

// The matrix at `base` of `from` copied into `to`: each solver starts from its input and then
// works in place in its result.
void Emitter::copyMatrix(const ir::Value* to, const ir::Value* from, const std::string& base,
                         int64_t elements) {
  open("for (int64_t e = 0; e < " + std::to_string(elements) + "; ++e)");
  line(at(to, base + " + e") + " = " + at(from, base + " + e") + ";");
  close();
}

// The factor starts as a copy of `a` (so the other triangle keeps a's values, as LAPACK's potrf
// leaves it); column j then gets L[j][j] = sqrt(a[j][j] - sum_k<j L[j][k]^2) and
// L[i][j] = (a[i][j] - sum_k<j L[i][k] L[j][k]) / L[j][j]. A pivot that is not positive (or NaN)
// stops the matrix with info = j + 1. The upper factor is the same walk over the transpose.
void Emitter::emitCholesky(const ir::Op& op) {
  if (op.operands.size() == 2) return emitComplexCholesky(op);
  const ir::Value* a = op.operands[0];
  const ir::Value* factor = op.result(0);
  const ir::Value* info = op.result(1);
  const int64_t n = a->type.dims.back();
  const int64_t matrices = n == 0 ? 0 : a->type.numElements() / (n * n);
  const bool lower = op.attr<ir::CholeskyAttrs>().lower;
  const std::string T = cType(a->type.dtype);
  const std::string ns = std::to_string(n);
  auto F = [&](const std::string& i, const std::string& j) {
    const std::string& row = lower ? i : j;
    const std::string& col = lower ? j : i;
    return at(factor, "base + (" + row + ") * " + ns + " + (" + col + ")");
  };

  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(n * n) + ";");
  copyMatrix(factor, a, "base", n * n);
  line("int32_t info = 0;");
  open("for (int64_t j = 0; j < " + ns + "; ++j)");
  line(T + " d = " + F("j", "j") + ";");
  open("for (int64_t k = 0; k < j; ++k)");
  line("d -= " + F("j", "k") + " * " + F("j", "k") + ";");
  close();
  open("if (!(d > (" + T + ")0))");
  line("info = (int32_t)(j + 1);");
  line("break;");
  close();
  line("d = lf_sqrt(d);");
  line(F("j", "j") + " = d;");
  open("for (int64_t i = j + 1; i < " + ns + "; ++i)");
  line(T + " s = " + F("i", "j") + ";");
  open("for (int64_t k = 0; k < j; ++k)");
  line("s -= " + F("i", "k") + " * " + F("j", "k") + ";");
  close();
  line(F("i", "j") + " = s / d;");
  close();
  close();
  line(at(info, "mat") + " = info;");
  close();
  barrier();
}

// x starts as a copy of b; each right-hand side (a column of b for a left-side solve, a row for a
// right-side one) is then solved in place by substitution. Both cases are a triangular system
// M y = r: M = op(a) on the left, op(a)^T on the right (x op(a) = b is op(a)^T x^T = b^T), so M is
// a or a^T, lower or upper. Forward substitution sums k ascending, backward k descending: the
// order of the reference BLAS trsm.
void Emitter::emitTriangularSolve(const ir::Op& op) {
  if (op.operands.size() == 4) return emitComplexTriangularSolve(op);
  const ir::Value* a = op.operands[0];
  const ir::Value* b = op.operands[1];
  const ir::Value* x = op.result();
  const auto& attrs = op.attr<ir::TriangularSolveAttrs>();
  const int r = b->type.rank();
  const int64_t m = a->type.dims.back();
  const int64_t rows = b->type.dims[r - 2], cols = b->type.dims[r - 1];
  const int64_t rhs = attrs.leftSide ? cols : rows;  // right-hand sides per matrix
  const int64_t matrices = rows * cols == 0 ? 0 : b->type.numElements() / (rows * cols);
  const bool plainA = attrs.leftSide != attrs.transposeA;  // M = a (else a^T)
  const bool forward = plainA ? attrs.lower : !attrs.lower;
  const std::string T = cType(b->type.dtype);
  const std::string ms = std::to_string(m);
  auto M = [&](const std::string& i, const std::string& k) {
    const std::string& row = plainA ? i : k;
    const std::string& col = plainA ? k : i;
    return at(a, "abase + (" + row + ") * " + ms + " + (" + col + ")");
  };
  // Element i of right-hand side `v` of this matrix.
  auto X = [&](const std::string& i) {
    return at(x, attrs.leftSide ? "xbase + (" + i + ") * " + std::to_string(cols) + " + v"
                                : "xbase + v * " + std::to_string(cols) + " + (" + i + ")");
  };

  openParallelLoop(matrices, "mat");
  line("const int64_t abase = mat * " + std::to_string(m * m) + ";");
  line("const int64_t xbase = mat * " + std::to_string(rows * cols) + ";");
  copyMatrix(x, b, "xbase", rows * cols);
  open("for (int64_t v = 0; v < " + std::to_string(rhs) + "; ++v)");
  if (forward) {
    open("for (int64_t i = 0; i < " + ms + "; ++i)");
    line(T + " s = " + X("i") + ";");
    open("for (int64_t k = 0; k < i; ++k)");
  } else {
    open("for (int64_t i = " + ms + " - 1; i >= 0; --i)");
    line(T + " s = " + X("i") + ";");
    open("for (int64_t k = " + ms + " - 1; k > i; --k)");
  }
  line("s -= " + M("i", "k") + " * " + X("k") + ";");
  close();
  line(X("i") + " = " + (attrs.unitDiagonal ? "s" : "s / " + M("i", "i")) + ";");
  close();
  close();
  close();
  barrier();
}

// LAPACK's getf2 (partial pivoting): at step j the pivot is the first row at or below j with the
// largest |value| in column j (a NaN never wins, as in idamax); rows j and p swap across the whole
// matrix, the column below the pivot is divided by it, and the trailing block gets the rank-one
// update. A zero pivot skips the swap and the division and sets info = j + 1 (the first one).
void Emitter::emitLu(const ir::Op& op) {
  if (op.operands.size() == 2) return emitComplexLu(op);
  const ir::Value* a = op.operands[0];
  const ir::Value* lu = op.result(0);
  const ir::Value* pivots = op.result(1);
  const ir::Value* info = op.result(2);
  const int r = a->type.rank();
  const int64_t m = a->type.dims[r - 2], n = a->type.dims[r - 1], k = std::min(m, n);
  const int64_t matrices = m * n == 0 ? 0 : a->type.numElements() / (m * n);
  const std::string T = cType(a->type.dtype);
  const std::string ms = std::to_string(m), ns = std::to_string(n);
  auto LU = [&](const std::string& i, const std::string& j) {
    return at(lu, "base + (" + i + ") * " + ns + " + (" + j + ")");
  };

  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(lu, a, "base", m * n);
  line("int32_t info = 0;");
  open("for (int64_t j = 0; j < " + std::to_string(k) + "; ++j)");
  line("int64_t p = j;");
  line(T + " best = lf_abs(" + LU("j", "j") + ");");
  open("for (int64_t i = j + 1; i < " + ms + "; ++i)");
  line("const " + T + " v = lf_abs(" + LU("i", "j") + ");");
  open("if (v > best)");
  line("best = v;");
  line("p = i;");
  close();
  close();
  line(at(pivots, "mat * " + std::to_string(k) + " + j") + " = (int32_t)(p + 1);");
  open("if (" + LU("p", "j") + " != (" + T + ")0)");
  open("if (p != j)");
  open("for (int64_t l = 0; l < " + ns + "; ++l)");
  line("const " + T + " t = " + LU("j", "l") + ";");
  line(LU("j", "l") + " = " + LU("p", "l") + ";");
  line(LU("p", "l") + " = t;");
  close();
  close();
  line("const " + T + " d = " + LU("j", "j") + ";");
  open("for (int64_t i = j + 1; i < " + ms + "; ++i)");
  line(LU("i", "j") + " = " + LU("i", "j") + " / d;");
  close();
  close("");
  open("else if (info == 0)");
  line("info = (int32_t)(j + 1);");
  close();
  open("for (int64_t i = j + 1; i < " + ms + "; ++i)");
  open("for (int64_t l = j + 1; l < " + ns + "; ++l)");
  line(LU("i", "l") + " -= " + LU("i", "j") + " * " + LU("j", "l") + ";");
  close();
  close();
  close();
  line(at(info, "mat") + " = info;");
  close();
  barrier();
}

// The permutation the row swaps make: iota, then entries i and pivots[i] swapped in order (a pivot
// outside [0, m) swaps nothing).
void Emitter::emitPivotsToPermutation(const ir::Op& op) {
  const ir::Value* pivots = op.operands[0];
  const ir::Value* perm = op.result();
  const int64_t k = pivots->type.dims.back();
  const int64_t m = perm->type.dims.back();
  const int64_t rows = m == 0 ? 0 : perm->type.numElements() / m;
  const std::string ks = std::to_string(k), ms = std::to_string(m);
  openParallelLoop(rows, "row");
  open("for (int64_t e = 0; e < " + ms + "; ++e)");
  line(at(perm, "row * " + ms + " + e") + " = (int32_t)e;");
  close();
  open("for (int64_t i = 0; i < " + ks + "; ++i)");
  line("const int64_t j = " + at(pivots, "row * " + ks + " + i") + ";");
  open("if (j >= 0 && j < " + ms + ")");
  line("const int32_t t = " + at(perm, "row * " + ms + " + i") + ";");
  line(at(perm, "row * " + ms + " + i") + " = " + at(perm, "row * " + ms + " + j") + ";");
  line(at(perm, "row * " + ms + " + j") + " = t;");
  close();
  close();
  close();
  barrier();
}

}  // namespace lf::codegen
