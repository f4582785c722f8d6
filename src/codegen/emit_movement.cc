// Data movement: each result element reads one operand element at an index computed from the
// result's multi-index o0..o{r-1}.
#include "codegen/emitter.h"

namespace lf::codegen {
namespace {

std::string idx(int d) { return "o" + std::to_string(d); }

// The index into the concatenation's operand that starts at `begin` along `dim`.
std::vector<std::string> concatOperandIndex(int rank, int dim, int64_t begin) {
  std::vector<std::string> inIdx;
  for (int d = 0; d < rank; ++d) {
    inIdx.push_back(d == dim ? "(" + idx(d) + " - " + std::to_string(begin) + ")" : idx(d));
  }
  return inIdx;
}

}  // namespace

void Emitter::emitIota(const ir::Op& op) {
  const ir::Value* out = op.result();
  int64_t dim = op.attr<ir::IotaAttrs>().dimension;
  std::vector<bool> used(out->type.dims.size(), false);
  used.at(dim) = true;
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o", used);
  line(at(out, "i") + " = lf_convert<" + cType(out->type.dtype) + ">(" + idx(dim) + ");");
  close();
  endStage(op);
}

void Emitter::emitBroadcast(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* out = op.result();
  const auto& dims = op.attr<ir::BroadcastAttrs>().dimensions;
  std::vector<std::string> inIdx;
  std::vector<bool> used(out->type.dims.size(), false);
  for (size_t k = 0; k < dims.size(); ++k) {
    // A size-1 operand dim repeats along a larger result dim.
    bool repeats = in->type.dims[k] == 1;
    inIdx.push_back(repeats ? "0" : idx(static_cast<int>(dims[k])));
    if (!repeats) used.at(dims[k]) = true;
  }
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o", used);
  line(at(out, "i") + " = " + at(in, ElementIndex{"", inIdx}) + ";");
  close();
  endStage(op);
}

void Emitter::emitTranspose(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* out = op.result();
  const auto& perm = op.attr<ir::TransposeAttrs>().permutation;
  std::vector<std::string> inIdx(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) inIdx[perm[d]] = idx(static_cast<int>(d));
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line(at(out, "i") + " = " + at(in, ElementIndex{"", inIdx}) + ";");
  close();
  endStage(op);
}

void Emitter::emitSlice(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::SliceAttrs>();
  std::vector<std::string> inIdx;
  for (int d = 0; d < out->type.rank(); ++d) {
    std::string e = idx(d);
    if (a.strides[d] != 1) e += " * " + std::to_string(a.strides[d]);
    if (a.starts[d] != 0) e = std::to_string(a.starts[d]) + " + " + e;
    inIdx.push_back(e);
  }
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line(at(out, "i") + " = " + at(in, ElementIndex{"", inIdx}) + ";");
  close();
  endStage(op);
}

void Emitter::emitConcatenate(const ir::Op& op) {
  const ir::Value* out = op.result();
  int dim = static_cast<int>(op.attr<ir::ConcatenateAttrs>().dimension);
  if (dim + 1 == out->type.rank() && rowLengthFor(out->type.dims) > 0) {
    emitRowConcatenate(op);
    return;
  }
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  int64_t begin = 0;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const ir::Value* in = op.operands[k];
    int64_t end = begin + in->type.dims[dim];
    std::string cond = idx(dim) + " < " + std::to_string(end);
    bool last = k + 1 == op.operands.size();
    open(k == 0 ? "if (" + cond + ")" : (last ? "else" : "else if (" + cond + ")"));
    line(at(out, "i") + " = " +
         at(in, ElementIndex{"", concatOperandIndex(out->type.rank(), dim, begin)}) + ";");
    close();
    begin = end;
  }
  close();
  endStage(op);
}

// Along the last dim, in a loop split into rows (RowSplit): each row copies the operands' rows one
// after the other, an inner loop each, so each is contiguous and vectorizes (a test per element
// would keep GCC from it).
void Emitter::emitRowConcatenate(const ir::Op& op) {
  const ir::Value* out = op.result();
  const int dim = out->type.rank() - 1;
  const int64_t rowLength = out->type.dims.back();
  const std::string c = std::to_string(rowLength);
  open("for (int64_t i_r = LF_TID; i_r < " + std::to_string(out->type.numElements() / rowLength) +
       "; i_r += LF_NTHREADS)");
  int64_t begin = 0;
  for (const ir::Value* in : op.operands) {
    const int64_t end = begin + in->type.dims[dim];
    open("for (int64_t i_c = " + std::to_string(begin) + "; i_c < " + std::to_string(end) +
         "; ++i_c)");
    rowSplits_.push_back({rowLength, fusedMemo_.size()});
    line("[[maybe_unused]] const int64_t i = i_r * " + c + " + i_c;");
    declareMultiIndex(out->type.dims, "i", "o");
    line(at(out, "i") + " = " +
         at(in, ElementIndex{"", concatOperandIndex(out->type.rank(), dim, begin)}) + ";");
    close();
    begin = end;
  }
  close();
  endStage(op);
}

// result[low + k * (interior + 1)] = operand[k]; every other element is the padding value.
// Negative low/high cut elements off, which the bounds test below handles.
void Emitter::emitPad(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::PadAttrs>();
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line("bool inside = true;");
  std::vector<std::string> inIdx;
  for (int d = 0; d < out->type.rank(); ++d) {
    std::string t = "t" + std::to_string(d);
    std::string step = std::to_string(a.interior[d] + 1);
    line("const int64_t " + t + " = " + idx(d) + " - (" + std::to_string(a.low[d]) + ");");
    line("inside = inside && " + t + " >= 0 && " + t + " % " + step + " == 0 && " + t + " / " +
         step + " < " + std::to_string(in->type.dims[d]) + ";");
    inIdx.push_back(t + " / " + step);
  }
  // Blocks, not a conditional expression: a fused operand's element is computed in its branch only.
  open("if (inside)");
  line(at(out, "i") + " = " + at(in, ElementIndex{"", inIdx}) + ";");
  close();
  open("else");
  line(at(out, "i") + " = " + scalar(op.operands[1]) + ";");
  close();
  close();
  endStage(op);
}

void Emitter::emitReverse(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* out = op.result();
  std::vector<std::string> inIdx;
  for (int d = 0; d < out->type.rank(); ++d) inIdx.push_back(idx(d));
  for (int64_t d : op.attr<ir::ReverseAttrs>().dimensions) {
    inIdx[d] = "(" + std::to_string(out->type.dims[d] - 1) + " - " + idx(static_cast<int>(d)) + ")";
  }
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line(at(out, "i") + " = " + at(in, ElementIndex{"", inIdx}) + ";");
  close();
  endStage(op);
}

}  // namespace lf::codegen
