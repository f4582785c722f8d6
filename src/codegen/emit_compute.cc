// Dot, reduce and reduce-window: one result element per SPMD iteration, an inner sequential loop
// over the contracted / reduced / window elements in row-major order.
#include <algorithm>
#include <string>

#include "codegen/emitter.h"

namespace lf::codegen {
namespace {

std::string idx(const std::string& prefix, int64_t d) { return prefix + std::to_string(d); }

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The tile of the CPU's tiled dot: 4 rows x 16 columns of accumulators (8 AVX2 registers of f32).
constexpr int64_t kTileRows = 4;
constexpr int64_t kTileCols = 16;

int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// f16 and bf16 products accumulate in f32; other types in the result type.
DType accumulatorType(DType out) {
  return out == DType::F16 || out == DType::BF16 ? DType::F32 : out;
}

// The index components of dot operand `v`: batch dim b is o<b>, contracting dim c is c<c>, and the
// free dims, in order, are <freePrefix><firstFree>, <freePrefix><firstFree + 1>, ...
std::vector<std::string> dotOperandIndex(const ir::Value* v, const std::vector<int64_t>& batch,
                                         const std::vector<int64_t>& contracting,
                                         const std::string& freePrefix, int64_t firstFree,
                                         const std::string& batchPrefix = "o") {
  std::vector<std::string> ix(v->type.rank());
  for (size_t b = 0; b < batch.size(); ++b)
    ix[batch[b]] = idx(batchPrefix, static_cast<int64_t>(b));
  for (size_t c = 0; c < contracting.size(); ++c) {
    ix[contracting[c]] = idx("c", static_cast<int64_t>(c));
  }
  int64_t next = firstFree;
  for (int d = 0; d < v->type.rank(); ++d) {
    if (!contains(batch, d) && !contains(contracting, d)) ix[d] = idx(freePrefix, next++);
  }
  return ix;
}

// An operand element as the accumulator type.
std::string asAccumulator(const ir::Value* v, DType acc, const std::string& e) {
  return v->type.dtype == acc ? e : "lf_convert<" + cType(acc) + ">(" + e + ")";
}

// The CPU forms' view of a dot: output rows (batch dims, then lhs free dims) by output columns (rhs
// free dims), and the contracted dims.
struct DotForm {
  const ir::Value* lhs;
  const ir::Value* rhs;
  const ir::Value* out;
  const ir::DotAttrs& attrs;
  DType acc;
  int64_t batch;
  std::vector<int64_t> rowDims, colDims, contractDims;
};

DotForm dotForm(const ir::Op& op, int64_t lhsFree) {
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::DotAttrs>();
  const int64_t batch = static_cast<int64_t>(a.lhsBatch.size());
  const auto split = out->type.dims.begin() + batch + lhsFree;
  DotForm f{op.operands[0],
            op.operands[1],
            out,
            a,
            accumulatorType(out->type.dtype),
            batch,
            {out->type.dims.begin(), split},
            {split, out->type.dims.end()},
            {}};
  for (int64_t d : a.lhsContracting) f.contractDims.push_back(f.lhs->type.dims[d]);
  return f;
}

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
  if (target_ == Target::Cpu && !isLocal(out)) {
    int64_t rowsPerBatch = 1;
    for (size_t d = a.lhsBatch.size(); d < a.lhsBatch.size() + lhsFree; ++d) {
      rowsPerBatch *= out->type.dims[d];
    }
    if (rowsPerBatch % kTileRows == 0 && cols % kTileCols == 0 && cols > 0 &&
        product(contractDims) >= kTileRows) {
      emitDotTiled(op, lhsFree);
      return;
    }
    if (cols <= kMaxRowAccumulators) {
      emitDotByRows(op, lhsFree);
      return;
    }
  }
  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line(accType + " acc = lf_convert<" + accType + ">((int32_t)0);");
  open("for (int64_t k = 0; k < " + std::to_string(product(contractDims)) + "; ++k)");
  declareMultiIndex(contractDims, "k", "c");
  std::string l = asAccumulator(
      lhs, acc,
      at(lhs,
         linear(lhs->type.dims, dotOperandIndex(lhs, a.lhsBatch, a.lhsContracting, "o", batch))));
  std::string r = asAccumulator(
      rhs, acc,
      at(rhs, linear(rhs->type.dims,
                     dotOperandIndex(rhs, a.rhsBatch, a.rhsContracting, "o", batch + lhsFree))));
  line("acc = lf_add(acc, lf_multiply(" + l + ", " + r + "));");
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
  std::string lhsAt =
      linear(lhs->type.dims, dotOperandIndex(lhs, a.lhsBatch, a.lhsContracting, "o", f.batch));
  line("const " + accType + " l = " + asAccumulator(lhs, acc, at(lhs, lhsAt)) + ";");
  open("for (int64_t j = 0; j < " + std::to_string(cols) + "; ++j)");
  declareMultiIndex(f.colDims, "j", "n");
  std::string rhsAt =
      linear(rhs->type.dims, dotOperandIndex(rhs, a.rhsBatch, a.rhsContracting, "n", 0));
  line("acc[j] = lf_add(acc[j], lf_multiply(l, " + asAccumulator(rhs, acc, at(rhs, rhsAt)) + "));");
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
  line("const int64_t brow = row0;");
  declareMultiIndex(f.rowDims, "brow", "b");
  line(accType + " acc[" + tr + "][" + tc + "];");
  line("for (int64_t ii = 0; ii < " + tr + "; ++ii) for (int64_t jj = 0; jj < " + tc +
       "; ++jj) acc[ii][jj] = lf_convert<" + accType + ">((int32_t)0);");
  open("for (int64_t k = 0; k < " + std::to_string(product(f.contractDims)) + "; ++k)");
  declareMultiIndex(f.contractDims, "k", "c");
  open("for (int64_t ii = 0; ii < " + tr + "; ++ii)");
  line("const int64_t row = row0 + ii;");
  declareMultiIndex(f.rowDims, "row", "o");
  std::string lhsAt =
      linear(lhs->type.dims, dotOperandIndex(lhs, a.lhsBatch, a.lhsContracting, "o", f.batch));
  line("const " + accType + " l = " + asAccumulator(lhs, acc, at(lhs, lhsAt)) + ";");
  // The rhs row is read straight from memory (vector loads; a copy in a local array would be
  // written element by element and read back by vector, which stalls store forwarding).
  open("for (int64_t jj = 0; jj < " + tc + "; ++jj)");
  line("const int64_t j = col0 + jj;");
  declareMultiIndex(f.colDims, "j", "n");
  std::string rhsAt =
      linear(rhs->type.dims, dotOperandIndex(rhs, a.rhsBatch, a.rhsContracting, "n", 0, "b"));
  line("acc[ii][jj] = lf_add(acc[ii][jj], lf_multiply(l, " +
       asAccumulator(rhs, acc, at(rhs, rhsAt)) + "));");
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
