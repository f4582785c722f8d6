// Elementwise HLO ops: unary, binary, compare, select and clamp. Operands and result keep their
// declared types; ir::checkOp (via emit) enforces XLA's rules.
#include <algorithm>

#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

template <OpKind K>
Values unary(InstrContext& c) {
  c.expectOperands(1);
  return {c.emit1(K, {c.array(0)})};
}

template <OpKind K>
Values binary(InstrContext& c) {
  c.expectOperands(2);
  return {c.emit1(K, {c.array(0), c.array(1)})};
}

template <OpKind K>
Values ternary(InstrContext& c) {
  c.expectOperands(3);
  return {c.emit1(K, {c.array(0), c.array(1), c.array(2)})};
}

ir::CompareDirection parseDirection(const std::string& s) {
  if (s == "EQ") return ir::CompareDirection::EQ;
  if (s == "NE") return ir::CompareDirection::NE;
  if (s == "LT") return ir::CompareDirection::LT;
  if (s == "LE") return ir::CompareDirection::LE;
  if (s == "GT") return ir::CompareDirection::GT;
  return ir::CompareDirection::GE;
}

// XLA's default comparison type for an element type.
ir::CompareType defaultCompareType(DType t) {
  if (isFloat(t)) return ir::CompareType::Float;
  if (isSignedInt(t)) return ir::CompareType::Signed;
  return ir::CompareType::Unsigned;
}

Values compare(InstrContext& c) {
  c.expectOperands(2);
  ir::Value* a = c.array(0);
  ir::Value* b = c.array(1);
  ir::CompareAttrs attrs;
  attrs.direction = parseDirection(hlo::readComparisonDirection(c.attr("direction")));
  attrs.type = defaultCompareType(a->type.dtype);
  if (const hlo::Attribute* t = c.optAttr("type")) {
    std::string s = hlo::readComparisonType(*t);
    attrs.type = s == "FLOAT"        ? ir::CompareType::Float
                 : s == "TOTALORDER" ? ir::CompareType::TotalOrder
                 : s == "SIGNED"     ? ir::CompareType::Signed
                                     : ir::CompareType::Unsigned;
  }
  // Newer XLA prints a total-order float compare as `order=TOTAL` (jax 0.11's sort comparator).
  if (const hlo::Attribute* o = c.optAttr("order")) {
    if (o->value != "TOTAL" && o->value != "PARTIAL")
      throw CompileError(o->valueLoc,
                         "unknown comparison order '" + o->value + "' (expected TOTAL or PARTIAL)");
    if (o->value == "TOTAL") attrs.type = ir::CompareType::TotalOrder;
  }
  return {c.emit1(OpKind::Compare, {a, b}, attrs)};
}

// exponent_bits and mantissa_bits are checked here, where the attribute's location is known: a
// bad value would otherwise reach the kernel as a template argument that does not compile. Widths
// beyond f64's (11, 52) change nothing, so they are capped at 64.
Values reducePrecision(InstrContext& c) {
  c.expectOperands(1);
  const hlo::Attribute& e = c.attr("exponent_bits");
  const hlo::Attribute& m = c.attr("mantissa_bits");
  const int64_t exponentBits = hlo::readInt(e), mantissaBits = hlo::readInt(m);
  if (exponentBits < 1) {
    throw CompileError(e.valueLoc, "reduce-precision exponent_bits must be at least 1, got " +
                                       std::to_string(exponentBits));
  }
  if (mantissaBits < 0) {
    throw CompileError(m.valueLoc, "reduce-precision mantissa_bits must not be negative, got " +
                                       std::to_string(mantissaBits));
  }
  ir::ReducePrecisionAttrs attrs;
  attrs.exponentBits = static_cast<int>(std::min<int64_t>(exponentBits, 64));
  attrs.mantissaBits = static_cast<int>(std::min<int64_t>(mantissaBits, 64));
  return {c.emit1(OpKind::ReducePrecision, {c.array(0)}, attrs)};
}

}  // namespace

void addElementwiseHandlers(HandlerTable& t) {
  t["abs"] = unary<OpKind::Abs>;
  t["negate"] = unary<OpKind::Negate>;
  t["sign"] = unary<OpKind::Sign>;
  t["floor"] = unary<OpKind::Floor>;
  t["ceil"] = unary<OpKind::Ceil>;
  t["round-nearest-afz"] = unary<OpKind::RoundNearestAfz>;
  t["round-nearest-even"] = unary<OpKind::RoundNearestEven>;
  t["exponential"] = unary<OpKind::Exp>;
  t["exponential-minus-one"] = unary<OpKind::Expm1>;
  t["log"] = unary<OpKind::Log>;
  t["log-plus-one"] = unary<OpKind::Log1p>;
  t["sqrt"] = unary<OpKind::Sqrt>;
  t["rsqrt"] = unary<OpKind::Rsqrt>;
  t["cbrt"] = unary<OpKind::Cbrt>;
  t["tanh"] = unary<OpKind::Tanh>;
  t["logistic"] = unary<OpKind::Logistic>;
  t["sine"] = unary<OpKind::Sin>;
  t["cosine"] = unary<OpKind::Cos>;
  t["tan"] = unary<OpKind::Tan>;
  t["erf"] = unary<OpKind::Erf>;
  t["reduce-precision"] = reducePrecision;
  t["is-finite"] = unary<OpKind::IsFinite>;
  t["not"] = unary<OpKind::Not>;
  t["popcnt"] = unary<OpKind::Popcnt>;
  t["count-leading-zeros"] = unary<OpKind::Clz>;
  t["convert"] = unary<OpKind::Convert>;
  t["bitcast-convert"] = unary<OpKind::BitcastConvert>;
  t["add"] = binary<OpKind::Add>;
  t["subtract"] = binary<OpKind::Subtract>;
  t["multiply"] = binary<OpKind::Multiply>;
  t["divide"] = binary<OpKind::Divide>;
  t["remainder"] = binary<OpKind::Remainder>;
  t["power"] = binary<OpKind::Power>;
  t["maximum"] = binary<OpKind::Maximum>;
  t["minimum"] = binary<OpKind::Minimum>;
  t["and"] = binary<OpKind::And>;
  t["or"] = binary<OpKind::Or>;
  t["xor"] = binary<OpKind::Xor>;
  t["shift-left"] = binary<OpKind::ShiftLeft>;
  t["shift-right-logical"] = binary<OpKind::ShiftRightLogical>;
  t["shift-right-arithmetic"] = binary<OpKind::ShiftRightArithmetic>;
  t["atan2"] = binary<OpKind::Atan2>;
  t["compare"] = compare;
  t["select"] = ternary<OpKind::Select>;
  t["clamp"] = ternary<OpKind::Clamp>;
}

}  // namespace lf::frontend
