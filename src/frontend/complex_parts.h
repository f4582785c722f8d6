// Internal to the complex importers (import_complex.cc, import_complex_math.cc): the helpers that
// turn an op on complex values, kept as (real, imaginary) leaves, into real IR ops on the parts.
#pragma once

#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "frontend/importer.h"

namespace lf::frontend {

inline bool isComplexOperand(const InstrContext& c, size_t i) {
  return complexPartType(c.operandShape(i).elementType).has_value();
}

// The (real, imaginary) leaves of operand i; a real operand gives itself and no imaginary part.
inline std::array<ir::Value*, 2> parts(InstrContext& c, size_t i) {
  if (!isComplexOperand(c, i)) return {c.array(i), nullptr};
  if (c.operands[i].size() != 2)
    c.fail(c.inst.opcode + " operand " + std::to_string(i) + " must be an array");
  return {c.operands[i][0], c.operands[i][1]};
}

inline ir::Value* op1(InstrContext& c, ir::OpKind k, Values ops, const ir::Type& t,
                      ir::Attrs a = ir::NoAttrs{}) {
  return c.emit(k, std::move(ops), {t}, std::move(a))->result();
}

inline ir::Value* compareOp(InstrContext& c, ir::CompareDirection d, ir::Value* a, ir::Value* b) {
  ir::Type t{DType::Pred, a->type.dims};
  return op1(c, ir::OpKind::Compare, {a, b}, t, ir::CompareAttrs{d, ir::CompareType::Float});
}

// A scalar float constant broadcast to `like`'s shape.
inline ir::Value* splat(InstrContext& c, const ir::Type& like, double v) {
  ir::Type scalar{like.dtype, {}};
  std::vector<uint8_t> bytes(byteSize(like.dtype));
  if (like.dtype == DType::F32) {
    float f = static_cast<float>(v);
    std::memcpy(bytes.data(), &f, sizeof f);
  } else {
    std::memcpy(bytes.data(), &v, sizeof v);
  }
  ir::Value* s = op1(c, ir::OpKind::Constant, {}, scalar, ir::ConstantAttrs{std::move(bytes)});
  if (like.dims.empty()) return s;
  return op1(c, ir::OpKind::Broadcast, {s}, like, ir::BroadcastAttrs{});
}

// Real ops on the parts, with the shape and dtype of the first operand (comparisons give pred).
struct PartOps {
  using Value = ir::Value;
  using OpKind = ir::OpKind;
  InstrContext& c;
  ir::Type t;
  ir::Type pred() const { return ir::Type{DType::Pred, t.dims}; }
  Value* unary(OpKind k, Value* a) { return op1(c, k, {a}, t); }
  Value* binary(OpKind k, Value* a, Value* b) { return op1(c, k, {a, b}, t); }
  Value* add(Value* a, Value* b) { return binary(OpKind::Add, a, b); }
  Value* sub(Value* a, Value* b) { return binary(OpKind::Subtract, a, b); }
  Value* mul(Value* a, Value* b) { return binary(OpKind::Multiply, a, b); }
  Value* div(Value* a, Value* b) { return binary(OpKind::Divide, a, b); }
  Value* max(Value* a, Value* b) { return binary(OpKind::Maximum, a, b); }
  Value* min(Value* a, Value* b) { return binary(OpKind::Minimum, a, b); }
  Value* abs(Value* a) { return unary(OpKind::Abs, a); }
  Value* neg(Value* a) { return unary(OpKind::Negate, a); }
  Value* select(Value* p, Value* a, Value* b) { return op1(c, OpKind::Select, {p, a, b}, t); }
  Value* eq(Value* a, Value* b) { return compareOp(c, ir::CompareDirection::EQ, a, b); }
  Value* lt(Value* a, Value* b) { return compareOp(c, ir::CompareDirection::LT, a, b); }
  Value* le(Value* a, Value* b) { return compareOp(c, ir::CompareDirection::LE, a, b); }
  Value* gt(Value* a, Value* b) { return compareOp(c, ir::CompareDirection::GT, a, b); }
  Value* ge(Value* a, Value* b) { return compareOp(c, ir::CompareDirection::GE, a, b); }
  Value* isNan(Value* a) { return compareOp(c, ir::CompareDirection::NE, a, a); }
  Value* both(Value* p, Value* q) { return op1(c, OpKind::And, {p, q}, pred()); }
  Value* either(Value* p, Value* q) { return op1(c, OpKind::Or, {p, q}, pred()); }
  Value* no(Value* p) { return op1(c, OpKind::Not, {p}, pred()); }
  Value* splat(double v) { return frontend::splat(c, t, v); }
  // Whether the sign bit is set (-0 and negative NaNs too): the bits read as a signed integer.
  Value* signBit(Value* a) {
    ir::Type bits{t.dtype == DType::F32 ? DType::S32 : DType::S64, t.dims};
    Value* i = op1(c, OpKind::BitcastConvert, {a}, bits);
    Value* zero = op1(c, OpKind::Constant, {}, ir::Type{bits.dtype, {}},
                      ir::ConstantAttrs{std::vector<uint8_t>(byteSize(bits.dtype), 0)});
    if (!t.dims.empty()) zero = op1(c, OpKind::Broadcast, {zero}, bits, ir::BroadcastAttrs{});
    return op1(c, OpKind::Compare, {i, zero}, pred(),
               ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Signed});
  }
  Value* copySign(Value* magnitude, Value* sign) {
    return select(signBit(sign), neg(magnitude), magnitude);
  }
};

// |a + bi| as XLA computes it: m sqrt(1 + (n/m)^2) with m = max(|a|, |b|), n = min (no overflow
// of a^2 + b^2); where that is NaN (0 and 0, inf and inf, a NaN part) the result is n.
inline ir::Value* magnitude(InstrContext& c, ir::Value* a, ir::Value* b) {
  PartOps o{c, a->type};
  ir::Value* fa = o.abs(a);
  ir::Value* fb = o.abs(b);
  ir::Value* m = o.max(fa, fb);
  ir::Value* n = o.min(fa, fb);
  ir::Value* q = o.div(n, m);
  ir::Value* r = o.mul(m, o.unary(ir::OpKind::Sqrt, o.add(o.splat(1.0), o.mul(q, q))));
  return o.select(o.isNan(r), n, r);
}

// tanh, tan, exponential-minus-one, rsqrt and power on complex numbers (import_complex_math.cc).
void addComplexMathHandlers(HandlerTable& table);

}  // namespace lf::frontend
