// Indexed reads and writes: dynamic-slice, dynamic-update-slice (start indices clamped so the
// slice is in bounds), gather (start indices clamped) and scatter (out-of-bounds windows dropped,
// updates applied in order by one thread).
#include <algorithm>

#include "codegen/emitter.h"

namespace lf::codegen {
namespace {

std::string idx(const std::string& prefix, int64_t d) { return prefix + std::to_string(d); }

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The dims of `rank` not listed in `listed`, in increasing order.
std::vector<int64_t> complement(int64_t rank, const std::vector<int64_t>& listed) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (!contains(listed, d)) out.push_back(d);
  }
  return out;
}

}  // namespace

void Emitter::emitDynamicSlice(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* out = op.result();
  const auto& sizes = op.attr<ir::DynamicSliceAttrs>().sizes;
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  std::vector<std::string> inIdx;
  for (int d = 0; d < in->type.rank(); ++d) {
    const ir::Value* start = op.operands[1 + d];
    line("const int64_t s" + std::to_string(d) + " = " +
         clampedIndex(scalar(start), start->type.dtype, in->type.dims[d] - sizes[d]) + ";");
    inIdx.push_back(idx("s", d) + " + " + idx("o", d));
  }
  line(at(out, "i") + " = " + at(in, ElementIndex{"", inIdx}) + ";");
  close();
  endStage(op);
}

// In place (the plan's choice when nothing else reads the operand), only the update's elements are
// written; otherwise every result element is the update's or the operand's.
void Emitter::emitDynamicUpdateSlice(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* update = op.operands[1];
  const ir::Value* out = op.result();
  auto declareStarts = [&]() {
    for (int d = 0; d < in->type.rank(); ++d) {
      const ir::Value* start = op.operands[2 + d];
      line("const int64_t " + idx("s", d) + " = " +
           clampedIndex(scalar(start), start->type.dtype, in->type.dims[d] - update->type.dims[d]) +
           ";");
    }
  };
  if (kernel_.opPlan(&op).inPlace) {
    openElementLoop(out, update->type.numElements(), "u");
    declareMultiIndex(update->type.dims, "u", "w");
    declareStarts();
    std::vector<std::string> outIdx;
    for (int d = 0; d < in->type.rank(); ++d) outIdx.push_back(idx("s", d) + " + " + idx("w", d));
    line(at(out, ElementIndex{"", outIdx}) + " = " + at(update, "u") + ";");
    close();
    endStage(op);
    return;
  }
  line("LF_NO_UNROLL");  // a ptxas bug otherwise (lf_cuda.h); the loop is plain on the CPU
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  declareStarts();
  line("bool inside = true;");
  std::vector<std::string> updIdx;
  for (int d = 0; d < in->type.rank(); ++d) {
    std::string s = idx("s", d);
    line("inside = inside && " + idx("o", d) + " >= " + s + " && " + idx("o", d) + " < " + s +
         " + " + std::to_string(update->type.dims[d]) + ";");
    updIdx.push_back(idx("o", d) + " - " + s);
  }
  // Blocks, not a conditional expression: a fused operand's element is computed in its branch only.
  open("if (inside)");
  line(at(out, "i") + " = " + at(update, ElementIndex{"", updIdx}) + ";");
  close();
  open("else");
  line(at(out, "i") + " = " + at(in, "i") + ";");
  close();
  close();
  endStage(op);
}

void Emitter::emitGather(const ir::Op& op) {
  const ir::Value* operand = op.operands[0];
  const ir::Value* indices = op.operands[1];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::GatherAttrs>();
  const auto& opDims = operand->type.dims;
  std::vector<int64_t> batchDims = complement(out->type.rank(), a.offsetDims);
  // Result batch dim of each indices dim other than index_vector_dim, in order.
  auto batchDimOfIndicesDim = [&](int64_t j) {
    return batchDims.at(static_cast<size_t>(j < a.indexVectorDim ? j : j - 1));
  };
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  for (size_t d = 0; d < opDims.size(); ++d) line("int64_t " + idx("p", d) + " = 0;");
  for (size_t k = 0; k < a.startIndexMap.size(); ++k) {
    std::vector<std::string> ix;
    for (int64_t j = 0; j < indices->type.rank(); ++j) {
      ix.push_back(j == a.indexVectorDim ? std::to_string(k) : idx("o", batchDimOfIndicesDim(j)));
    }
    int64_t d = a.startIndexMap[k];
    line(idx("p", d) + " = " +
         clampedIndex(at(indices, ElementIndex{"", ix}), indices->type.dtype,
                      opDims[d] - a.sliceSizes[d]) +
         ";");
  }
  for (size_t b = 0; b < a.operandBatchingDims.size(); ++b) {
    line(idx("p", a.operandBatchingDims[b]) +
         " += " + idx("o", batchDimOfIndicesDim(a.startIndicesBatchingDims[b])) + ";");
  }
  std::vector<int64_t> collapsedOrBatching = a.collapsedSliceDims;
  collapsedOrBatching.insert(collapsedOrBatching.end(), a.operandBatchingDims.begin(),
                             a.operandBatchingDims.end());
  std::vector<int64_t> offsetOperandDims = complement(operand->type.rank(), collapsedOrBatching);
  for (size_t m = 0; m < offsetOperandDims.size(); ++m) {
    line(idx("p", offsetOperandDims[m]) + " += " + idx("o", a.offsetDims.at(m)) + ";");
  }
  std::vector<std::string> pIdx;
  for (size_t d = 0; d < opDims.size(); ++d) pIdx.push_back(idx("p", d));
  line(at(out, "i") + " = " + at(operand, ElementIndex{"", pIdx}) + ";");
  close();
  endStage(op);
}

void Emitter::emitScatter(const ir::Op& op) {
  const auto& a = op.attr<ir::ScatterAttrs>();
  size_t n = op.results.size();
  const ir::Value* indices = op.operands[n];
  const ir::Value* update0 = op.operands[n + 1];
  const auto& opDims = op.operands[0]->type.dims;
  const auto& updDims = update0->type.dims;
  for (size_t k = 0; k < n; ++k) emitCopy(op.result(k), op.operands[k]);
  barrier();
  std::vector<int64_t> updateScatterDims = complement(update0->type.rank(), a.updateWindowDims);
  auto scatterDimOfIndicesDim = [&](int64_t j) {
    return updateScatterDims.at(static_cast<size_t>(j < a.indexVectorDim ? j : j - 1));
  };
  std::vector<int64_t> insertedOrBatching = a.insertedWindowDims;
  insertedOrBatching.insert(insertedOrBatching.end(), a.inputBatchingDims.begin(),
                            a.inputBatchingDims.end());
  std::vector<int64_t> windowOperandDims =
      complement(static_cast<int64_t>(opDims.size()), insertedOrBatching);
  std::vector<int64_t> windowSize(opDims.size(), 1);
  for (size_t m = 0; m < windowOperandDims.size(); ++m) {
    windowSize[windowOperandDims[m]] = updDims.at(a.updateWindowDims.at(m));
  }
  // Updates apply in order, and several may hit one element: one thread does them all.
  open("if (LF_TID == 0)");
  open("for (int64_t u = 0; u < " + std::to_string(update0->type.numElements()) + "; ++u)");
  declareMultiIndex(updDims, "u", "w");
  for (size_t d = 0; d < opDims.size(); ++d) line("int64_t " + idx("p", d) + " = 0;");
  for (size_t k = 0; k < a.scatterDimsToOperandDims.size(); ++k) {
    std::vector<std::string> ix;
    for (int64_t j = 0; j < indices->type.rank(); ++j) {
      ix.push_back(j == a.indexVectorDim ? std::to_string(k) : idx("w", scatterDimOfIndicesDim(j)));
    }
    std::string value = at(indices, ElementIndex{"", ix});
    // An unsigned index past INT64_MAX must not wrap into range.
    if (indices->type.dtype == DType::U64) {
      value = "(" + value + " > (uint64_t)INT64_MAX ? (int64_t)-1 : (int64_t)" + value + ")";
    }
    line(idx("p", a.scatterDimsToOperandDims[k]) + " = (int64_t)" + value + ";");
  }
  for (size_t b = 0; b < a.inputBatchingDims.size(); ++b) {
    line(idx("p", a.inputBatchingDims[b]) + " = " +
         idx("w", scatterDimOfIndicesDim(a.scatterIndicesBatchingDims[b])) + ";");
  }
  // XLA drops the whole window when its start is out of bounds.
  std::string valid = "true";
  for (size_t d = 0; d < opDims.size(); ++d) {
    valid += " && " + idx("p", d) + " >= 0 && " + idx("p", d) +
             " <= " + std::to_string(opDims[d] - windowSize[d]);
  }
  line("if (!(" + valid + ")) continue;");
  for (size_t m = 0; m < windowOperandDims.size(); ++m) {
    line(idx("p", windowOperandDims[m]) + " += " + idx("w", a.updateWindowDims[m]) + ";");
  }
  std::vector<std::string> pIdx;
  for (size_t d = 0; d < opDims.size(); ++d) pIdx.push_back(idx("p", d));
  line("const int64_t at = " + linear(opDims, pIdx) + ";");
  std::vector<std::string> args;
  for (size_t k = 0; k < n; ++k) args.push_back(at(op.result(k), "at"));
  for (size_t k = 0; k < n; ++k) args.push_back(at(op.operands[n + 1 + k], "u"));
  std::vector<std::string> combined = emitScalarRegion(*op.regions[0], args);
  for (size_t k = 0; k < n; ++k) line(at(op.result(k), "at") + " = " + combined[k] + ";");
  close();
  close();
  endStage(op);
}

}  // namespace lf::codegen
