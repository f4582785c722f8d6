// Building IR ops into one region for an importer that expands an HLO instruction into several
// ops (scan into a While, rng-bit-generator into its cipher rounds). Every op carries the
// instruction's location and name and is checked with XLA's shape rules as it is made, so a
// mistake in an expansion is reported at the instruction rather than miscompiled.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "frontend/importer.h"
#include "ir/op_rules.h"

namespace lf::frontend {

class RegionBuilder {
 public:
  RegionBuilder(InstrContext& c, ir::Region& region) : c_(c), region_(region) {}

  // An op with any number of results.
  ir::Op* ops(ir::OpKind kind, Values operands, std::vector<ir::Type> types,
              ir::Attrs attrs = ir::NoAttrs{}) {
    ir::Op* o = region_.append(kind, std::move(operands), std::move(types), std::move(attrs),
                               c_.inst.loc, c_.inst.name);
    if (std::string e = ir::checkOp(*o); !e.empty()) c_.fail(e);
    return o;
  }
  ir::Value* op(ir::OpKind kind, Values operands, ir::Type type, ir::Attrs attrs = ir::NoAttrs{}) {
    return ops(kind, std::move(operands), {std::move(type)}, std::move(attrs))->result();
  }

  // A scalar constant of `t` whose little-endian bits are the low bits of `bits`.
  ir::Value* scalar(DType t, uint64_t bits) {
    std::vector<uint8_t> bytes(static_cast<size_t>(byteSize(t)));
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(bits >> (8 * i));
    return op(ir::OpKind::Constant, {}, ir::Type{t, {}}, ir::ConstantAttrs{bytes});
  }
  ir::Value* s32(int32_t v) { return scalar(DType::S32, static_cast<uint32_t>(v)); }

  // A scalar broadcast to `dims` (the scalar itself when `dims` is empty).
  ir::Value* splat(ir::Value* s, const std::vector<int64_t>& dims) {
    if (dims.empty()) return s;
    return op(ir::OpKind::Broadcast, {s}, ir::Type{s->type.dtype, dims}, ir::BroadcastAttrs{});
  }
  ir::Value* splat(DType t, uint64_t bits, const std::vector<int64_t>& dims) {
    return splat(scalar(t, bits), dims);
  }

  ir::Value* binary(ir::OpKind kind, ir::Value* a, ir::Value* b) {
    return op(kind, {a, b}, a->type);
  }
  ir::Value* convert(ir::Value* v, DType t) {
    return op(ir::OpKind::Convert, {v}, ir::Type{t, v->type.dims});
  }
  ir::Value* reshape(ir::Value* v, std::vector<int64_t> dims) {
    return op(ir::OpKind::Reshape, {v}, ir::Type{v->type.dtype, std::move(dims)});
  }
  // Elements [start, limit) of dimension `dim`, every other dimension whole.
  ir::Value* slice(ir::Value* v, int dim, int64_t start, int64_t limit) {
    ir::SliceAttrs a;
    a.starts.assign(v->type.dims.size(), 0);
    a.limits = v->type.dims;
    a.strides.assign(v->type.dims.size(), 1);
    a.starts[dim] = start;
    a.limits[dim] = limit;
    std::vector<int64_t> dims = v->type.dims;
    dims[dim] = limit - start;
    return op(ir::OpKind::Slice, {v}, ir::Type{v->type.dtype, dims}, a);
  }

 private:
  InstrContext& c_;
  ir::Region& region_;
};

}  // namespace lf::frontend
