// The forms of a dot: one result element per SPMD iteration with a sequential loop over the
// contracted elements (every target), and on the CPU a row of accumulators per iteration, tiles of
// scalar accumulators, or register tiles of vectors (emit_dot_tiles.cc). Every form sums each
// result's products in increasing contraction order, one fma at a time: the same bits.
#include <algorithm>
#include <string>

#include "codegen/dot_form.h"

namespace lf::codegen {
namespace {

using dot::accumulatorType;
using dot::asAccumulator;
using dot::dotForm;
using dot::DotForm;
using dot::dotOperandIndex;
using dot::multiplyAccumulate;
using dot::product;

// The tile of the CPU's tiled dot: 4 rows x 16 columns of accumulators (8 AVX2 registers of f32).
constexpr int64_t kTileRows = 4;
constexpr int64_t kTileCols = 16;

}  // namespace

void Emitter::emitDot(const ir::Op& op) {
  const ir::Value* lhs = op.operands[0];
  const ir::Value* rhs = op.operands[1];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::DotAttrs>();
  DType acc = accumulatorType(out->type.dtype);
  std::string accType = cType(acc);

  std::vector<int64_t> contractDims;
  for (int64_t d : a.lhsContracting) contractDims.push_back(lhs->type.dims[d]);
  int64_t lhsFree =
      lhs->type.rank() - static_cast<int64_t>(a.lhsBatch.size() + a.lhsContracting.size());
  int64_t batch = static_cast<int64_t>(a.lhsBatch.size());

  // A row of accumulators lives on the stack: bounded.
  constexpr int64_t kMaxRowAccumulators = 4096;
  int64_t cols = out->type.numElements() == 0 ? 0 : 1;
  for (size_t d = a.lhsBatch.size() + lhsFree; d < out->type.dims.size(); ++d) {
    cols *= out->type.dims[d];
  }
  if (const DotTiling tiling = dotTiling(op, lhsFree); tiling == DotTiling::Scalar) {
    emitDotScalarTiles(op, lhsFree);
    return;
  } else if (tiling != DotTiling::None) {
    emitDotRegisterTiles(op, lhsFree, tiling);
    return;
  }
  auto form = [&](const std::string& text) {
    if (target_ == Target::Cpu) noteDotForm(op, text);
  };
  if (target_ == Target::Cpu && !isLocal(out)) {
    int64_t rowsPerBatch = 1;
    for (size_t d = a.lhsBatch.size(); d < a.lhsBatch.size() + lhsFree; ++d) {
      rowsPerBatch *= out->type.dims[d];
    }
    if (rowsPerBatch % kTileRows == 0 && cols % kTileCols == 0 && cols > 0 &&
        product(contractDims) >= kTileRows) {
      form("scalar tiles of 4 rows x 16 columns");
      emitDotTiled(op, lhsFree);
      return;
    }
    if (cols <= kMaxRowAccumulators) {
      form("by rows (a row of accumulators per iteration)");
      emitDotByRows(op, lhsFree);
      return;
    }
  }
  form(isLocal(out) ? "in registers, element by element" : "element by element");
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line(accType + " acc = lf_convert<" + accType + ">((int32_t)0);");
  open("for (int64_t k = 0; k < " + std::to_string(product(contractDims)) + "; ++k)");
  declareMultiIndex(contractDims, "k", "c");
  std::string l = asAccumulator(
      lhs, acc,
      at(lhs, ElementIndex{"", dotOperandIndex(lhs, a.lhsBatch, a.lhsContracting, "o", batch)}));
  std::string r = asAccumulator(
      rhs, acc,
      at(rhs, ElementIndex{
                  "", dotOperandIndex(rhs, a.rhsBatch, a.rhsContracting, "o", batch + lhsFree)}));
  line("acc = " + multiplyAccumulate(acc, "acc", l, r) + ";");
  close();
  line(at(out, "i") + " = " +
       (acc == out->type.dtype ? "acc" : "lf_convert<" + cType(out->type.dtype) + ">(acc)") + ";");
  close();
  endStage(op);
}

// The CPU form of a dot: one SPMD iteration per output row (batch and lhs free dims), a row of
// accumulators over the rhs free dims, and the contraction outside the loop over that row, so the
// innermost loop reads the rhs row contiguously and vectorizes. Each output element still sums its
// products in increasing contraction order: the same bits as the element-by-element form.
void Emitter::emitDotByRows(const ir::Op& op, int64_t lhsFree) {
  const DotForm f = dotForm(op, lhsFree);
  const ir::Value *lhs = f.lhs, *rhs = f.rhs, *out = f.out;
  const ir::DotAttrs& a = f.attrs;
  const DType acc = f.acc;
  const std::string accType = cType(acc);
  int64_t cols = product(f.colDims);
  openParallelLoop(product(f.rowDims), "row");
  declareMultiIndex(f.rowDims, "row", "o");
  line(accType + " acc[" + std::to_string(std::max<int64_t>(1, cols)) + "];");
  line("for (int64_t j = 0; j < " + std::to_string(cols) + "; ++j) acc[j] = lf_convert<" + accType +
       ">((int32_t)0);");
  open("for (int64_t k = 0; k < " + std::to_string(product(f.contractDims)) + "; ++k)");
  declareMultiIndex(f.contractDims, "k", "c");
  // Row dims are the batch dims then the lhs free dims (o...); the rhs free dims are n0...
  const ElementIndex lhsAt{"", dotOperandIndex(lhs, a.lhsBatch, a.lhsContracting, "o", f.batch)};
  line("const " + accType + " l = " + asAccumulator(lhs, acc, at(lhs, lhsAt)) + ";");
  open("for (int64_t j = 0; j < " + std::to_string(cols) + "; ++j)");
  declareMultiIndex(f.colDims, "j", "n");
  const ElementIndex rhsAt{"", dotOperandIndex(rhs, a.rhsBatch, a.rhsContracting, "n", 0)};
  line("acc[j] = " +
       multiplyAccumulate(acc, "acc[j]", "l", asAccumulator(rhs, acc, at(rhs, rhsAt))) + ";");
  close();
  close();
  open("for (int64_t j = 0; j < " + std::to_string(cols) + "; ++j)");
  line(at(out, "row * " + std::to_string(cols) + " + j") + " = " +
       (acc == out->type.dtype ? "acc[j]" : "lf_convert<" + cType(out->type.dtype) + ">(acc[j])") +
       ";");
  close();
  close();
  endStage(op);
}

// The CPU form of a dot whose rows and columns divide into tiles: each SPMD iteration computes a
// tile of kTileRows x kTileCols results, whose accumulators the C++ compiler keeps in vector
// registers for the whole contraction (a GEMM micro-kernel: each rhs element loaded once per
// tile, not once per row). Each result still sums its products in increasing contraction order:
// the same bits as the other forms.
void Emitter::emitDotTiled(const ir::Op& op, int64_t lhsFree) {
  const DotForm f = dotForm(op, lhsFree);
  const ir::Value *lhs = f.lhs, *rhs = f.rhs, *out = f.out;
  const ir::DotAttrs& a = f.attrs;
  const DType acc = f.acc;
  const std::string accType = cType(acc);
  const int64_t cols = product(f.colDims);
  const int64_t colTiles = cols / kTileCols;
  const std::string tr = std::to_string(kTileRows), tc = std::to_string(kTileCols);
  openParallelLoop(product(f.rowDims) / kTileRows * colTiles, "tile");
  line("const int64_t row0 = (tile / " + std::to_string(colTiles) + ") * " + tr +
       ", col0 = (tile % " + std::to_string(colTiles) + ") * " + tc + ";");
  // The tile's rows share their batch indices (rows per batch divide into tiles): b0, b1, ...
  line("[[maybe_unused]] const int64_t brow = row0;");
  declareMultiIndex(f.rowDims, "brow", "b");
  line(accType + " acc[" + tr + "][" + tc + "];");
  line("for (int64_t ii = 0; ii < " + tr + "; ++ii) for (int64_t jj = 0; jj < " + tc +
       "; ++jj) acc[ii][jj] = lf_convert<" + accType + ">((int32_t)0);");
  open("for (int64_t k = 0; k < " + std::to_string(product(f.contractDims)) + "; ++k)");
  declareMultiIndex(f.contractDims, "k", "c");
  open("for (int64_t ii = 0; ii < " + tr + "; ++ii)");
  line("[[maybe_unused]] const int64_t row = row0 + ii;");
  declareMultiIndex(f.rowDims, "row", "o");
  const ElementIndex lhsAt{"", dotOperandIndex(lhs, a.lhsBatch, a.lhsContracting, "o", f.batch)};
  line("const " + accType + " l = " + asAccumulator(lhs, acc, at(lhs, lhsAt)) + ";");
  // The rhs row is read straight from memory (vector loads; a copy in a local array would be
  // written element by element and read back by vector, which stalls store forwarding).
  open("for (int64_t jj = 0; jj < " + tc + "; ++jj)");
  line("[[maybe_unused]] const int64_t j = col0 + jj;");
  declareMultiIndex(f.colDims, "j", "n");
  const ElementIndex rhsAt{"", dotOperandIndex(rhs, a.rhsBatch, a.rhsContracting, "n", 0, "b")};
  line("acc[ii][jj] = " +
       multiplyAccumulate(acc, "acc[ii][jj]", "l", asAccumulator(rhs, acc, at(rhs, rhsAt))) + ";");
  close();
  close();
  close();
  open("for (int64_t ii = 0; ii < " + tr + "; ++ii)");
  open("for (int64_t jj = 0; jj < " + tc + "; ++jj)");
  line(at(out, "(row0 + ii) * " + std::to_string(cols) + " + col0 + jj") + " = " +
       (acc == out->type.dtype ? "acc[ii][jj]"
                               : "lf_convert<" + cType(out->type.dtype) + ">(acc[ii][jj])") +
       ";");
  close();
  close();
  close();
  endStage(op);
}

void Emitter::noteDotForm(const ir::Op& op, const std::string& form) {
  auto shape = [](const ir::Value* v) {
    std::string text = std::string(dtypeName(v->type.dtype)) + "[";
    for (size_t d = 0; d < v->type.dims.size(); ++d)
      text += (d ? "," : "") + std::to_string(v->type.dims[d]);
    return text + "]";
  };
  std::string text =
      op.name + " " + shape(op.operands[0]) + " x " + shape(op.operands[1]) + ": " + form;
  if (std::find(dotForms_.begin(), dotForms_.end(), text) == dotForms_.end())
    dotForms_.push_back(std::move(text));
}

std::string Emitter::dotFormsText() const {
  if (dotForms_.empty()) return "";
  std::string text = "dots on the CPU (every form sums each result as one fma chain in order):\n";
  for (const std::string& f : dotForms_) text += "  " + f + "\n";
  return text;
}

}  // namespace lf::codegen
