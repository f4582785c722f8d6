// Reduce and reduce-window: one result element per SPMD iteration, an inner sequential loop over
// the reduced / window elements in row-major order. Select-and-scatter, their gradient.
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

// acc<k><element> = reducer(acc<k><element>, operand k at `in`), for each result k: the reducer
// region's step, shared by the element-per-iteration and the column-block forms.
void Emitter::foldIntoAccumulators(const ir::Op& op, const std::string& element,
                                   const ElementIndex& in) {
  const size_t n = op.results.size();
  std::vector<std::string> args;
  for (size_t k = 0; k < n; ++k) args.push_back("acc" + std::to_string(k) + element);
  for (size_t k = 0; k < n; ++k) args.push_back(at(op.operands[k], in));
  std::vector<std::string> yields = emitScalarRegion(*op.regions[0], args);
  for (size_t k = 0; k < n; ++k)
    line("acc" + std::to_string(k) + element + " = " + yields[k] + ";");
}

// Folds the input element at `in` into the accumulators with the reducer region, closes the loop
// over the window, stores the accumulators as the results and closes the output loop. `in` is the
// multi-index: a fused input (a broadcast bias, a transpose) maps it without splitting a linear
// index again.
void Emitter::accumulateAndStore(const ir::Op& op, const ElementIndex& in) {
  const size_t n = op.results.size();
  foldIntoAccumulators(op, "", in);
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
  if (reducesColumns(op)) {
    emitReduceColumns(op, reducedSizes, inIdx);
    return;
  }
  openElementLoop(op.result());
  declareMultiIndex(op.result()->type.dims, "i", "o");
  declareAccumulators(op);
  open("for (int64_t r = 0; r < " + std::to_string(product(reducedSizes)) + "; ++r)");
  declareMultiIndex(reducedSizes, "r", "q");
  accumulateAndStore(op, ElementIndex{"", inIdx});
}

// A reduction that keeps the input's minor dim (a sum over a batch or over rows: a bias's
// gradient, a mean over samples) on a CPU: its results along that dim are consecutive, and each
// reads the input at consecutive addresses in step with its neighbours. One result per iteration
// would make each a chain of reducer calls that nothing vectorizes; this form keeps a block of
// neighbouring results' accumulators in a local array and, per reduced element, updates the block
// in an inner loop the C++ compiler vectorizes (the fused input with it: a tanh, an exp). Each
// result still folds the reduced elements in row-major order from the init value: the same bits.
bool Emitter::reducesColumns(const ir::Op& op) const {
  if (target_ != Target::Cpu) return false;
  const ir::Value* in0 = op.operands[0];
  const auto& reduced = op.attr<ir::ReduceAttrs>().dimensions;
  const int rank = in0->type.rank();
  if (rank < 2 || reduced.empty() || contains(reduced, rank - 1)) return false;
  if (in0->type.dims.back() < 8 || in0->type.numElements() == 0) return false;
  for (size_t k = 0; k < op.results.size(); ++k) {
    if (isLocal(op.result(k))) return false;
  }
  return true;
}

void Emitter::emitReduceColumns(const ir::Op& op, const std::vector<int64_t>& reducedSizes,
                                const std::vector<std::string>& inIdx) {
  constexpr int64_t kBlock = 64;  // results per block: a few vectors of accumulators in flight
  const size_t n = op.results.size();
  const std::vector<int64_t>& outDims = op.result()->type.dims;
  const int64_t cols = outDims.back(), block = std::min(cols, kBlock);
  const int64_t blocks = (cols + block - 1) / block, rows = op.result()->type.numElements() / cols;
  const std::string b = std::to_string(block), c = std::to_string(cols);
  openParallelLoop(rows * blocks, "tile");
  line("const int64_t row = tile / " + std::to_string(blocks) + ";");
  line("const int64_t col0 = (tile % " + std::to_string(blocks) + ") * " + b + ";");
  const std::string width =
      cols % block == 0 ? b : "(" + c + " - col0 < " + b + " ? " + c + " - col0 : " + b + ")";
  line("const int64_t width = " + width + ";");
  declareMultiIndex({outDims.begin(), outDims.end() - 1}, "row", "o");
  for (size_t k = 0; k < n; ++k) {
    const std::string acc = "acc" + std::to_string(k);
    line(cType(op.result(k)->type.dtype) + " " + acc + "[" + b + "];");
    line("for (int64_t w = 0; w < width; ++w) " + acc + "[w] = " + scalar(op.operands[n + k]) +
         ";");
  }
  open("for (int64_t r = 0; r < " + std::to_string(product(reducedSizes)) + "; ++r)");
  declareMultiIndex(reducedSizes, "r", "q");
  open("for (int64_t w = 0; w < width; ++w)");
  line("[[maybe_unused]] const int64_t " + idx("o", static_cast<int64_t>(outDims.size()) - 1) +
       " = col0 + w;");
  foldIntoAccumulators(op, "[w]", ElementIndex{"", inIdx});
  close();
  close();
  open("for (int64_t w = 0; w < width; ++w)");
  for (size_t k = 0; k < n; ++k) {
    line(at(op.result(k), "row * " + c + " + col0 + w") + " = acc" + std::to_string(k) + "[w];");
  }
  close();
  close();
  endStage(op);
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
  accumulateAndStore(op, ElementIndex{"", inIdx});
}

// As XLA's CPU emitter: the result starts as init; then, source element by source element in
// row-major order, the window's selected element (its first element inside the operand, replaced
// by each next one for which select(selected, next) is false) becomes scatter(it, source). Windows
// that overlap may hit one element several times, in that order: one thread does them all. Windows
// that do not (stride >= size everywhere, max pooling's usual case) own disjoint elements: one
// source element per SPMD iteration.
void Emitter::emitSelectAndScatter(const ir::Op& op) {
  const ir::Value* in = op.operands[0];
  const ir::Value* source = op.operands[1];
  const auto& a = op.attr<ir::SelectAndScatterAttrs>();
  const int rank = in->type.rank();
  const std::string t = cType(in->type.dtype);
  openElementLoop(op.result());
  line(at(op.result(), "i") + " = " + scalar(op.operands[2]) + ";");
  close();
  barrier();
  bool disjoint = true;
  for (int d = 0; d < rank; ++d) disjoint = disjoint && a.strides[d] >= a.sizes[d];
  const int64_t sources = source->type.numElements();
  if (disjoint) {
    openElementLoop(op.result(), sources, "s");
  } else {
    open("if (LF_TID == 0)");
    open("for (int64_t s = 0; s < " + std::to_string(sources) + "; ++s)");
  }
  declareMultiIndex(source->type.dims, "s", "o");
  line("int64_t sel = -1;");
  line(t + " selv = " + scalar(op.operands[2]) + ";");
  open("for (int64_t r = 0; r < " + std::to_string(product(a.sizes)) + "; ++r)");
  declareMultiIndex(a.sizes, "r", "w");
  std::string valid = "true";
  std::vector<std::string> inIdx;
  for (int d = 0; d < rank; ++d) {
    std::string p = idx("t", d);
    line("const int64_t " + p + " = " + idx("o", d) + " * " + std::to_string(a.strides[d]) + " + " +
         idx("w", d) + " - (" + std::to_string(a.padLow[d]) + ");");
    valid += " && " + p + " >= 0 && " + p + " < " + std::to_string(in->type.dims[d]);
    inIdx.push_back(p);
  }
  line("if (!(" + valid + ")) continue;");
  line("const int64_t cand = " + linear(in->type.dims, inIdx) + ";");
  line("const " + t + " candv = " + at(in, "cand") + ";");
  open("if (sel < 0)");
  line("sel = cand;");
  line("selv = candv;");
  line("continue;");
  close();
  std::vector<std::string> keep = emitScalarRegion(*op.regions[0], {"selv", "candv"});
  open("if (!(" + keep[0] + "))");
  line("sel = cand;");
  line("selv = candv;");
  close();
  close();
  open("if (sel >= 0)");
  std::vector<std::string> combined =
      emitScalarRegion(*op.regions[1], {at(op.result(), "sel"), at(source, "s")});
  line(at(op.result(), "sel") + " = " + combined[0] + ";");
  close();
  close();
  if (!disjoint) close();
  endStage(op);
}

}  // namespace lf::codegen
