// Tridiagonal systems as LAPACK's gtsv solves them (jax's lax.linalg.tridiagonal_solve on the CPU
// calls it): Gaussian elimination with partial pivoting between rows k and k+1, then the back
// substitution through U's three diagonals. gtsv does both at once; here the elimination of the
// diagonals (tridiagonal-factor, one system per SPMD iteration) and its replay on each column of
// the right-hand side (tridiagonal-solve, one column per SPMD iteration) are two ops, so that a
// factorization of loop-invariant diagonals leaves the loop and a vmap over the right-hand sides
// batch-maps. The operations and their order are gtsv's, so the results are its bits. jax's
// diagonals are n long (dl[0] and du[n-1] are padding): gtsv's DL(i) is dl[i] here, its DU(i)
// du[i-1].
#include "codegen/emitter.h"

namespace lf::codegen {

void Emitter::emitTridiagonalFactor(const ir::Op& op) {
  const ir::Value* dlIn = op.operands[0];
  const ir::Value* dIn = op.operands[1];
  const ir::Value* duIn = op.operands[2];
  const ir::Value* dl = op.result(0);
  const ir::Value* d = op.result(1);
  const ir::Value* du = op.result(2);
  const ir::Value* mult = op.result(3);
  const ir::Value* swapped = op.result(4);
  const ir::Value* info = op.result(5);
  const int64_t n = dIn->type.dims.back();
  const int64_t systems = info->type.numElements();  // an empty system too: gtsv gives info 0
  const std::string T = cType(dIn->type.dtype);
  const std::string ns = std::to_string(n);
  auto DL = [&](const std::string& i) { return at(dl, "base + (" + i + ")"); };
  auto D = [&](const std::string& i) { return at(d, "base + (" + i + ")"); };
  auto DU = [&](const std::string& i) { return at(du, "base + (" + i + ")"); };

  openParallelLoop(systems, "sys");
  line("const int64_t base = sys * " + ns + ";");
  open("for (int64_t e = 0; e < " + ns + "; ++e)");
  line(DL("e") + " = " + at(dlIn, "base + e") + ";");
  line(D("e") + " = " + at(dIn, "base + e") + ";");
  line(DU("e") + " = " + at(duIn, "base + e") + ";");
  line(at(mult, "base + e") + " = (" + T + ")0;");
  line(at(swapped, "base + e") + " = false;");
  close();
  line("int32_t info = 0;");
  open("for (int64_t k = 0; k + 1 < " + ns + "; ++k)");
  // The last step (gtsv's I = N-1) has no row k+2 to fill in or to clear.
  line("const bool last = k + 2 == " + ns + ";");
  // A NaN compares false, and takes the interchange, as in gtsv.
  open("if (lf_abs(" + D("k") + ") >= lf_abs(" + DL("k + 1") + "))");
  open("if (" + D("k") + " == (" + T + ")0)");
  line("info = (int32_t)(k + 1);");
  line("break;");
  close();
  line("const " + T + " fact = " + DL("k + 1") + " / " + D("k") + ";");
  line(D("k + 1") + " = " + D("k + 1") + " - fact * " + DU("k") + ";");
  line(at(mult, "base + k") + " = fact;");
  open("if (!last)");
  line(DL("k + 1") + " = (" + T + ")0;");
  close();
  close("");
  open("else");
  line("const " + T + " fact = " + D("k") + " / " + DL("k + 1") + ";");
  line(D("k") + " = " + DL("k + 1") + ";");
  line("const " + T + " temp = " + D("k + 1") + ";");
  line(D("k + 1") + " = " + DU("k") + " - fact * temp;");
  open("if (!last)");
  line(DL("k + 1") + " = " + DU("k + 1") + ";");
  line(DU("k + 1") + " = -fact * " + DL("k + 1") + ";");
  close();
  line(DU("k") + " = temp;");
  line(at(mult, "base + k") + " = fact;");
  line(at(swapped, "base + k") + " = true;");
  close();
  close();
  if (n > 0) {
    open("if (info == 0 && " + D(std::to_string(n - 1)) + " == (" + T + ")0)");
    line("info = (int32_t)" + ns + ";");
    close();
  }
  line(at(info, "sys") + " = info;");
  close();
  barrier();
}

// Each column replays the factorization's row operations (up to where it stopped), then, when
// the factorization succeeded, solves U x = y from the bottom row up.
void Emitter::emitTridiagonalSolve(const ir::Op& op) {
  const ir::Value* dl = op.operands[0];
  const ir::Value* d = op.operands[1];
  const ir::Value* du = op.operands[2];
  const ir::Value* mult = op.operands[3];
  const ir::Value* swapped = op.operands[4];
  const ir::Value* info = op.operands[5];
  const ir::Value* b = op.operands[6];
  const ir::Value* x = op.result();
  const int64_t n = d->type.dims.back();
  const int64_t k = b->type.dims.back();
  const int64_t columns = info->type.numElements() * k;
  if (n == 0 || columns == 0) return;  // x has no elements
  const std::string T = cType(b->type.dtype);
  const std::string ns = std::to_string(n), ks = std::to_string(k);
  auto X = [&](const std::string& i) { return at(x, "xbase + (" + i + ") * " + ks); };
  auto DL = [&](const std::string& i) { return at(dl, "base + (" + i + ")"); };
  auto D = [&](const std::string& i) { return at(d, "base + (" + i + ")"); };
  auto DU = [&](const std::string& i) { return at(du, "base + (" + i + ")"); };

  openParallelLoop(columns, "col");
  line("const int64_t sys = col / " + ks + ";");
  line("const int64_t base = sys * " + ns + ";");
  line("const int64_t xbase = sys * " + std::to_string(n * k) + " + col % " + ks + ";");
  open("for (int64_t i = 0; i < " + ns + "; ++i)");
  line(X("i") + " = " + at(b, "xbase + i * " + ks) + ";");
  close();
  line("const int32_t info = " + at(info, "sys") + ";");
  line("const int64_t steps = info == 0 ? " + ns + " - 1 : (int64_t)info - 1;");
  open("for (int64_t i = 0; i < steps; ++i)");
  line("const " + T + " fact = " + at(mult, "base + i") + ";");
  open("if (" + at(swapped, "base + i") + ")");
  line("const " + T + " temp = " + X("i") + ";");
  line(X("i") + " = " + X("i + 1") + ";");
  line(X("i + 1") + " = temp - fact * " + X("i + 1") + ";");
  close("");
  open("else");
  line(X("i + 1") + " = " + X("i + 1") + " - fact * " + X("i") + ";");
  close();
  close();
  open("if (info == 0)");
  line(X(std::to_string(n - 1)) + " = " + X(std::to_string(n - 1)) + " / " +
       D(std::to_string(n - 1)) + ";");
  if (n > 1) {
    const std::string m2 = std::to_string(n - 2);
    line(X(m2) + " = (" + X(m2) + " - " + DU(m2) + " * " + X(std::to_string(n - 1)) + ") / " +
         D(m2) + ";");
  }
  open("for (int64_t i = " + ns + " - 3; i >= 0; --i)");
  line(X("i") + " = (" + X("i") + " - " + DU("i") + " * " + X("i + 1") + " - " + DL("i + 1") +
       " * " + X("i + 2") + ") / " + D("i") + ";");
  close();
  close();
  close();
  barrier();
}

}  // namespace lf::codegen
