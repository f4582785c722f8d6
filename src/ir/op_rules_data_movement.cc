// Rules for the data-movement ops: broadcast, reshape, transpose, slices, concatenate, pad,
// reverse. Each derives the result type the way XLA's shape inference does and compares. One
// deliberate narrowing: XLA lets a broadcast map a size-1 operand dimension to a larger one; the IR
// requires equal sizes (the frontend inserts a reshape first) so that later stages need not care.
#include <algorithm>
#include <set>

#include "ir/op_rules.h"

namespace lf::ir::detail {
namespace {

std::string counts(const Op& op, size_t operands) {
  if (op.operands.size() != operands) {
    return std::string(opKindName(op.kind)) + " takes " + std::to_string(operands) +
           " operands, got " + std::to_string(op.operands.size());
  }
  if (op.results.size() != 1) return std::string(opKindName(op.kind)) + " has one result";
  if (!op.regions.empty()) return std::string(opKindName(op.kind)) + " takes no regions";
  return "";
}

// "" when `dims` are distinct and in [0, rank).
std::string checkDimList(const std::vector<int64_t>& dims, int rank, const char* what) {
  std::set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) {
      return std::string(what) + " " + ints(dims) + " out of range for rank " +
             std::to_string(rank);
    }
    if (!seen.insert(d).second) return std::string(what) + " " + ints(dims) + " repeat a dimension";
  }
  return "";
}

std::string mismatch(const Op& op, const Type& expect) {
  return "type mismatch: " + std::string(opKindName(op.kind)) + " of " + typeList(op.operands) +
         " gives " + expect.toString() + ", not " + op.result()->type.toString();
}

std::string expectResult(const Op& op, const Type& expect) {
  return op.result()->type == expect ? "" : mismatch(op, expect);
}

template <class A>
const A* attrsOf(const Op& op) {
  return std::get_if<A>(&op.attrs);
}

std::string checkBroadcast(const Op& op) {
  if (auto e = counts(op, 1); !e.empty()) return e;
  auto* a = attrsOf<BroadcastAttrs>(op);
  if (!a) return "broadcast needs BroadcastAttrs";
  const Type& in = op.operands[0]->type;
  const Type& out = op.result()->type;
  if (static_cast<int>(a->dimensions.size()) != in.rank()) {
    return "broadcast dimensions " + ints(a->dimensions) + " do not match operand rank " +
           std::to_string(in.rank());
  }
  if (auto e = checkDimList(a->dimensions, out.rank(), "broadcast dimensions"); !e.empty())
    return e;
  if (!std::is_sorted(a->dimensions.begin(), a->dimensions.end())) {
    return "broadcast dimensions " + ints(a->dimensions) + " must be increasing";
  }
  if (in.dtype != out.dtype) return mismatch(op, Type{in.dtype, out.dims});
  for (int i = 0; i < in.rank(); ++i) {
    if (in.dims[i] != out.dims[a->dimensions[i]]) {
      return "broadcast of " + in.toString() + " to " + out.toString() + ": operand dimension " +
             std::to_string(i) + " does not match result dimension " +
             std::to_string(a->dimensions[i]);
    }
  }
  return "";
}

std::string checkReshape(const Op& op) {
  if (auto e = counts(op, 1); !e.empty()) return e;
  const Type& in = op.operands[0]->type;
  const Type& out = op.result()->type;
  if (in.dtype != out.dtype || in.numElements() != out.numElements()) {
    return "reshape of " + in.toString() + " to " + out.toString() +
           " changes the element type or count";
  }
  return "";
}

std::string checkTranspose(const Op& op) {
  if (auto e = counts(op, 1); !e.empty()) return e;
  auto* a = attrsOf<TransposeAttrs>(op);
  if (!a) return "transpose needs TransposeAttrs";
  const Type& in = op.operands[0]->type;
  if (static_cast<int>(a->permutation.size()) != in.rank()) {
    return "transpose permutation " + ints(a->permutation) + " is not a permutation of rank " +
           std::to_string(in.rank());
  }
  if (auto e = checkDimList(a->permutation, in.rank(), "transpose permutation"); !e.empty())
    return e;
  Type expect{in.dtype, {}};
  for (int64_t p : a->permutation) expect.dims.push_back(in.dims[p]);
  return expectResult(op, expect);
}

std::string checkSlice(const Op& op) {
  if (auto e = counts(op, 1); !e.empty()) return e;
  auto* a = attrsOf<SliceAttrs>(op);
  if (!a) return "slice needs SliceAttrs";
  const Type& in = op.operands[0]->type;
  size_t r = static_cast<size_t>(in.rank());
  if (a->starts.size() != r || a->limits.size() != r || a->strides.size() != r) {
    return "slice has " + std::to_string(a->starts.size()) + " ranges for operand " + in.toString();
  }
  Type expect{in.dtype, {}};
  for (size_t i = 0; i < r; ++i) {
    int64_t s = a->starts[i], l = a->limits[i], st = a->strides[i];
    if (s < 0 || l < s || l > in.dims[i] || st < 1) {
      return "slice range [" + std::to_string(s) + ":" + std::to_string(l) + ":" +
             std::to_string(st) + "] out of bounds for dimension " + std::to_string(i) + " of " +
             in.toString();
    }
    expect.dims.push_back((l - s + st - 1) / st);
  }
  return expectResult(op, expect);
}

std::string checkIndexScalars(const Op& op, size_t first) {
  for (size_t i = first; i < op.operands.size(); ++i) {
    const Type& t = op.operands[i]->type;
    if (!t.dims.empty() || !isInteger(t.dtype)) {
      return std::string(opKindName(op.kind)) + " index " + std::to_string(i - first) +
             " must be an integer scalar, got " + t.toString();
    }
    if (t.dtype != op.operands[first]->type.dtype) {
      return std::string(opKindName(op.kind)) + " indices must share one type, got " +
             typeList(op.operands);
    }
  }
  return "";
}

std::string checkDynamicSlice(const Op& op) {
  if (op.operands.empty()) return "dynamic-slice needs an operand";
  const Type& in = op.operands[0]->type;
  if (auto e = counts(op, 1 + in.rank()); !e.empty()) return e;
  auto* a = attrsOf<DynamicSliceAttrs>(op);
  if (!a) return "dynamic-slice needs DynamicSliceAttrs";
  if (static_cast<int>(a->sizes.size()) != in.rank()) {
    return "dynamic-slice sizes " + ints(a->sizes) + " do not match " + in.toString();
  }
  if (auto e = checkIndexScalars(op, 1); !e.empty()) return e;
  for (int i = 0; i < in.rank(); ++i) {
    if (a->sizes[i] < 0 || a->sizes[i] > in.dims[i]) {
      return "dynamic-slice sizes " + ints(a->sizes) + " exceed operand " + in.toString();
    }
  }
  return expectResult(op, Type{in.dtype, a->sizes});
}

std::string checkDynamicUpdateSlice(const Op& op) {
  if (op.operands.size() < 2) return "dynamic-update-slice needs an operand and an update";
  const Type& in = op.operands[0]->type;
  const Type& upd = op.operands[1]->type;
  if (auto e = counts(op, 2 + in.rank()); !e.empty()) return e;
  if (upd.dtype != in.dtype || upd.rank() != in.rank()) {
    return "type mismatch: dynamic-update-slice of " + in.toString() + " with update " +
           upd.toString();
  }
  for (int i = 0; i < in.rank(); ++i) {
    if (upd.dims[i] > in.dims[i]) {
      return "dynamic-update-slice update " + upd.toString() + " larger than " + in.toString();
    }
  }
  if (auto e = checkIndexScalars(op, 2); !e.empty()) return e;
  return expectResult(op, in);
}

std::string checkConcatenate(const Op& op) {
  if (op.operands.empty()) return "concatenate needs operands";
  if (op.results.size() != 1 || !op.regions.empty()) return "concatenate has one result";
  auto* a = attrsOf<ConcatenateAttrs>(op);
  if (!a) return "concatenate needs ConcatenateAttrs";
  const Type& first = op.operands[0]->type;
  int64_t d = a->dimension;
  if (d < 0 || d >= first.rank()) {
    return "concatenate dimension " + std::to_string(d) + " out of range for " + first.toString();
  }
  Type expect = first;
  expect.dims[d] = 0;
  for (const Value* v : op.operands) {
    const Type& t = v->type;
    bool ok = t.dtype == first.dtype && t.rank() == first.rank();
    for (int i = 0; ok && i < t.rank(); ++i) ok = i == d || t.dims[i] == first.dims[i];
    if (!ok) return "type mismatch: concatenate operands " + typeList(op.operands);
    expect.dims[d] += t.dims[d];
  }
  return expectResult(op, expect);
}

std::string checkPad(const Op& op) {
  if (auto e = counts(op, 2); !e.empty()) return e;
  auto* a = attrsOf<PadAttrs>(op);
  if (!a) return "pad needs PadAttrs";
  const Type& in = op.operands[0]->type;
  const Type& value = op.operands[1]->type;
  if (value.dtype != in.dtype || !value.dims.empty()) {
    return "pad value must be a " + std::string(dtypeName(in.dtype)) + " scalar, got " +
           value.toString();
  }
  size_t r = static_cast<size_t>(in.rank());
  if (a->low.size() != r || a->high.size() != r || a->interior.size() != r) {
    return "padding config has the wrong rank for " + in.toString();
  }
  Type expect{in.dtype, {}};
  for (size_t i = 0; i < r; ++i) {
    if (a->interior[i] < 0) return "negative interior padding " + ints(a->interior);
    int64_t d = in.dims[i];
    int64_t size = a->low[i] + a->high[i] + d + std::max<int64_t>(d - 1, 0) * a->interior[i];
    if (size < 0) return "padding makes dimension " + std::to_string(i) + " negative";
    expect.dims.push_back(size);
  }
  return expectResult(op, expect);
}

std::string checkReverse(const Op& op) {
  if (auto e = counts(op, 1); !e.empty()) return e;
  auto* a = attrsOf<ReverseAttrs>(op);
  if (!a) return "reverse needs ReverseAttrs";
  const Type& in = op.operands[0]->type;
  if (auto e = checkDimList(a->dimensions, in.rank(), "reverse dimensions"); !e.empty()) return e;
  return expectResult(op, in);
}

}  // namespace

std::string checkDataMovement(const Op& op) {
  switch (op.kind) {
    case OpKind::Broadcast:
      return checkBroadcast(op);
    case OpKind::Reshape:
      return checkReshape(op);
    case OpKind::Transpose:
      return checkTranspose(op);
    case OpKind::Slice:
      return checkSlice(op);
    case OpKind::DynamicSlice:
      return checkDynamicSlice(op);
    case OpKind::DynamicUpdateSlice:
      return checkDynamicUpdateSlice(op);
    case OpKind::Concatenate:
      return checkConcatenate(op);
    case OpKind::Pad:
      return checkPad(op);
    case OpKind::Reverse:
      return checkReverse(op);
    default:
      return "not a data-movement op";
  }
}

}  // namespace lf::ir::detail
