// Tridiagonal systems as LAPACK's gtsv solves them (jax's lax.linalg.tridiagonal_solve on the CPU
// calls it): Gaussian elimination with partial pivoting between rows k and k+1, then the back
// substitution through U's three diagonals. gtsv does both at once; here the elimination of the
// diagonals (tridiagonal-factor, one system per SPMD iteration) and its replay on the columns of
// the right-hand side (tridiagonal-solve) are two ops, so that a factorization of loop-invariant
// diagonals leaves the loop and a vmap over the right-hand sides batch-maps. The operations and
// their order are gtsv's (cgtsv's for complex systems, with LAPACK's complex formulas of
// lf_complex.h), so the results are its bits. jax's diagonals are n long (dl[0] and du[n-1] are
// padding): gtsv's DL(i) is dl[i] here, its DU(i) du[i-1].
#include "codegen/emitter.h"

namespace lf::codegen {
namespace {

// The arithmetic of real or complex elements as C expressions (operands are names or
// expressions without side effects; complex ones may be read twice).
struct Field {
  bool complex = false;
  std::string real;  // the float type of a part

  std::string type() const { return complex ? "lf_cx<" + real + ">" : real; }
  std::string mul(const std::string& a, const std::string& b) const {
    return complex ? "lf_cx_mul(" + a + ", " + b + ")" : "(" + a + " * " + b + ")";
  }
  std::string sub(const std::string& a, const std::string& b) const {
    return complex ? "lf_cx_sub(" + a + ", " + b + ")" : "(" + a + " - " + b + ")";
  }
  std::string div(const std::string& a, const std::string& b) const {
    return complex ? "lf_cx_div(" + a + ", " + b + ")" : "(" + a + " / " + b + ")";
  }
  // -(a b), Fortran's -MULT*DL(K): the product negated (for complex numbers not (-a) b, whose
  // zeros' signs can differ).
  std::string negatedProduct(const std::string& a, const std::string& b) const {
    if (!complex) return "-(" + a + " * " + b + ")";
    return "lf_cx_sub(" + type() + "{(" + real + ")0, (" + real + ")0}, lf_cx_mul(" + a + ", " + b +
           "))";
  }
  std::string isZero(const std::string& a) const {
    return complex ? "lf_cx_is_zero(" + a + ")" : "(" + a + " == (" + real + ")0)";
  }
  std::string zero() const {
    return complex ? type() + "{(" + real + ")0, (" + real + ")0}" : "(" + real + ")0";
  }
};

}  // namespace

// Element `index` of `parts` (one real array, or a complex one's real and imaginary parts).
std::string Emitter::fieldAt(const std::vector<const ir::Value*>& parts, const std::string& index) {
  if (parts.size() == 1) return at(parts[0], index);
  return complexAt(parts[0], parts[1], index);
}

// Stores `value` (a name, or for real parts any expression) at `index` of `parts`.
void Emitter::storeField(const std::vector<const ir::Value*>& parts, const std::string& index,
                         const std::string& value) {
  if (parts.size() == 1) {
    line(at(parts[0], index) + " = " + value + ";");
    return;
  }
  storeComplex(parts[0], parts[1], index, value);
}

// gtsv (real) or cgtsv (complex) on the diagonals, recording each step's multiplier and kind.
void Emitter::emitTridiagonalFactor(const ir::Op& op) {
  const size_t parts = op.operands.size() / 3;
  auto group = [&](const std::vector<ir::Value*>& vs, size_t first) {
    return std::vector<const ir::Value*>(vs.begin() + static_cast<std::ptrdiff_t>(first),
                                         vs.begin() + static_cast<std::ptrdiff_t>(first + parts));
  };
  std::vector<ir::Value*> results;
  for (const auto& r : op.results) results.push_back(r.get());
  const auto dlIn = group(op.operands, 0), dIn = group(op.operands, parts),
             duIn = group(op.operands, 2 * parts);
  const auto dl = group(results, 0), d = group(results, parts), du = group(results, 2 * parts),
             mult = group(results, 3 * parts);
  const ir::Value* steps = op.result(static_cast<int>(4 * parts));
  const ir::Value* info = op.result(static_cast<int>(4 * parts + 1));
  const int64_t n = op.operands[0]->type.dims.back();
  const int64_t systems = info->type.numElements();  // an empty system too: gtsv gives info 0
  const Field F{parts == 2, cType(op.operands[0]->type.dtype)};
  const std::string S = F.type();
  const std::string ns = std::to_string(n);
  auto idx = [](const std::string& i) { return "base + (" + i + ")"; };
  auto DL = [&](const std::string& i) { return fieldAt(dl, idx(i)); };
  auto D = [&](const std::string& i) { return fieldAt(d, idx(i)); };
  auto DU = [&](const std::string& i) { return fieldAt(du, idx(i)); };
  auto set = [&](const std::vector<const ir::Value*>& to, const std::string& i,
                 const std::string& value) {
    if (!F.complex) return storeField(to, idx(i), value);
    open("");
    line("const " + S + " v_ = " + value + ";");
    storeField(to, idx(i), "v_");
    close();
  };
  auto step = [&](uint8_t kind) {
    line(at(steps, "base + k") + " = (uint8_t)" + std::to_string(kind) + ";");
  };

  openParallelLoop(systems, "sys");
  line("const int64_t base = sys * " + ns + ";");
  open("for (int64_t e = 0; e < " + ns + "; ++e)");
  set(dl, "e", fieldAt(dlIn, "base + e"));
  set(d, "e", fieldAt(dIn, "base + e"));
  set(du, "e", fieldAt(duIn, "base + e"));
  set(mult, "e", F.zero());
  line(at(steps, "base + e") + " = (uint8_t)" + std::to_string(ir::kTridiagonalEliminate) + ";");
  close();
  line("int32_t info = 0;");
  open("for (int64_t k = 0; k + 1 < " + ns + "; ++k)");
  // The last step (gtsv's I = N-1) has no row k+2 to fill in or to clear.
  line("const bool last = k + 2 == " + ns + ";");
  auto eliminate = [&] {
    line("const " + S + " fact = " + F.div(DL("k + 1"), D("k")) + ";");
    set(d, "k + 1", F.sub(D("k + 1"), F.mul("fact", DU("k"))));
    set(mult, "k", "fact");
    open("if (!last)");
    set(dl, "k + 1", F.zero());
    close();
  };
  if (!F.complex) {
    // gtsv: a NaN compares false, and takes the interchange.
    open("if (lf_abs(" + D("k") + ") >= lf_abs(" + DL("k + 1") + "))");
    open("if (" + F.isZero(D("k")) + ")");
    line("info = (int32_t)(k + 1);");
    line("break;");
    close();
  } else {
    // cgtsv: a zero sub-diagonal needs no elimination; the pivot by |re| + |im| (CABS1).
    open("if (" + F.isZero(DL("k + 1")) + ")");
    open("if (" + F.isZero(D("k")) + ")");
    line("info = (int32_t)(k + 1);");
    line("break;");
    close();
    step(ir::kTridiagonalSkip);
    close("");
    open("else if (lf_cx_abs1(" + D("k") + ") >= lf_cx_abs1(" + DL("k + 1") + "))");
  }
  eliminate();
  close("");
  open("else");
  line("const " + S + " fact = " + F.div(D("k"), DL("k + 1")) + ";");
  set(d, "k", DL("k + 1"));
  line("const " + S + " temp = " + D("k + 1") + ";");
  set(d, "k + 1", F.sub(DU("k"), F.mul("fact", "temp")));
  open("if (!last)");
  set(dl, "k + 1", DU("k + 1"));
  set(du, "k + 1", F.negatedProduct("fact", DL("k + 1")));
  close();
  set(du, "k", "temp");
  set(mult, "k", "fact");
  step(ir::kTridiagonalSwap);
  close();
  close();
  if (n > 0) {
    open("if (info == 0 && " + F.isZero(D(std::to_string(n - 1))) + ")");
    line("info = (int32_t)" + ns + ";");
    close();
  }
  line(at(info, "sys") + " = info;");
  close();
  barrier();
}

// Each column replays the factorization's row operations (up to where it stopped), then, when
// the factorization succeeded, solves U x = y from the bottom row up. The columns are
// independent and contiguous (b is [..., n, k], row-major): a CPU thread sweeps the rows once
// for all of a system's columns, the inner loop over the columns a vector loop (each column's
// divisions in turn would leave the divider's latency exposed, 256 rows deep); a GPU thread
// takes one column, its neighbours the next ones (coalesced).
void Emitter::emitTridiagonalSolve(const ir::Op& op) {
  const size_t parts = op.results.size();
  auto group = [&](size_t first) {
    return std::vector<const ir::Value*>(
        op.operands.begin() + static_cast<std::ptrdiff_t>(first),
        op.operands.begin() + static_cast<std::ptrdiff_t>(first + parts));
  };
  const auto dl = group(0), d = group(parts), du = group(2 * parts), mult = group(3 * parts),
             b = group(4 * parts + 2);
  const ir::Value* steps = op.operands[4 * parts];
  const ir::Value* info = op.operands[4 * parts + 1];
  std::vector<const ir::Value*> x;
  for (const auto& r : op.results) x.push_back(r.get());
  const int64_t n = d[0]->type.dims.back();
  const int64_t k = b[0]->type.dims.back();
  const int64_t width = target_ == Target::Cpu ? k : 1;  // columns per SPMD iteration
  const int64_t blocks = k == 0 ? 0 : info->type.numElements() * (k / width);
  if (n == 0 || blocks == 0) return;  // x has no elements
  const Field F{parts == 2, cType(d[0]->type.dtype)};
  const std::string S = F.type();
  const std::string ns = std::to_string(n), ks = std::to_string(k);
  const std::string ws = std::to_string(width);
  auto xi = [&](const std::string& i) { return "xbase + (" + i + ") * " + ks + " + c"; };
  auto X = [&](const std::string& i) { return fieldAt(x, xi(i)); };
  auto setX = [&](const std::string& i, const std::string& value) {
    if (!F.complex) return storeField(x, xi(i), value);
    line("const " + S + " v_ = " + value + ";");
    storeField(x, xi(i), "v_");
  };
  auto diag = [&](const std::vector<const ir::Value*>& v, const std::string& i) {
    return fieldAt(v, "base + (" + i + ")");
  };
  auto columns = [&] { open("for (int64_t c = 0; c < " + ws + "; ++c)"); };

  openParallelLoop(blocks, "blk");
  line("const int64_t sys = blk / " + std::to_string(k / width) + ";");
  line("const int64_t base = sys * " + ns + ";");
  line("const int64_t xbase = sys * " + std::to_string(n * k) + " + blk % " +
       std::to_string(k / width) + " * " + ws + ";");
  open("for (int64_t i = 0; i < " + ns + "; ++i)");
  columns();
  for (size_t p = 0; p < parts; ++p) {
    line(at(x[p], xi("i")) + " = " + at(b[p], "xbase + i * " + ks + " + c") + ";");
  }
  close();
  close();
  line("const int32_t info = " + at(info, "sys") + ";");
  line("const int64_t steps = info == 0 ? " + ns + " - 1 : (int64_t)info - 1;");
  open("for (int64_t i = 0; i < steps; ++i)");
  line("const uint8_t kind = " + at(steps, "base + i") + ";");
  line("const " + S + " fact = " + diag(mult, "i") + ";");
  open("if (kind == " + std::to_string(ir::kTridiagonalSwap) + ")");
  columns();
  line("const " + S + " temp = " + X("i") + ";");
  line("const " + S + " next = " + X("i + 1") + ";");
  storeField(x, xi("i"), "next");
  setX("i + 1", F.sub("temp", F.mul("fact", "next")));
  close();
  close("");
  open("else if (kind == " + std::to_string(ir::kTridiagonalEliminate) + ")");
  columns();
  setX("i + 1", F.sub(X("i + 1"), F.mul("fact", X("i"))));
  close();
  close();
  close();
  open("if (info == 0)");
  const std::string last = std::to_string(n - 1);
  line("const " + S + " dn = " + diag(d, last) + ";");
  columns();
  setX(last, F.div(X(last), "dn"));
  close();
  if (n > 1) {
    const std::string m2 = std::to_string(n - 2);
    line("const " + S + " dm = " + diag(d, m2) + ", um = " + diag(du, m2) + ";");
    columns();
    setX(m2, F.div(F.sub(X(m2), F.mul("um", X(last))), "dm"));
    close();
  }
  open("for (int64_t i = " + ns + " - 3; i >= 0; --i)");
  line("const " + S + " di = " + diag(d, "i") + ", ui = " + diag(du, "i") +
       ", li = " + diag(dl, "i + 1") + ";");
  columns();
  setX("i", F.div(F.sub(F.sub(X("i"), F.mul("ui", X("i + 1"))), F.mul("li", X("i + 2"))), "di"));
  close();
  close();
  close();
  close();
  barrier();
}

}  // namespace lf::codegen
