// Sort: a stable bottom-up merge sort of a permutation per row (the comparator decides), then every
// operand is gathered through the permutation. One row per SPMD iteration.
#include "codegen/emitter.h"

namespace lf::codegen {

void Emitter::emitSort(const ir::Op& op) {
  const ir::Value* in0 = op.operands[0];
  const auto& dims = in0->type.dims;
  int dim = static_cast<int>(op.attr<ir::SortAttrs>().dimension);
  int64_t n = dims[dim];
  int64_t rows = n == 0 ? 0 : in0->type.numElements() / n;
  std::vector<int64_t> strides = rowMajorStrides(dims);
  std::vector<int64_t> rowDims;
  for (int d = 0; d < in0->type.rank(); ++d) {
    if (d != dim) rowDims.push_back(dims[d]);
  }
  std::vector<std::string> baseIdx;
  int next = 0;
  for (int d = 0; d < in0->type.rank(); ++d) {
    baseIdx.push_back(d == dim ? "0" : "g" + std::to_string(next++));
  }
  const std::vector<int64_t>& temps = kernel_.opPlan(&op).temps;
  std::string ns = std::to_string(n);
  std::string stride = std::to_string(strides[dim]);

  openParallelLoop(rows, "row");
  declareMultiIndex(rowDims, "row", "g");
  line("const int64_t base = " + linear(dims, baseIdx) + ";");
  line("int64_t* src = (int64_t*)(lf_scratch + " + std::to_string(temps[0]) + ") + row * " + ns +
       ";");
  line("int64_t* dst = (int64_t*)(lf_scratch + " + std::to_string(temps[1]) + ") + row * " + ns +
       ";");
  line("for (int64_t j = 0; j < " + ns + "; ++j) src[j] = j;");
  open("for (int64_t width = 1; width < " + ns + "; width *= 2)");
  open("for (int64_t lo = 0; lo < " + ns + "; lo += 2 * width)");
  line("const int64_t mid = lo + width < " + ns + " ? lo + width : " + ns + ";");
  line("const int64_t hi = lo + 2 * width < " + ns + " ? lo + 2 * width : " + ns + ";");
  line("int64_t a = lo, b = mid;");
  open("for (int64_t k = lo; k < hi; ++k)");
  line("bool takeRight = a >= mid;");
  open("if (a < mid && b < hi)");
  // Stability: the right element goes first only when the comparator says it is strictly first.
  std::vector<std::string> args;
  for (const ir::Value* v : op.operands) {
    args.push_back(at(v, "base + src[b] * " + stride));
    args.push_back(at(v, "base + src[a] * " + stride));
  }
  std::vector<std::string> yields = emitScalarRegion(*op.regions[0], args);
  line("takeRight = " + yields[0] + ";");
  close();
  line("dst[k] = takeRight ? src[b++] : src[a++];");
  close();
  close();
  line("int64_t* swap = src; src = dst; dst = swap;");
  close();
  open("for (int64_t j = 0; j < " + ns + "; ++j)");
  for (size_t k = 0; k < op.results.size(); ++k) {
    line(at(op.result(k), "base + j * " + stride) + " = " +
         at(op.operands[k], "base + src[j] * " + stride) + ";");
  }
  close();
  close();
  barrier();
}

}  // namespace lf::codegen
