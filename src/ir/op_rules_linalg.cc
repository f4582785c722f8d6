// Rules for cholesky, triangular-solve, lu and lu-pivots-to-permutation (XLA's shape inference for
// its ops of those names, which also fit the LAPACK/cuSOLVER custom calls JAX emits for them), and
// for qr, householder-product and eigh (the shapes of LAPACK's geqrf, orgqr and syevd), and for
// fft (XLA's FFT along one dimension, complex values as (real, imaginary) pairs).
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

// "" when `t` is a batch of f32/f64 matrices.
std::string floatMatrices(const Op& op, const Type& t) {
  const std::string name = opKindName(op.kind);
  if (t.dtype != DType::F32 && t.dtype != DType::F64) {
    return name + " of " + t.toString() + ": only f32 and f64 matrices";
  }
  if (t.rank() < 2) return name + " needs matrices in its last two dimensions, got " + t.toString();
  return "";
}

// The dimensions of one vector of `last` elements per matrix of `t`.
std::vector<int64_t> batchOf(const Type& t, int64_t last) {
  std::vector<int64_t> dims(t.dims.begin(), t.dims.end() - 2);
  dims.push_back(last);
  return dims;
}

// "" when operands [first, first + 2) are the real and imaginary parts of one complex array
// (the same type).
std::string complexPair(const Op& op, size_t first) {
  const Type& re = op.operands[first]->type;
  const Type& im = op.operands[first + 1]->type;
  if (re != im) {
    return std::string(opKindName(op.kind)) + " of a complex matrix needs its real and " +
           "imaginary parts of one type, got " + re.toString() + " and " + im.toString();
  }
  return "";
}

std::string checkCholesky(const Op& op) {
  if (!std::holds_alternative<CholeskyAttrs>(op.attrs)) return "cholesky needs CholeskyAttrs";
  const size_t parts = op.operands.size();
  if ((parts != 1 && parts != 2) || op.results.size() != parts + 1) {
    return "cholesky takes a (or its real and imaginary parts) and gives (factor, info)";
  }
  const Type& a = op.operands[0]->type;
  if (auto e = squareMatrices(op, a); !e.empty()) return e;
  if (parts == 2) {
    if (auto e = complexPair(op, 0); !e.empty()) return e;
  }
  const Type info{DType::S32, std::vector<int64_t>(a.dims.begin(), a.dims.end() - 2)};
  bool ok = op.results.back()->type == info;
  for (size_t i = 0; i < parts; ++i) ok = ok && op.result(i)->type == a;
  if (!ok) {
    return "type mismatch: cholesky of " + a.toString() + " gives the factor " + a.toString() +
           " and info " + info.toString();
  }
  return "";
}

std::string checkTriangularSolve(const Op& op) {
  auto* attrs = std::get_if<TriangularSolveAttrs>(&op.attrs);
  if (attrs == nullptr) return "triangular-solve needs TriangularSolveAttrs";
  const size_t parts = op.results.size();
  if ((parts != 1 && parts != 2) || op.operands.size() != 2 * parts) {
    return "triangular-solve takes (a, b) (or their real and imaginary parts) and gives x";
  }
  const Type& a = op.operands[0]->type;
  const Type& b = op.operands[parts]->type;
  if (auto e = squareMatrices(op, a); !e.empty()) return e;
  if (parts == 2) {
    if (auto e = complexPair(op, 0); !e.empty()) return e;
    if (auto e = complexPair(op, 2); !e.empty()) return e;
  } else if (attrs->conjugateA) {
    return "triangular-solve conjugates a only when a is complex";
  }
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
  for (size_t i = 0; i < parts; ++i) {
    if (op.result(i)->type != b) {
      return "type mismatch: triangular-solve gives " + b.toString() + ", not " +
             op.result(i)->type.toString();
    }
  }
  return "";
}

std::string checkLu(const Op& op) {
  const size_t parts = op.operands.size();
  if ((parts != 1 && parts != 2) || op.results.size() != parts + 2) {
    return "lu takes a (or its real and imaginary parts) and gives (lu, pivots, info)";
  }
  const Type& a = op.operands[0]->type;
  if (auto e = floatMatrices(op, a); !e.empty()) return e;
  if (parts == 2) {
    if (auto e = complexPair(op, 0); !e.empty()) return e;
  }
  const std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - 2);
  const Type p{DType::S32, batchOf(a, std::min(a.dims[a.rank() - 2], a.dims[a.rank() - 1]))};
  const Type info{DType::S32, batch};
  bool ok = op.result(parts)->type == p && op.result(parts + 1)->type == info;
  for (size_t i = 0; i < parts; ++i) ok = ok && op.result(i)->type == a;
  if (!ok) {
    return "type mismatch: lu of " + a.toString() + " gives " + a.toString() + ", " + p.toString() +
           ", " + info.toString();
  }
  return "";
}

std::string checkPivotsToPermutation(const Op& op) {
  if (op.operands.size() != 1 || op.results.size() != 1) {
    return "lu-pivots-to-permutation takes the pivots and gives the permutation";
  }
  const Type& p = op.operands[0]->type;
  const Type& out = op.result()->type;
  const bool ok = p.dtype == DType::S32 && out.dtype == DType::S32 && p.rank() >= 1 &&
                  out.rank() == p.rank() &&
                  std::equal(p.dims.begin(), p.dims.end() - 1, out.dims.begin()) &&
                  out.dims.back() >= p.dims.back();
  if (!ok) {
    return "type mismatch: lu-pivots-to-permutation of " + p.toString() + " cannot give " +
           out.toString() + " (s32, the same batch, at least as many rows as pivots)";
  }
  return "";
}

std::string checkQr(const Op& op) {
  const size_t parts = op.operands.size();
  if ((parts != 1 && parts != 2) || op.results.size() != 2 * parts) {
    return "qr takes a (or its real and imaginary parts) and gives (a, taus)";
  }
  const Type& a = op.operands[0]->type;
  if (auto e = floatMatrices(op, a); !e.empty()) return e;
  if (parts == 2) {
    if (auto e = complexPair(op, 0); !e.empty()) return e;
  }
  const Type taus{a.dtype, batchOf(a, std::min(a.dims[a.rank() - 2], a.dims[a.rank() - 1]))};
  bool ok = true;
  for (size_t i = 0; i < parts; ++i) {
    ok = ok && op.result(i)->type == a && op.result(parts + i)->type == taus;
  }
  if (!ok) {
    return "type mismatch: qr of " + a.toString() + " gives " + a.toString() + ", " +
           taus.toString();
  }
  return "";
}

std::string checkHouseholderProduct(const Op& op) {
  const size_t parts = op.results.size();
  if ((parts != 1 && parts != 2) || op.operands.size() != 2 * parts) {
    return "householder-product takes (a, taus) (or their real and imaginary parts) and gives q";
  }
  const Type& a = op.operands[0]->type;
  const Type& taus = op.operands[parts]->type;
  if (auto e = floatMatrices(op, a); !e.empty()) return e;
  if (parts == 2) {
    if (auto e = complexPair(op, 0); !e.empty()) return e;
    if (auto e = complexPair(op, 2); !e.empty()) return e;
  }
  const int64_t m = a.dims[a.rank() - 2], n = a.dims[a.rank() - 1];
  const int64_t k = taus.rank() == a.rank() - 1 ? taus.dims.back() : -1;
  if (taus != Type{a.dtype, batchOf(a, k)} || k > n || n > m) {
    return "shape mismatch: householder-product of a " + a.toString() + " needs taus [..., k] " +
           "with a's batch and dtype and m >= n >= k, got " + taus.toString();
  }
  for (size_t i = 0; i < parts; ++i) {
    if (op.result(i)->type != a) {
      return "type mismatch: householder-product gives " + a.toString() + ", not " +
             op.result(i)->type.toString();
    }
  }
  return "";
}

std::string checkOrmqr(const Op& op) {
  auto* attrs = std::get_if<OrmqrAttrs>(&op.attrs);
  if (!attrs) return "ormqr needs OrmqrAttrs";
  if (op.operands.size() != 3 || op.results.size() != 1) {
    return "ormqr takes (a, taus, c) and gives one result";
  }
  const Type& a = op.operands[0]->type;
  const Type& taus = op.operands[1]->type;
  const Type& c = op.operands[2]->type;
  if (auto e = floatMatrices(op, a); !e.empty()) return e;
  if (auto e = floatMatrices(op, c); !e.empty()) return e;
  const int64_t nq = a.dims[a.rank() - 2], n = a.dims[a.rank() - 1];
  const int64_t k = taus.rank() == a.rank() - 1 ? taus.dims.back() : -1;
  if (taus != Type{a.dtype, batchOf(a, k)} || k > n || k > nq) {
    return "shape mismatch: ormqr of a " + a.toString() + " needs taus [..., k] with a's batch " +
           "and dtype and k <= both dimensions, got " + taus.toString();
  }
  const int64_t cDim = c.dims[attrs->left ? c.rank() - 2 : c.rank() - 1];
  if (c.dtype != a.dtype || batchOf(c, -1) != batchOf(a, -1) || cDim != nq) {
    return std::string("shape mismatch: ormqr ") + (attrs->left ? "left" : "right") + " of a " +
           a.toString() + " needs c with a's batch and dtype and " + std::to_string(nq) +
           (attrs->left ? " rows" : " columns") + ", got " + c.toString();
  }
  if (op.result()->type != c) {
    return "type mismatch: ormqr gives " + c.toString() + ", not " + op.result()->type.toString();
  }
  return "";
}

std::string checkEigh(const Op& op) {
  const size_t parts = op.operands.size();
  if ((parts != 1 && parts != 2) || op.results.size() != parts + 2) {
    return "eigh takes a (or its real and imaginary parts) and gives (vectors, values, info)";
  }
  const Type& a = op.operands[0]->type;
  if (auto e = squareMatrices(op, a); !e.empty()) return e;
  if (parts == 2) {
    if (auto e = complexPair(op, 0); !e.empty()) return e;
  }
  const Type values{a.dtype, batchOf(a, a.dims.back())};
  const Type info{DType::S32, std::vector<int64_t>(a.dims.begin(), a.dims.end() - 2)};
  bool ok = op.result(parts)->type == values && op.result(parts + 1)->type == info;
  for (size_t i = 0; i < parts; ++i) ok = ok && op.result(i)->type == a;
  if (!ok) {
    return "type mismatch: eigh of " + a.toString() + " gives " + a.toString() + ", " +
           values.toString() + ", " + info.toString();
  }
  return "";
}

std::string checkEigValues(const Op& op) {
  if (op.operands.size() != 1 || op.results.size() != 4) {
    return "eig-values takes a and gives (a, wr, wi, info)";
  }
  const Type& a = op.operands[0]->type;
  if (auto e = squareMatrices(op, a); !e.empty()) return e;
  if (a.dims.back() > kGeevMaxRows) {
    return "eig-values of " + a.toString() + ": at most " + std::to_string(kGeevMaxRows) + " rows";
  }
  const Type values{a.dtype, batchOf(a, a.dims.back())};
  const Type info{DType::S32, std::vector<int64_t>(a.dims.begin(), a.dims.end() - 2)};
  if (op.result(0)->type != a || op.result(1)->type != values || op.result(2)->type != values ||
      op.result(3)->type != info) {
    return "type mismatch: eig-values of " + a.toString() + " gives " + a.toString() + ", " +
           values.toString() + ", " + values.toString() + ", " + info.toString();
  }
  return "";
}

std::string checkSvd(const Op& op) {
  if (!std::holds_alternative<SvdAttrs>(op.attrs)) return "svd needs SvdAttrs";
  const SvdAttrs& attrs = op.attr<SvdAttrs>();
  // A complex a (its real and imaginary parts) gives only the values: (a_re, a_im, values, info).
  const bool complex = op.operands.size() == 2;
  if (complex && attrs.computeUv) return "svd of a complex matrix gives no vectors";
  const size_t results = attrs.computeUv ? 5 : complex ? 4 : 3;
  if ((op.operands.size() != 1 && !complex) || op.results.size() != results) {
    return std::string("svd takes a (or its real and imaginary parts) and gives ") +
           (attrs.computeUv ? "(a, values, u, vt, info)" : "(a, values, info)");
  }
  const Type& a = op.operands[0]->type;
  if (auto e = floatMatrices(op, a); !e.empty()) return e;
  if (complex) {
    if (auto e = complexPair(op, 0); !e.empty()) return e;
  }
  const int64_t m = a.dims[a.rank() - 2], n = a.dims.back(), k = std::min(m, n);
  std::vector<Type> want{a, Type{a.dtype, batchOf(a, k)}};
  if (complex) want.insert(want.begin(), a);
  if (attrs.computeUv) {
    Type u = a, vt = a;
    u.dims.back() = attrs.fullMatrices ? m : k;
    vt.dims[vt.rank() - 2] = attrs.fullMatrices ? n : k;
    want.push_back(u);
    want.push_back(vt);
  }
  want.push_back(Type{DType::S32, std::vector<int64_t>(a.dims.begin(), a.dims.end() - 2)});
  for (size_t i = 0; i < results; ++i) {
    if (op.result(i)->type != want[i]) {
      return "type mismatch: svd of " + a.toString() + " gives " + want[i].toString() +
             " as result " + std::to_string(i) + ", not " + op.result(i)->type.toString();
    }
  }
  return "";
}

std::string checkFft(const Op& op) {
  if (!std::holds_alternative<FftAttrs>(op.attrs)) return "fft needs FftAttrs";
  const FftAttrs& a = op.attr<FftAttrs>();
  const bool realIn = a.kind == FftKind::RealForward, realOut = a.kind == FftKind::RealInverse;
  if (op.operands.size() != (realIn ? 1u : 2u) || op.results.size() != (realOut ? 1u : 2u)) {
    return "fft takes " + std::string(realIn ? "one operand" : "two operands (real, imaginary)") +
           " and gives " + (realOut ? "one result" : "two (real, imaginary)");
  }
  const Type& x = op.operands[0]->type;
  if (x.dtype != DType::F32 && x.dtype != DType::F64) {
    return "fft of " + x.toString() + ": only f32 and f64 (c64 and c128) values";
  }
  if (x.rank() < 1 || a.length < 1) return "fft needs a length and a last dimension";
  for (const Value* v : op.operands) {
    if (v->type != x) return "fft operands differ: " + x.toString() + ", " + v->type.toString();
  }
  const int64_t half = a.length / 2 + 1;
  const int64_t in = a.kind == FftKind::RealInverse ? half : a.length;
  const int64_t out = a.kind == FftKind::RealForward ? half : a.length;
  if (x.dims.back() != in) {
    return "fft of length " + std::to_string(a.length) + " needs " + std::to_string(in) +
           " points in the last dimension, got " + x.toString();
  }
  Type want = x;
  want.dims.back() = out;
  for (const auto& r : op.results) {
    if (r->type != want) {
      return "type mismatch: fft of " + x.toString() + " gives " + want.toString() + ", not " +
             r->type.toString();
    }
  }
  return "";
}

}  // namespace

std::string checkLinalg(const Op& op) {
  switch (op.kind) {
    case OpKind::Fft:
      return checkFft(op);
    case OpKind::Cholesky:
      return checkCholesky(op);
    case OpKind::TriangularSolve:
      return checkTriangularSolve(op);
    case OpKind::Lu:
      return checkLu(op);
    case OpKind::Qr:
      return checkQr(op);
    case OpKind::HouseholderProduct:
      return checkHouseholderProduct(op);
    case OpKind::Ormqr:
      return checkOrmqr(op);
    case OpKind::Eigh:
      return checkEigh(op);
    case OpKind::Svd:
      return checkSvd(op);
    case OpKind::EigValues:
      return checkEigValues(op);
    default:
      return checkPivotsToPermutation(op);
  }
}

}  // namespace lf::ir::detail
