// The view of a dot that its CPU and generic forms share (emit_dot.cc, emit_dot_tiles.cc): output
// rows by columns, the operands' index expressions, and how a product is accumulated.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/emitter.h"

namespace lf::codegen::dot {

inline int64_t product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

inline bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// f16 and bf16 products accumulate in f32; other types in the result type.
inline DType accumulatorType(DType out) {
  return out == DType::F16 || out == DType::BF16 ? DType::F32 : out;
}

// The index components of dot operand `v`: batch dim b is o<b>, contracting dim c is c<c>, and the
// free dims, in order, are <freePrefix><firstFree>, <freePrefix><firstFree + 1>, ...
inline std::vector<std::string> dotOperandIndex(const ir::Value* v,
                                                const std::vector<int64_t>& batch,
                                                const std::vector<int64_t>& contracting,
                                                const std::string& freePrefix, int64_t firstFree,
                                                const std::string& batchPrefix = "o") {
  std::vector<std::string> ix(v->type.rank());
  for (size_t b = 0; b < batch.size(); ++b) ix[batch[b]] = batchPrefix + std::to_string(b);
  for (size_t c = 0; c < contracting.size(); ++c) {
    ix[contracting[c]] = "c" + std::to_string(c);
  }
  int64_t next = firstFree;
  for (int d = 0; d < v->type.rank(); ++d) {
    if (!contains(batch, d) && !contains(contracting, d))
      ix[d] = freePrefix + std::to_string(next++);
  }
  return ix;
}

// acc + l*r as a dot accumulates it: in f32 and f64 one fma, rounded once, because that is how
// XLA:CPU's dots (YNNPACK's micro-kernels and its LLVM loops) sum most shapes' results: a chain of
// fmas in increasing contraction order (docs/ARCHITECTURE.md lists shapes that XLA sums otherwise).
// Other types multiply, then add.
inline std::string multiplyAccumulate(DType acc, const std::string& sum, const std::string& l,
                                      const std::string& r) {
  if (acc == DType::F32 || acc == DType::F64) return "lf_fma(" + l + ", " + r + ", " + sum + ")";
  return "lf_add(" + sum + ", lf_multiply(" + l + ", " + r + "))";
}

// An operand element as the accumulator type.
inline std::string asAccumulator(const ir::Value* v, DType acc, const std::string& e) {
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

inline DotForm dotForm(const ir::Op& op, int64_t lhsFree) {
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

// The vector type of the CPU's register tiles (lf_cpu_vector.h) for elements of type t.
inline std::string vectorType(DType t, int vectorBytes) {
  const bool f64 = t == DType::F64;
  return std::string(f64 ? "lf_vf64x" : "lf_vf32x") + std::to_string(vectorBytes / (f64 ? 8 : 4));
}

// The register tile of one vector width (the dot's and the convolution's): 2 vectors of results
// per row where the columns fill them, else 1; 8 rows (6 with two 32-byte vectors: AVX2 has 16
// registers), at most the rows there are. Columns narrower than a 64-byte vector use 32-byte ones
// even where 64-byte ones exist.
struct TileShape {
  int vectorBytes;
  int64_t lanes, vectors, rows;
};

inline TileShape tileShape(int64_t cols, int64_t rows, int64_t elementBytes, int widestBytes) {
  const int vectorBytes = cols * elementBytes < widestBytes ? 32 : widestBytes;
  const int64_t lanes = vectorBytes / elementBytes;
  const int64_t vectors = cols >= 2 * lanes ? 2 : 1;
  return {vectorBytes, lanes, vectors,
          std::min<int64_t>(rows, vectorBytes == 32 && vectors == 2 ? 6 : 8)};
}

// The nests of tiles of shape t that cover rows x cols: whole tiles, then the last columns of
// every row of tiles, the last rows of every column of tiles, and the corner. `nest` gets (rows
// per tile, first row, tiles along the rows, columns per tile, first column, tiles along the
// columns); whole tiles are width = vectors * lanes columns apart.
template <class Nest>
void forEachTileNest(const TileShape& t, int64_t rows, int64_t cols, Nest nest) {
  const int64_t width = t.vectors * t.lanes;
  const int64_t fullCols = cols / width * width, fullRows = rows / t.rows * t.rows;
  nest(t.rows, 0, rows / t.rows, width, 0, cols / width);
  if (cols > fullCols) nest(t.rows, 0, rows / t.rows, cols - fullCols, fullCols, 1);
  if (rows > fullRows) nest(rows - fullRows, fullRows, 1, width, 0, cols / width);
  if (rows > fullRows && cols > fullCols) {
    nest(rows - fullRows, fullRows, 1, cols - fullCols, fullCols, 1);
  }
}

}  // namespace lf::codegen::dot
