// The eigenvalues of general matrices (geev with no vectors): one matrix per SPMD iteration, by
// one thread through the prelude's LAPACK port (lf_geev.h), in place on the first result (LAPACK's
// a, which it destroys), as the SVD and eigh emitters do.
#include "codegen/emitter.h"

namespace lf::codegen {

// (a, wr, wi, info) = geev(a), jobvl = jobvr = 'N'.
void Emitter::emitEigValues(const ir::Op& op) {
  const ir::Value* a = op.operands[0];
  const ir::Value* work = op.result(0);
  const int64_t n = a->type.dims.back();
  const int64_t matrices = n == 0 ? 0 : a->type.numElements() / (n * n);
  const std::string ns = std::to_string(n);
  openParallelLoop(matrices, "mat");
  line("const int64_t base = mat * " + std::to_string(n * n) + ";");
  copyMatrix(work, a, "base", n * n);
  line(at(op.result(3), "mat") + " = lf_geev_values(&" + at(work, "base") + ", " + ns + ", &" +
       at(op.result(1), "mat * " + ns) + ", &" + at(op.result(2), "mat * " + ns) + ");");
  close();
  barrier();
}

}  // namespace lf::codegen
