// What the algebraic rewrites of XLA's simplifier (divide.h, multiply.h) share: matching an
// operand's defining op, finding the constant under JAX's broadcasts, and inserting the ops that
// replace a visited op where it stood.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ir/ir.h"
#include "passes/fold.h"

namespace lf::passes {

inline bool isKind(const ir::Value* v, ir::OpKind kind) {
  return v->def != nullptr && v->def->kind == kind;
}

// The constant under `v`'s chain of broadcasts and reshapes (a constant JAX broadcast to a
// shape), or nullptr.
inline const ir::Op* constantBelow(const ir::Value* v) {
  while (isKind(v, ir::OpKind::Broadcast) || isKind(v, ir::OpKind::Reshape)) {
    v = v->def->operands[0];
  }
  return isKind(v, ir::OpKind::Constant) ? v->def : nullptr;
}

// The same, when that constant has one element.
inline const ir::Op* scalarConstantBelow(const ir::Value* v) {
  const ir::Op* k = constantBelow(v);
  return k != nullptr && k->result()->type.numElements() == 1 ? k : nullptr;
}

// The bits of a one-element constant.
inline uint64_t constantBits(const ir::Op* k) {
  return loadBits(k->result()->type.dtype, k->attr<ir::ConstantAttrs>().bytes.data());
}

// The bits of a constant's element when all its elements are equal (a splat), else nullopt.
inline std::optional<uint64_t> splatBits(const ir::Op& constant) {
  const auto& bytes = constant.attr<ir::ConstantAttrs>().bytes;
  const DType dtype = constant.result()->type.dtype;
  const size_t width = static_cast<size_t>(byteSize(dtype));
  if (bytes.size() < width) return std::nullopt;
  for (size_t at = width; at + width <= bytes.size(); at += width) {
    if (!std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(width),
                    bytes.begin() + static_cast<std::ptrdiff_t>(at))) {
      return std::nullopt;
    }
  }
  return loadBits(dtype, bytes.data());
}

// Where a rewrite's new ops go: after the ops the walk (ir::rewriteRegion) has already kept, in
// the region of the op being replaced, with that op's location and name.
struct InsertionPoint {
  std::vector<std::unique_ptr<ir::Op>>* kept = nullptr;
  ir::Region* parent = nullptr;
  const ir::Op* replaced = nullptr;

  ir::Value* insert(ir::OpKind kind, std::vector<ir::Value*> operands, ir::Type type,
                    ir::Attrs attrs) const {
    auto op = ir::makeOp(kind, std::move(operands), {std::move(type)}, std::move(attrs),
                         replaced->loc, replaced->name);
    op->parent = parent;
    kept->push_back(std::move(op));
    return kept->back()->result();
  }
};

// A scalar constant of `type`'s element type with `bits`, broadcast to `type` when it is an array
// (XLA's MakeScalarLike), made with `make(kind, operands, type, attrs)`.
template <class Make>
ir::Value* scalarLike(Make&& make, uint64_t bits, const ir::Type& type) {
  std::vector<uint8_t> bytes(static_cast<size_t>(byteSize(type.dtype)));
  storeBits(type.dtype, bits, bytes.data());
  ir::Value* k =
      make(ir::OpKind::Constant, {}, ir::Type{type.dtype, {}}, ir::Attrs{ir::ConstantAttrs{bytes}});
  if (type.dims.empty()) return k;
  return make(ir::OpKind::Broadcast, {k}, type, ir::Attrs{ir::BroadcastAttrs{}});
}

}  // namespace lf::passes
