// tridiagonal_solve(..., perturb_singular=True): jax's own kernel (jaxlib's
// tridiagonal_solve_perturbed.h, which follows LAPACK's lagtf and lagts), step for step, so that
// its bits are jax's. One thread per system: the elimination with the scaled partial pivoting
// lagtf uses (|pivot| / row scale), U's three diagonals in a local array, then the back
// substitution, whose pivots below eps max|U| are perturbed (or the row scaled up) until neither
// the row / pivot nor 1 / pivot overflows. Inverse iteration (jax.scipy.linalg.eigh_tridiagonal's
// eigenvectors) solves such nearly singular systems.
#include "codegen/emitter.h"

namespace lf::codegen {

void Emitter::emitTridiagonalSolvePerturbed(const ir::Op& op) {
  const ir::Value* dl = op.operands[0];
  const ir::Value* d = op.operands[1];
  const ir::Value* du = op.operands[2];
  const ir::Value* b = op.operands[3];
  const ir::Value* x = op.result();
  const int64_t n = d->type.dims.back();
  const int64_t k = b->type.dims.back();
  const int64_t systems = n == 0 ? 0 : d->type.numElements() / n;
  if (n == 0 || k == 0 || systems == 0) return;  // x has no elements
  const std::string T = cType(d->type.dtype);
  const std::string ns = std::to_string(n), ks = std::to_string(k);
  auto diag = [&](const ir::Value* v, const std::string& i) { return at(v, "base + (" + i + ")"); };
  auto B = [&](const std::string& i) { return at(b, "xbase + (" + i + ") * " + ks + " + c"); };
  auto X = [&](const std::string& i) { return at(x, "xbase + (" + i + ") * " + ks + " + c"); };
  auto U = [](const std::string& i, int j) { return "u[" + i + "][" + std::to_string(j) + "]"; };
  auto columns = [&] { open("for (int64_t c = 0; c < " + ks + "; ++c)"); };
  const std::string one = "(" + T + ")1";
  // std::max(a, b): b when a < b, else a.
  auto maxOf = [](const std::string& a, const std::string& b) {
    return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
  };
  // MaybePerturbPivot(perturb, p, row): row holds the k right-hand sides of this row.
  auto perturbPivot = [&](const std::string& perturb) {
    open("");
    line("T_ pert = " + perturb + ";");
    line("T_ abs_p = lf_abs(p);");
    open("if (abs_p < " + one + ")");
    line("pert = lf_la_sign(" + maxOf("lf_abs(pert)", "safemin") + ", p);");
    line("T_ max_factor = lf_abs(row[0]);");
    open("for (int64_t c = 1; c < " + ks + "; ++c)");
    line("max_factor = " + maxOf("max_factor", "lf_abs(row[c])") + ";");
    close();
    line("bool stop = false;");
    open("while (abs_p < " + one + " && !stop)");
    open("if (abs_p < safemin)");
    open("if (abs_p == (T_)0 || max_factor * safemin > abs_p)");
    line("p += pert;");
    line("pert *= (T_)2;");
    close("");
    open("else");
    line("p *= bignum;");
    open("for (int64_t c = 0; c < " + ks + "; ++c)");
    line("row[c] *= bignum;");
    close();
    line("stop = true;");
    close();
    close("");
    open("else if (max_factor > abs_p * bignum)");
    line("p += pert;");
    line("pert *= (T_)2;");
    close("");
    open("else");
    line("stop = true;");
    close();
    line("abs_p = lf_abs(p);");
    close();
    close();
    close();
  };

  openParallelLoop(systems, "sys");
  line("typedef " + T + " T_;");
  line("const int64_t base = sys * " + ns + ";");
  line("const int64_t xbase = sys * " + std::to_string(n * k) + ";");
  // xLAMCH's safe minimum: 1 / max is below the smallest normal for f32 and f64.
  line("const T_ safemin = lf_la_limits<T_>::safmin, bignum = (T_)1 / safemin;");
  line("const T_ eps = (T_)2 * lf_la_limits<T_>::eps;  // std::numeric_limits::epsilon()");
  line("T_ row[" + ks + "];");
  line("T_ p;");
  if (n == 1) {
    line("p = " + diag(d, "0") + ";");
    columns();
    line("row[c] = " + B("0") + ";");
    close();
    perturbPivot("eps * lf_abs(p)");
    columns();
    line(X("0") + " = row[c] / p;");
    close();
    close();
    barrier();
    return;
  }
  line("T_ u[" + ns + "][3];");
  open("for (int64_t i = 0; i < " + ns + "; ++i)");
  line("u[i][0] = u[i][1] = u[i][2] = (T_)0;");
  close();
  line(U("0", 0) + " = " + diag(d, "0") + ";");
  line(U("0", 1) + " = " + diag(du, "0") + ";");
  line("T_ max_abs_u = " + maxOf("lf_abs(u[0][0])", "lf_abs(u[0][1])") + ";");
  line("T_ scale1 = lf_abs(u[0][0]) + lf_abs(u[0][1]);");
  columns();
  line(X("0") + " = " + B("0") + ";");
  close();
  open("for (int64_t k = 0; k < " + ns + " - 1; ++k)");
  // du[n-1] (jax's padding) is read too, as jaxlib reads it, where it does not count.
  line("const T_ sub = " + diag(dl, "k + 1") + ", dk1 = " + diag(d, "k + 1") +
       ", sup = " + diag(du, "k + 1") + ";");
  line(U("k + 1", 0) + " = dk1;");
  line("T_ scale2 = lf_abs(sub) + lf_abs(u[k + 1][0]);");
  line("if (k < " + ns + " - 2) scale2 += lf_abs(sup);");
  open("if (sub == (T_)0)");
  line("scale1 = scale2;");
  line(U("k + 1", 1) + " = sup;");
  line(U("k", 2) + " = (T_)0;");
  columns();
  line(X("k + 1") + " = " + B("k + 1") + ";");
  close();
  close("");
  open("else");
  line("const T_ piv1 = u[k][0] == (T_)0 ? (T_)0 : lf_abs(u[k][0]) / scale1;");
  line("const T_ piv2 = lf_abs(sub) / scale2;");
  open("if (piv2 <= piv1)");
  line("scale1 = scale2;");
  line("const T_ factor = sub / u[k][0];");
  line(U("k + 1", 0) + " = u[k + 1][0] - factor * u[k][1];");
  line(U("k + 1", 1) + " = sup;");
  line(U("k", 2) + " = (T_)0;");
  columns();
  line(X("k + 1") + " = " + B("k + 1") + " - factor * " + X("k") + ";");
  close();
  close("");
  open("else");
  line("const T_ factor = u[k][0] / sub;");
  line("const T_ utmp = u[k][1];");
  line(U("k", 0) + " = sub;");
  line(U("k + 1", 0) + " = utmp - factor * dk1;");
  line(U("k", 1) + " = dk1;");
  open("if (k < " + ns + " - 2)");
  line(U("k", 2) + " = sup;");
  line(U("k + 1", 1) + " = -factor * sup;");
  close();
  columns();
  line(X("k + 1") + " = " + X("k") + " - factor * " + B("k + 1") + ";");
  line(X("k") + " = " + B("k + 1") + ";");
  close();
  line("scale1 = lf_abs(u[k + 1][0]) + lf_abs(u[k + 1][1]);");
  close();
  close();
  open("if (k < " + ns + " - 2)");
  open("for (int j = 0; j < 3; ++j)");
  line("max_abs_u = " + maxOf("max_abs_u", "lf_abs(u[k][j])") + ";");
  close();
  close();
  close();
  line("max_abs_u = " + maxOf("max_abs_u", "lf_abs(u[" + std::to_string(n - 1) + "][0])") + ";");
  line("const T_ perturb = eps * max_abs_u;");
  // Back substitution: each row's right-hand sides into `row`, its pivot perturbed, then
  // row * (1 / pivot), as jax writes it (not row / pivot).
  auto solveRow = [&](const std::string& i, const std::string& rhs, const std::string& perturb) {
    line("p = u[" + i + "][0];");
    columns();
    line("row[c] = " + rhs + ";");
    close();
    perturbPivot(perturb);
    open("");
    line("const T_ inv = (T_)1 / p;");
    columns();
    line(at(x, "xbase + (" + i + ") * " + ks + " + c") + " = row[c] * inv;");
    close();
    close();
  };
  const std::string last = std::to_string(n - 1), m2 = std::to_string(n - 2);
  solveRow(last, X(last), "perturb");
  solveRow(m2, X(m2) + " - u[" + m2 + "][1] * " + X(last), "lf_la_sign(perturb, p)");
  open("for (int64_t i = " + ns + " - 3; i >= 0; --i)");
  solveRow("i", X("i") + " - u[i][1] * " + X("i + 1") + " - u[i][2] * " + X("i + 2"),
           "lf_la_sign(perturb, p)");
  close();
  close();
  barrier();
}

}  // namespace lf::codegen
