// Rules for cholesky and triangular-solve (XLA's shape inference for its ops of those names, which
// also fit the LAPACK/cuSOLVER custom calls JAX emits for them).
#include <algorithm>

#include "ir/op_rules.h"

namespace lf::ir::detail {
namespace {

// "" when `t` is a batch of square f32/f64 matrices.
std::string squareMatrices(const Op& op, const Type& t) {
  const std::string name = opKindName(op.kind);
  if (t.dtype != DType::F32 && t.dtype != DType::F64) {
    return name + " of " + t.toString() + ": only f32 and f64 matrices";
  }
  if (t.rank() < 2 || t.dims[t.rank() - 1] != t.dims[t.rank() - 2]) {
    return name + " needs square matrices in its last two dimensions, got " + t.toString();
  }
  return "";
}

std::string checkCholesky(const Op& op) {
  if (!std::holds_alternative<CholeskyAttrs>(op.attrs)) return "cholesky needs CholeskyAttrs";
  if (op.operands.size() != 1 || op.results.size() != 2) {
    return "cholesky takes one operand and gives (factor, info)";
  }
  const Type& a = op.operands[0]->type;
  if (auto e = squareMatrices(op, a); !e.empty()) return e;
  const Type info{DType::S32, std::vector<int64_t>(a.dims.begin(), a.dims.end() - 2)};
  if (op.result(0)->type != a || op.result(1)->type != info) {
    return "type mismatch: cholesky of " + a.toString() + " gives " + a.toString() + ", " +
           info.toString() + ", not " + op.result(0)->type.toString() + ", " +
           op.result(1)->type.toString();
  }
  return "";
}

std::string checkTriangularSolve(const Op& op) {
  auto* attrs = std::get_if<TriangularSolveAttrs>(&op.attrs);
  if (attrs == nullptr) return "triangular-solve needs TriangularSolveAttrs";
  if (op.operands.size() != 2 || op.results.size() != 1) {
    return "triangular-solve takes (a, b) and gives one result";
  }
  const Type& a = op.operands[0]->type;
  const Type& b = op.operands[1]->type;
  if (auto e = squareMatrices(op, a); !e.empty()) return e;
  const int r = a.rank();
  const bool batchMatches =
      b.rank() == r && std::equal(a.dims.begin(), a.dims.end() - 2, b.dims.begin());
  const int64_t m = a.dims[r - 1];
  const int64_t bm = batchMatches ? b.dims[attrs->leftSide ? r - 2 : r - 1] : -1;
  if (b.dtype != a.dtype || !batchMatches || bm != m) {
    return "shape mismatch: triangular-solve of a " + a.toString() + " needs b [..., " +
           std::to_string(m) + (attrs->leftSide ? ", n]" : "] as its last dimension") +
           " with a's batch and dtype, got " + b.toString();
  }
  if (op.result()->type != b) {
    return "type mismatch: triangular-solve gives " + b.toString() + ", not " +
           op.result()->type.toString();
  }
  return "";
}

}  // namespace

std::string checkLinalg(const Op& op) {
  return op.kind == OpKind::Cholesky ? checkCholesky(op) : checkTriangularSolve(op);
}

}  // namespace lf::ir::detail
