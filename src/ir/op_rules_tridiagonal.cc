// Rules for tridiagonal-factor and tridiagonal-solve: the shapes of LAPACK's gtsv (jax's
// lax.linalg.tridiagonal_solve), split into the elimination on the diagonals and the substitution
// into the right-hand sides (ir.h). A complex array is two operands (or results), its real and
// imaginary parts, in place of one.
#include <algorithm>

#include "ir/op_rules.h"

namespace lf::ir::detail {
namespace {

// "" when the first `count` operands are f32/f64 diagonals [..., n] of one type.
std::string diagonals(const Op& op, size_t count) {
  const std::string name = opKindName(op.kind);
  const Type& d = op.operands[0]->type;
  if (d.dtype != DType::F32 && d.dtype != DType::F64) {
    return name + " of " + d.toString() + ": only f32 and f64 diagonals";
  }
  if (d.rank() < 1) return name + " needs diagonals [..., n], got " + d.toString();
  for (size_t i = 1; i < count; ++i) {
    if (op.operands[i]->type != d) {
      return "type mismatch: " + name + " diagonals " + d.toString() + " and " +
             op.operands[i]->type.toString();
    }
  }
  return "";
}

// "" when b is [..., n, k] over the diagonals d [..., n], of their dtype.
std::string rightHandSide(const Op& op, const Type& d, const Type& b) {
  const bool fits = b.dtype == d.dtype && b.rank() == d.rank() + 1 &&
                    std::equal(d.dims.begin(), d.dims.end(), b.dims.begin());
  if (fits) return "";
  return "shape mismatch: " + std::string(opKindName(op.kind)) + " of diagonals " + d.toString() +
         " needs b [..., n, k] with their dimensions first and their dtype, got " + b.toString();
}

// The factor's step codes (u8, one per row) and info (s32 over the batch).
Type stepsType(const Type& d) { return Type{DType::U8, d.dims}; }
Type infoType(const Type& d) {
  return Type{DType::S32, std::vector<int64_t>(d.dims.begin(), d.dims.end() - 1)};
}

std::string checkFactor(const Op& op) {
  const size_t parts = op.operands.size() / 3;
  if ((parts != 1 && parts != 2) || op.operands.size() != 3 * parts ||
      op.results.size() != 4 * parts + 2) {
    return "tridiagonal-factor takes (dl, d, du) (each its real and imaginary parts when complex) "
           "and gives (dl, d, du, multipliers, steps, info)";
  }
  if (auto e = diagonals(op, 3 * parts); !e.empty()) return e;
  const Type& d = op.operands[0]->type;
  std::vector<Type> want(4 * parts, d);
  want.push_back(stepsType(d));
  want.push_back(infoType(d));
  for (size_t i = 0; i < want.size(); ++i) {
    if (op.result(static_cast<int>(i))->type != want[i]) {
      return "type mismatch: tridiagonal-factor of " + d.toString() + " gives result " +
             std::to_string(i) + " " + want[i].toString() + ", not " +
             op.result(static_cast<int>(i))->type.toString();
    }
  }
  return "";
}

std::string checkSolve(const Op& op) {
  const size_t parts = op.results.size();
  if ((parts != 1 && parts != 2) || op.operands.size() != 5 * parts + 2) {
    return "tridiagonal-solve takes (dl, d, du, multipliers, steps, info, b) (the floats their "
           "real and imaginary parts when complex) and gives x";
  }
  if (auto e = diagonals(op, 4 * parts); !e.empty()) return e;
  const Type& d = op.operands[0]->type;
  if (op.operands[4 * parts]->type != stepsType(d) ||
      op.operands[4 * parts + 1]->type != infoType(d)) {
    return "type mismatch: tridiagonal-solve of " + d.toString() + " needs steps " +
           stepsType(d).toString() + " and info " + infoType(d).toString();
  }
  const Type& b = op.operands[4 * parts + 2]->type;
  if (auto e = rightHandSide(op, d, b); !e.empty()) return e;
  if (auto e = rightHandSide(op, d, op.operands.back()->type); !e.empty()) return e;
  for (size_t i = 0; i < parts; ++i) {
    if (op.result(static_cast<int>(i))->type != b) {
      return "type mismatch: tridiagonal-solve gives " + b.toString() + ", not " +
             op.result(static_cast<int>(i))->type.toString();
    }
  }
  return "";
}

std::string checkSolvePerturbed(const Op& op) {
  if (op.operands.size() != 4 || op.results.size() != 1) {
    return "tridiagonal-solve-perturbed takes (dl, d, du, b) and gives x";
  }
  if (auto e = diagonals(op, 3); !e.empty()) return e;
  const Type& d = op.operands[0]->type;
  const Type& b = op.operands[3]->type;
  if (auto e = rightHandSide(op, d, b); !e.empty()) return e;
  if (op.result()->type != b) {
    return "type mismatch: tridiagonal-solve-perturbed gives " + b.toString() + ", not " +
           op.result()->type.toString();
  }
  return "";
}

}  // namespace

std::string checkTridiagonal(const Op& op) {
  switch (op.kind) {
    case OpKind::TridiagonalFactor:
      return checkFactor(op);
    case OpKind::TridiagonalSolve:
      return checkSolve(op);
    default:
      return checkSolvePerturbed(op);
  }
}

}  // namespace lf::ir::detail
