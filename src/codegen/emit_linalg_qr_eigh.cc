// QR (geqrf and orgqr) and the symmetric eigen-decomposition (syevd): one matrix per SPMD
// iteration, each by one thread through the prelude's LAPACK ports (lf_linalg.h), which work in
// place on the result: the result starts as a copy of the operand, as LAPACK's output aliases
// its input. The results live in memory (the planner never gives these ops locals), so the
// prelude functions take pointers to them.
#include <algorithm>

#include "codegen/emitter.h"

namespace lf::codegen {

// (a, taus) = geqrf(a); for a complex a (two operands, its parts) (a_re, a_im, taus_re, taus_im).
void Emitter::emitQr(const ir::Op& op) {
  if (op.operands.size() == 2) return emitComplexQr(op);
  const ir::Value* a = op.operands[0];
  const ir::Value* r = op.result(0);
  const ir::Value* taus = op.result(1);
  const int rank = a->type.rank();
  const int64_t m = a->type.dims[rank - 2], n = a->type.dims[rank - 1], k = std::min(m, n);
  const int64_t matrices = m * n == 0 ? 0 : a->type.numElements() / (m * n);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(r, a, "base", m * n);
  line("lf_geqrf(&" + at(r, "base") + ", " + std::to_string(m) + ", " + std::to_string(n) + ", &" +
       at(taus, "mat * " + std::to_string(k)) + ");");
  close();
  barrier();
}

// q = orgqr(a, taus). The taus are copied to a local array first: they may be an operand that
// is not in memory. Complex (a_re, a_im, taus_re, taus_im): ungqr's (q_re, q_im).
void Emitter::emitHouseholderProduct(const ir::Op& op) {
  if (op.operands.size() == 4) return emitComplexHouseholderProduct(op);
  const ir::Value* a = op.operands[0];
  const ir::Value* taus = op.operands[1];
  const ir::Value* q = op.result();
  const int rank = a->type.rank();
  const int64_t m = a->type.dims[rank - 2], n = a->type.dims[rank - 1];
  const int64_t k = taus->type.dims.back();
  const int64_t matrices = m * n == 0 ? 0 : a->type.numElements() / (m * n);
  const std::string T = cType(a->type.dtype);
  const std::string ks = std::to_string(k);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(q, a, "base", m * n);
  line(T + " tau[" + std::to_string(std::max<int64_t>(k, 1)) + "];");
  open("for (int64_t e = 0; e < " + ks + "; ++e)");
  line("tau[e] = " + at(taus, "mat * " + ks + " + e") + ";");
  close();
  line("lf_orgqr(&" + at(q, "base") + ", " + std::to_string(m) + ", " + std::to_string(n) + ", " +
       ks + ", tau);");
  close();
  barrier();
}

// out = ormqr(a, taus, c): a copy of c, multiplied in place. The reflectors (a's first k columns)
// and the taus are copied to local arrays first: either may be an operand that is not in memory.
void Emitter::emitOrmqr(const ir::Op& op) {
  const ir::Value* a = op.operands[0];
  const ir::Value* taus = op.operands[1];
  const ir::Value* c = op.operands[2];
  const ir::Value* out = op.result();
  const auto& attrs = op.attr<ir::OrmqrAttrs>();
  const int rank = c->type.rank();
  const int64_t nq = a->type.dims[rank - 2], an = a->type.dims[rank - 1];
  const int64_t m = c->type.dims[rank - 2], n = c->type.dims[rank - 1];
  const int64_t k = taus->type.dims.back();
  const int64_t matrices = m * n == 0 ? 0 : c->type.numElements() / (m * n);
  const std::string T = cType(a->type.dtype);
  const std::string ks = std::to_string(k);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(out, c, "base", m * n);
  if (k > 0) {
    line(T + " refl[" + std::to_string(nq * k) + "];");
    open("for (int64_t e = 0; e < " + std::to_string(nq * k) + "; ++e)");
    line("refl[e] = " +
         at(a, "mat * " + std::to_string(nq * an) + " + e / " + ks + " * " + std::to_string(an) +
                   " + e % " + ks) +
         ";");
    close();
    line(T + " tau[" + ks + "];");
    open("for (int64_t e = 0; e < " + ks + "; ++e)");
    line("tau[e] = " + at(taus, "mat * " + ks + " + e") + ";");
    close();
    line("lf_ormqr(refl, " + std::to_string(nq) + ", " + ks + ", " + ks + ", tau, &" +
         at(out, "base") + ", " + std::to_string(m) + ", " + std::to_string(n) + ", " +
         (attrs.left ? "true" : "false") + ", " + (attrs.transpose ? "true" : "false") + ");");
  }
  close();
  barrier();
}

// eigh's `work` and `iwork` (sizes `macro`_WORK(n) and `macro`_IWORK(n)): arrays of the thread,
// or matrix `mat`'s slices of the op's scratch (plan::eighWorkInScratch).
void Emitter::declareEighWork(const ir::Op& op, const std::string& T, const std::string& macro) {
  const std::string ns = std::to_string(op.operands[0]->type.dims.back());
  const std::string work = macro + "_WORK(" + ns + ")", iwork = macro + "_IWORK(" + ns + ")";
  if (!plan::eighWorkInScratch(op, kernel_.target)) {
    line(T + " work[" + work + "];");
    line("int32_t iwork[" + iwork + "];");
    return;
  }
  const std::vector<int64_t>& temps = kernel_.opPlan(&op).temps;
  line(T + "* work = (" + T + "*)(lf_scratch + " + std::to_string(temps.at(0)) + ") + mat * " +
       work + ";");
  line("int32_t* iwork = (int32_t*)(lf_scratch + " + std::to_string(temps.at(1)) + ") + mat * " +
       iwork + ";");
}

// (vectors, values, info) = syevd(a), lower triangle; for a complex a (two operands, its parts)
// heevd's (vectors_re, vectors_im, values, info).
void Emitter::emitEigh(const ir::Op& op) {
  if (op.operands.size() == 2) return emitHermitianEigh(op);
  const ir::Value* a = op.operands[0];
  const ir::Value* vectors = op.result(0);
  const ir::Value* values = op.result(1);
  const ir::Value* info = op.result(2);
  const int64_t n = a->type.dims.back();
  const int64_t matrices = n == 0 ? 0 : a->type.numElements() / (n * n);
  const std::string T = cType(a->type.dtype);
  const std::string ns = std::to_string(n);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(n * n) + ";");
  copyMatrix(vectors, a, "base", n * n);
  declareEighWork(op, T, "LF_SYEVD");
  line(at(info, "mat") + " = lf_syevd_lower(&" + at(vectors, "base") + ", " + ns + ", &" +
       at(values, "mat * " + ns) + ", work, iwork);");
  close();
  barrier();
}

void Emitter::emitComplexQr(const ir::Op& op) {
  const ir::Value* aRe = op.operands[0];
  const ir::Value* aIm = op.operands[1];
  const int rank = aRe->type.rank();
  const int64_t m = aRe->type.dims[rank - 2], n = aRe->type.dims[rank - 1], k = std::min(m, n);
  const int64_t matrices = m * n == 0 ? 0 : aRe->type.numElements() / (m * n);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(op.result(0), aRe, "base", m * n);
  copyMatrix(op.result(1), aIm, "base", m * n);
  const std::string taus = "mat * " + std::to_string(k);
  line("lf_cgeqrf(&" + at(op.result(0), "base") + ", &" + at(op.result(1), "base") + ", " +
       std::to_string(m) + ", " + std::to_string(n) + ", &" + at(op.result(2), taus) + ", &" +
       at(op.result(3), taus) + ");");
  close();
  barrier();
}

void Emitter::emitComplexHouseholderProduct(const ir::Op& op) {
  const ir::Value* aRe = op.operands[0];
  const ir::Value* aIm = op.operands[1];
  const ir::Value* tausRe = op.operands[2];
  const ir::Value* tausIm = op.operands[3];
  const int rank = aRe->type.rank();
  const int64_t m = aRe->type.dims[rank - 2], n = aRe->type.dims[rank - 1];
  const int64_t k = tausRe->type.dims.back();
  const int64_t matrices = m * n == 0 ? 0 : aRe->type.numElements() / (m * n);
  const std::string T = cType(aRe->type.dtype);
  const std::string ks = std::to_string(k);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(op.result(0), aRe, "base", m * n);
  copyMatrix(op.result(1), aIm, "base", m * n);
  line(T + " tau_re[" + std::to_string(std::max<int64_t>(k, 1)) + "];");
  line(T + " tau_im[" + std::to_string(std::max<int64_t>(k, 1)) + "];");
  open("for (int64_t e = 0; e < " + ks + "; ++e)");
  line("tau_re[e] = " + at(tausRe, "mat * " + ks + " + e") + ";");
  line("tau_im[e] = " + at(tausIm, "mat * " + ks + " + e") + ";");
  close();
  line("lf_cungqr(&" + at(op.result(0), "base") + ", &" + at(op.result(1), "base") + ", " +
       std::to_string(m) + ", " + std::to_string(n) + ", " + ks + ", tau_re, tau_im);");
  close();
  barrier();
}

void Emitter::emitHermitianEigh(const ir::Op& op) {
  const ir::Value* aRe = op.operands[0];
  const ir::Value* aIm = op.operands[1];
  const ir::Value* vRe = op.result(0);
  const ir::Value* vIm = op.result(1);
  const ir::Value* values = op.result(2);
  const ir::Value* info = op.result(3);
  const int64_t n = aRe->type.dims.back();
  const int64_t matrices = n == 0 ? 0 : aRe->type.numElements() / (n * n);
  const std::string T = cType(aRe->type.dtype);
  const std::string ns = std::to_string(n);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(n * n) + ";");
  copyMatrix(vRe, aRe, "base", n * n);
  copyMatrix(vIm, aIm, "base", n * n);
  declareEighWork(op, T, "LF_HEEVD");
  line(at(info, "mat") + " = lf_heevd_lower(&" + at(vRe, "base") + ", &" + at(vIm, "base") + ", " +
       ns + ", &" + at(values, "mat * " + ns) + ", work, iwork);");
  close();
  barrier();
}

}  // namespace lf::codegen
