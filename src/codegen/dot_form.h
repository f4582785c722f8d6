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

}  // namespace lf::codegen::dot
