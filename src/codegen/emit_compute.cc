// Reduce and reduce-window: one result element per SPMD iteration, an inner sequential loop over
// the reduced / window elements in row-major order.
#include <algorithm>
#include <string>

#include "codegen/emitter.h"

namespace lf::codegen {
namespace {

std::string idx(const std::string& prefix, int64_t d) { return prefix + std::to_string(d); }

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

}  // namespace

// Reduce and ReduceWindow: one accumulator per result, started from the init operands.
void Emitter::declareAccumulators(const ir::Op& op) {
  size_t n = op.results.size();
  for (size_t k = 0; k < n; ++k) {
    line(cType(op.result(k)->type.dtype) + " acc" + std::to_string(k) + " = " +
         scalar(op.operands[n + k]) + ";");
  }
}

// Folds the input element at `inLinear` into the accumulators with the reducer region, closes
// the loop over the window, stores the accumulators as the results and closes the output loop.
void Emitter::accumulateAndStore(const ir::Op& op, const std::string& inLinear) {
  size_t n = op.results.size();
  std::vector<std::string> args;
  for (size_t k = 0; k < n; ++k) args.push_back("acc" + std::to_string(k));
  for (size_t k = 0; k < n; ++k) args.push_back(at(op.operands[k], inLinear));
  std::vector<std::string> yields = emitScalarRegion(*op.regions[0], args);
  for (size_t k = 0; k < n; ++k) line("acc" + std::to_string(k) + " = " + yields[k] + ";");
  close();
  for (size_t k = 0; k < n; ++k) line(at(op.result(k), "i") + " = acc" + std::to_string(k) + ";");
  close();
  endStage(op);
}

void Emitter::emitReduce(const ir::Op& op) {
  const ir::Value* in0 = op.operands[0];
  const auto& reduced = op.attr<ir::ReduceAttrs>().dimensions;
  std::vector<int64_t> reducedSizes;
  for (int d = 0; d < in0->type.rank(); ++d) {
    if (contains(reduced, d)) reducedSizes.push_back(in0->type.dims[d]);
  }
  std::vector<std::string> inIdx;
  int64_t kept = 0, red = 0;
  for (int d = 0; d < in0->type.rank(); ++d) {
    inIdx.push_back(contains(reduced, d) ? idx("q", red++) : idx("o", kept++));
  }
  std::string inLinear = linear(in0->type.dims, inIdx);

  openElementLoop(op.result());
  declareMultiIndex(op.result()->type.dims, "i", "o");
  declareAccumulators(op);
  open("for (int64_t r = 0; r < " + std::to_string(product(reducedSizes)) + "; ++r)");
  declareMultiIndex(reducedSizes, "r", "q");
  accumulateAndStore(op, inLinear);
}

// The input is seen padded (low/high, and base dilation as interior padding) with the init value;
// padding elements are skipped, which is the same as reducing the init value (an identity).
void Emitter::emitReduceWindow(const ir::Op& op) {
  const ir::Value* in0 = op.operands[0];
  const auto& a = op.attr<ir::ReduceWindowAttrs>();
  int rank = in0->type.rank();

  openElementLoop(op.result());
  declareMultiIndex(op.result()->type.dims, "i", "o");
  declareAccumulators(op);
  open("for (int64_t r = 0; r < " + std::to_string(product(a.sizes)) + "; ++r)");
  declareMultiIndex(a.sizes, "r", "w");
  std::string valid = "true";
  std::vector<std::string> inIdx;
  for (int d = 0; d < rank; ++d) {
    std::string t = idx("t", d);
    std::string dil = std::to_string(a.baseDilation[d]);
    line("const int64_t " + t + " = " + idx("o", d) + " * " + std::to_string(a.strides[d]) + " + " +
         idx("w", d) + " * " + std::to_string(a.windowDilation[d]) + " - (" +
         std::to_string(a.padLow[d]) + ");");
    valid += " && " + t + " >= 0 && " + t + " % " + dil + " == 0 && " + t + " / " + dil + " < " +
             std::to_string(in0->type.dims[d]);
    inIdx.push_back(t + " / " + dil);
  }
  line("if (!(" + valid + ")) continue;");
  std::string inLinear = linear(in0->type.dims, inIdx);
  accumulateAndStore(op, inLinear);
}

}  // namespace lf::codegen
