// Complex Cholesky, triangular solve and LU: the real algorithms of emit_linalg.cc, step for step,
// on complex values (each matrix two arrays, its real and imaginary parts, as the frontend splits
// every complex array), with the conjugations of LAPACK's zpotf2, ztrsm and zgetf2. Each element is
// read into an lf_cx pair (lf_complex.h), worked on, and written back part by part.
#include <algorithm>

#include "codegen/emitter.h"

namespace lf::codegen {
namespace {

std::string pair(const std::string& re, const std::string& im) {
  return "lf_cx_make(" + re + ", " + im + ")";
}

}  // namespace

// Element `index` of the complex array (re, im) as an lf_cx expression.
std::string Emitter::complexAt(const ir::Value* re, const ir::Value* im, const std::string& index) {
  return pair(at(re, index), at(im, index));
}

// The statements that store the lf_cx expression `value` (a name: it is read twice) at `index`.
void Emitter::storeComplex(const ir::Value* re, const ir::Value* im, const std::string& index,
                           const std::string& value) {
  line(at(re, index) + " = " + value + ".re;");
  line(at(im, index) + " = " + value + ".im;");
}

// a = L L^H (lower) or U^H U (upper, U = L^H). The walk is the real one over a virtual lower
// factor L, whose element (i, j) is stored at (i, j) (lower) or conjugated at (j, i) (upper):
// L[j][j] = sqrt(re a[j][j] - sum_k<j |L[j][k]|^2) (a's imaginary diagonal is not read, and the
// factor's is zero), L[i][j] = (a[i][j] - sum_k<j L[i][k] conj(L[j][k])) / L[j][j].
void Emitter::emitComplexCholesky(const ir::Op& op) {
  const ir::Value* aRe = op.operands[0];
  const ir::Value* aIm = op.operands[1];
  const ir::Value* fRe = op.result(0);
  const ir::Value* fIm = op.result(1);
  const ir::Value* info = op.result(2);
  const int64_t n = aRe->type.dims.back();
  const int64_t matrices = n == 0 ? 0 : aRe->type.numElements() / (n * n);
  const bool lower = op.attr<ir::CholeskyAttrs>().lower;
  const std::string T = cType(aRe->type.dtype);
  const std::string ns = std::to_string(n);
  auto index = [&](const std::string& i, const std::string& j) {
    const std::string& row = lower ? i : j;
    const std::string& col = lower ? j : i;
    return "base + (" + row + ") * " + ns + " + (" + col + ")";
  };
  auto L = [&](const std::string& i, const std::string& j) {
    const std::string v = complexAt(fRe, fIm, index(i, j));
    return lower ? v : "lf_cx_conj(" + v + ")";
  };
  auto storeL = [&](const std::string& i, const std::string& j, const std::string& value) {
    const std::string stored = lower ? value : "lf_cx_conj(" + value + ")";
    open("");
    line("const lf_cx<" + T + "> stored = " + stored + ";");
    storeComplex(fRe, fIm, index(i, j), "stored");
    close();
  };

  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(n * n) + ";");
  copyMatrix(fRe, aRe, "base", n * n);
  copyMatrix(fIm, aIm, "base", n * n);
  line("int32_t info = 0;");
  open("for (int64_t j = 0; j < " + ns + "; ++j)");
  line(T + " d = " + at(fRe, index("j", "j")) + ";");
  open("for (int64_t k = 0; k < j; ++k)");
  line("const lf_cx<" + T + "> l = " + L("j", "k") + ";");
  line("d -= l.re * l.re + l.im * l.im;");
  close();
  open("if (!(d > (" + T + ")0))");
  line("info = (int32_t)(j + 1);");
  line("break;");
  close();
  line("d = lf_sqrt(d);");
  line(at(fRe, index("j", "j")) + " = d;");
  line(at(fIm, index("j", "j")) + " = (" + T + ")0;");
  open("for (int64_t i = j + 1; i < " + ns + "; ++i)");
  line("lf_cx<" + T + "> s = " + L("i", "j") + ";");
  open("for (int64_t k = 0; k < j; ++k)");
  line("s = lf_cx_sub_mul(s, " + L("i", "k") + ", lf_cx_conj(" + L("j", "k") + "));");
  close();
  line("s.re = s.re / d;");
  line("s.im = s.im / d;");
  storeL("i", "j", "s");
  close();
  close();
  line(at(info, "mat") + " = info;");
  close();
  barrier();
}

// The real substitution (emitTriangularSolve) with complex values; with conjugateA every element
// of M = op(a) or op(a)^T is conjugated (x conj(a^T) = b is conj(a) x^T = b^T on the right).
void Emitter::emitComplexTriangularSolve(const ir::Op& op) {
  const ir::Value* aRe = op.operands[0];
  const ir::Value* aIm = op.operands[1];
  const ir::Value* bRe = op.operands[2];
  const ir::Value* bIm = op.operands[3];
  const ir::Value* xRe = op.result(0);
  const ir::Value* xIm = op.result(1);
  const auto& attrs = op.attr<ir::TriangularSolveAttrs>();
  const int r = bRe->type.rank();
  const int64_t m = aRe->type.dims.back();
  const int64_t rows = bRe->type.dims[r - 2], cols = bRe->type.dims[r - 1];
  const int64_t rhs = attrs.leftSide ? cols : rows;
  const int64_t matrices = rows * cols == 0 ? 0 : bRe->type.numElements() / (rows * cols);
  const bool plainA = attrs.leftSide != attrs.transposeA;
  const bool forward = plainA ? attrs.lower : !attrs.lower;
  const std::string T = cType(bRe->type.dtype);
  const std::string ms = std::to_string(m);
  auto M = [&](const std::string& i, const std::string& k) {
    const std::string& row = plainA ? i : k;
    const std::string& col = plainA ? k : i;
    const std::string v = complexAt(aRe, aIm, "abase + (" + row + ") * " + ms + " + (" + col + ")");
    return attrs.conjugateA ? "lf_cx_conj(" + v + ")" : v;
  };
  auto xIndex = [&](const std::string& i) {
    return attrs.leftSide ? "xbase + (" + i + ") * " + std::to_string(cols) + " + v"
                          : "xbase + v * " + std::to_string(cols) + " + (" + i + ")";
  };

  openParallelLoop(matrices, "mat");
  line("const int64_t abase = mat * " + std::to_string(m * m) + ";");
  line("const int64_t xbase = mat * " + std::to_string(rows * cols) + ";");
  copyMatrix(xRe, bRe, "xbase", rows * cols);
  copyMatrix(xIm, bIm, "xbase", rows * cols);
  open("for (int64_t v = 0; v < " + std::to_string(rhs) + "; ++v)");
  if (forward) {
    open("for (int64_t i = 0; i < " + ms + "; ++i)");
    line("lf_cx<" + T + "> s = " + complexAt(xRe, xIm, xIndex("i")) + ";");
    open("for (int64_t k = 0; k < i; ++k)");
  } else {
    open("for (int64_t i = " + ms + " - 1; i >= 0; --i)");
    line("lf_cx<" + T + "> s = " + complexAt(xRe, xIm, xIndex("i")) + ";");
    open("for (int64_t k = " + ms + " - 1; k > i; --k)");
  }
  line("s = lf_cx_sub_mul(s, " + M("i", "k") + ", " + complexAt(xRe, xIm, xIndex("k")) + ");");
  close();
  if (!attrs.unitDiagonal) line("s = lf_cx_div(s, " + M("i", "i") + ");");
  storeComplex(xRe, xIm, xIndex("i"), "s");
  close();
  close();
  close();
  barrier();
}

// The real getf2 (emitLu) with complex values: the pivot is the first row with the largest
// |re| + |im| in the column (izamax's measure, so that the pivots are LAPACK's).
void Emitter::emitComplexLu(const ir::Op& op) {
  const ir::Value* aRe = op.operands[0];
  const ir::Value* aIm = op.operands[1];
  const ir::Value* luRe = op.result(0);
  const ir::Value* luIm = op.result(1);
  const ir::Value* pivots = op.result(2);
  const ir::Value* info = op.result(3);
  const int r = aRe->type.rank();
  const int64_t m = aRe->type.dims[r - 2], n = aRe->type.dims[r - 1], k = std::min(m, n);
  const int64_t matrices = m * n == 0 ? 0 : aRe->type.numElements() / (m * n);
  const std::string T = cType(aRe->type.dtype);
  const std::string C = "lf_cx<" + T + ">";
  const std::string ms = std::to_string(m), ns = std::to_string(n);
  auto index = [&](const std::string& i, const std::string& j) {
    return "base + (" + i + ") * " + ns + " + (" + j + ")";
  };
  auto LU = [&](const std::string& i, const std::string& j) {
    return complexAt(luRe, luIm, index(i, j));
  };

  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(luRe, aRe, "base", m * n);
  copyMatrix(luIm, aIm, "base", m * n);
  line("int32_t info = 0;");
  open("for (int64_t j = 0; j < " + std::to_string(k) + "; ++j)");
  line("int64_t p = j;");
  line(T + " best = lf_cx_abs1(" + LU("j", "j") + ");");
  open("for (int64_t i = j + 1; i < " + ms + "; ++i)");
  line("const " + T + " v = lf_cx_abs1(" + LU("i", "j") + ");");
  open("if (v > best)");
  line("best = v;");
  line("p = i;");
  close();
  close();
  line(at(pivots, "mat * " + std::to_string(k) + " + j") + " = (int32_t)(p + 1);");
  open("if (!lf_cx_is_zero(" + LU("p", "j") + "))");
  open("if (p != j)");
  open("for (int64_t l = 0; l < " + ns + "; ++l)");
  line("const " + C + " t = " + LU("j", "l") + ";");
  line("const " + C + " u = " + LU("p", "l") + ";");
  storeComplex(luRe, luIm, index("j", "l"), "u");
  storeComplex(luRe, luIm, index("p", "l"), "t");
  close();
  close();
  line("const " + C + " d = " + LU("j", "j") + ";");
  open("for (int64_t i = j + 1; i < " + ms + "; ++i)");
  line("const " + C + " q = lf_cx_div(" + LU("i", "j") + ", d);");
  storeComplex(luRe, luIm, index("i", "j"), "q");
  close();
  close("");
  open("else if (info == 0)");
  line("info = (int32_t)(j + 1);");
  close();
  open("for (int64_t i = j + 1; i < " + ms + "; ++i)");
  line("const " + C + " f = " + LU("i", "j") + ";");
  open("for (int64_t l = j + 1; l < " + ns + "; ++l)");
  line("const " + C + " e = lf_cx_sub_mul(" + LU("i", "l") + ", f, " + LU("j", "l") + ");");
  storeComplex(luRe, luIm, index("i", "l"), "e");
  close();
  close();
  close();
  line(at(info, "mat") + " = info;");
  close();
  barrier();
}

}  // namespace lf::codegen
