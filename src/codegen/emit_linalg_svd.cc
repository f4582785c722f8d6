// The singular-value decomposition (gesdd): one matrix per SPMD iteration, by one thread through
// the prelude's LAPACK port (lf_svd.h), in place on the first result (LAPACK's a, which it
// destroys), as the QR and eigh emitters do.
#include <algorithm>

#include "codegen/emitter.h"
#include "plan/plan.h"

namespace lf::codegen {

// (a, values[, u, vt], info) = gesdd(a). The first result is the working copy LAPACK destroys;
// u and vt start as zeros (gesdd leaves parts of them unwritten in some of its paths).
void Emitter::emitSvd(const ir::Op& op) {
  if (op.operands.size() == 2) return emitComplexSvdValues(op);
  const ir::SvdAttrs& attrs = op.attr<ir::SvdAttrs>();
  const ir::Value* a = op.operands[0];
  const ir::Value* work = op.result(0);
  const ir::Value* values = op.result(1);
  const ir::Value* info = op.result(op.results.size() - 1);
  const int rank = a->type.rank();
  const int64_t m = a->type.dims[rank - 2], n = a->type.dims[rank - 1], k = std::min(m, n);
  const int64_t matrices = m * n == 0 ? 0 : a->type.numElements() / (m * n);
  const std::string T = cType(a->type.dtype);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(work, a, "base", m * n);
  std::string u = "(" + T + "*)0", vt = u;
  if (attrs.computeUv) {
    const ir::Value* uv = op.result(2);
    const ir::Value* vtv = op.result(3);
    const int64_t uSize = m * uv->type.dims.back(), vtSize = vtv->type.dims[rank - 2] * n;
    open("for (int64_t e = 0; e < " + std::to_string(uSize) + "; ++e)");
    line(at(uv, "mat * " + std::to_string(uSize) + " + e") + " = (" + T + ")0;");
    close();
    open("for (int64_t e = 0; e < " + std::to_string(vtSize) + "; ++e)");
    line(at(vtv, "mat * " + std::to_string(vtSize) + " + e") + " = (" + T + ")0;");
    close();
    u = "&" + at(uv, "mat * " + std::to_string(uSize));
    vt = "&" + at(vtv, "mat * " + std::to_string(vtSize));
  }
  if (!attrs.computeUv && k > ir::kSvdLapackPathMaxRank) {
    line(T + " work[LF_GESDD_VALUES_WORK(" + std::to_string(k) + ")];");
    line(at(info, "mat") + " = lf_gesdd_values(&" + at(work, "base") + ", " + std::to_string(m) +
         ", " + std::to_string(n) + ", &" + at(values, "mat * " + std::to_string(k)) + ", work);");
    close();
    barrier();
    return;
  }
  const int mode = !attrs.computeUv ? 0 : attrs.fullMatrices ? 2 : 1;
  const std::string ks = std::to_string(k);
  if (plan::svdWorkInScratch(op)) {
    // bdsdc's divide and conquer: about 6 k^2 elements per matrix, in the op's scratch.
    const std::vector<int64_t>& temps = kernel_.opPlan(&op).temps;
    line(T + "* work = (" + T + "*)(lf_scratch + " + std::to_string(temps.at(0)) +
         ") + mat * LF_GESDD_WORK(" + ks + ");");
    line("int32_t* iwork = (int32_t*)(lf_scratch + " + std::to_string(temps.at(1)) +
         ") + mat * LF_GESDD_IWORK(" + ks + ");");
  } else {
    line(T + " work[LF_GESDD_WORK(" + ks + ")];");
    line("int32_t iwork[LF_GESDD_IWORK(" + ks + ")];");
  }
  line(at(info, "mat") + " = lf_gesdd(&" + at(work, "base") + ", " + std::to_string(m) + ", " +
       std::to_string(n) + ", " + std::to_string(mode) + ", &" + at(values, "mat * " + ks) + ", " +
       u + ", " + vt + ", work, iwork);");
  close();
  barrier();
}

// (a_re, a_im, values, info) = gesdd(a) of a complex a, jobz 'N'.
void Emitter::emitComplexSvdValues(const ir::Op& op) {
  const ir::Value* aRe = op.operands[0];
  const ir::Value* aIm = op.operands[1];
  const int rank = aRe->type.rank();
  const int64_t m = aRe->type.dims[rank - 2], n = aRe->type.dims[rank - 1], k = std::min(m, n);
  const int64_t matrices = m * n == 0 ? 0 : aRe->type.numElements() / (m * n);
  const std::string T = cType(aRe->type.dtype);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(m * n) + ";");
  copyMatrix(op.result(0), aRe, "base", m * n);
  copyMatrix(op.result(1), aIm, "base", m * n);
  line(T + " work[LF_CGESDD_VALUES_WORK(" + std::to_string(k) + ")];");
  line(at(op.result(3), "mat") + " = lf_cgesdd_values(&" + at(op.result(0), "base") + ", &" +
       at(op.result(1), "base") + ", " + std::to_string(m) + ", " + std::to_string(n) + ", &" +
       at(op.result(2), "mat * " + std::to_string(k)) + ", work);");
  close();
  barrier();
}

}  // namespace lf::codegen
