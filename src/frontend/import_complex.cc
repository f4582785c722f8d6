// Complex numbers. The IR has no complex type: the importer keeps each complex array as two real
// leaves, (real, imaginary), so tuples, calls, loops and conditionals carry them as they carry any
// leaves, and every op on complex values becomes real ops on the parts:
//   data movement (broadcast, slice, pad, gather, select, ...) and add, subtract, negate: the op
//     once per part ("partwise": the ordinary handler on the parts, the shape read as real);
//   multiply, divide and abs by XLA's formulas (its elemental IR emitter's, corner cases
//     included); dot as four real dots; compare EQ / NE part by part.
// Where XLA's order of operations is followed the bits agree (but XLA's LLVM may fuse a multiply
// into an add where passes/contract.h does not); dots and ffts agree to the float tolerances.
#include <array>
#include <cstring>
#include <limits>

#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;
using ir::Value;

bool isComplexOperand(const InstrContext& c, size_t i) {
  return complexPartType(c.operandShape(i).elementType).has_value();
}

// The (real, imaginary) leaves of operand i; a real operand gives itself and no imaginary part.
std::array<Value*, 2> parts(InstrContext& c, size_t i) {
  if (!isComplexOperand(c, i)) return {c.array(i), nullptr};
  if (c.operands[i].size() != 2)
    c.fail(c.inst.opcode + " operand " + std::to_string(i) + " must be an array");
  return {c.operands[i][0], c.operands[i][1]};
}

Value* op1(InstrContext& c, OpKind k, Values ops, const ir::Type& t, ir::Attrs a = ir::NoAttrs{}) {
  return c.emit(k, std::move(ops), {t}, std::move(a))->result();
}
Value* binary(InstrContext& c, OpKind k, Value* a, Value* b) { return op1(c, k, {a, b}, a->type); }

Value* compareOp(InstrContext& c, ir::CompareDirection d, Value* a, Value* b) {
  ir::Type t{DType::Pred, a->type.dims};
  return op1(c, OpKind::Compare, {a, b}, t, ir::CompareAttrs{d, ir::CompareType::Float});
}

// A scalar float constant broadcast to `like`'s shape.
Value* splat(InstrContext& c, const ir::Type& like, double v) {
  ir::Type scalar{like.dtype, {}};
  std::vector<uint8_t> bytes(byteSize(like.dtype));
  if (like.dtype == DType::F32) {
    float f = static_cast<float>(v);
    std::memcpy(bytes.data(), &f, sizeof f);
  } else {
    std::memcpy(bytes.data(), &v, sizeof v);
  }
  Value* s = op1(c, OpKind::Constant, {}, scalar, ir::ConstantAttrs{std::move(bytes)});
  if (like.dims.empty()) return s;
  return op1(c, OpKind::Broadcast, {s}, like, ir::BroadcastAttrs{});
}

// The ordinary handler of this opcode, run once on the real parts and once on the imaginary
// parts of the complex operands (real operands, such as indices or a select's predicate, go to
// both runs as they are), with the instruction's shape read as real.
Values partwise(InstrContext& c) {
  auto it = handlers().find(c.inst.opcode);
  if (it == handlers().end()) c.fail("unsupported op '" + c.inst.opcode + "'");
  hlo::Instruction real = c.inst;
  real.shape = realView(c.inst.shape);
  Values out;
  for (int part = 0; part < 2; ++part) {
    std::vector<Values> ops;
    for (size_t i = 0; i < c.operands.size(); ++i) {
      if (isComplexOperand(c, i)) {
        ops.push_back({parts(c, i)[part]});
      } else {
        ops.push_back(c.operands[i]);
      }
    }
    InstrContext sub(c.importer, c.comp, real, c.region, std::move(ops));
    Values r = it->second(sub);
    if (r.size() != 1) c.fail(c.inst.opcode + " on complex numbers must give one array");
    out.push_back(r[0]);
  }
  return out;
}

// The instruction's result type, read as real (the type of each part).
ir::Type partType(const InstrContext& c) { return toIrType(realView(c.inst.shape)); }

Values multiply(InstrContext& c) {
  c.expectOperands(2);
  auto [a, b] = parts(c, 0);
  auto [x, y] = parts(c, 1);
  if (!b || !y) c.fail("multiply of complex and real operands");
  // Named steps: C++ leaves the order of a call's arguments open, and the IR's should not be.
  Value* ax = binary(c, OpKind::Multiply, a, x);
  Value* by = binary(c, OpKind::Multiply, b, y);
  Value* ay = binary(c, OpKind::Multiply, a, y);
  Value* bx = binary(c, OpKind::Multiply, b, x);
  return {binary(c, OpKind::Subtract, ax, by), binary(c, OpKind::Add, ay, bx)};
}

// Real ops on the parts, with the shape and dtype of the first operand (comparisons give pred).
struct PartOps {
  InstrContext& c;
  ir::Type t;
  ir::Type pred() const { return ir::Type{DType::Pred, t.dims}; }
  Value* add(Value* a, Value* b) { return op1(c, OpKind::Add, {a, b}, t); }
  Value* sub(Value* a, Value* b) { return op1(c, OpKind::Subtract, {a, b}, t); }
  Value* mul(Value* a, Value* b) { return op1(c, OpKind::Multiply, {a, b}, t); }
  Value* div(Value* a, Value* b) { return op1(c, OpKind::Divide, {a, b}, t); }
  Value* abs(Value* a) { return op1(c, OpKind::Abs, {a}, t); }
  Value* neg(Value* a) { return op1(c, OpKind::Negate, {a}, t); }
  Value* select(Value* p, Value* a, Value* b) { return op1(c, OpKind::Select, {p, a, b}, t); }
  Value* eq(Value* a, Value* b) { return compareOp(c, ir::CompareDirection::EQ, a, b); }
  Value* lt(Value* a, Value* b) { return compareOp(c, ir::CompareDirection::LT, a, b); }
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

// (a + bi) / (x + yi) as XLA computes it: Smith's algorithm (the ratio of the smaller part of the
// divisor to the larger, so that x^2 + y^2 never overflows), then, where both parts came out NaN,
// C99's answers for a zero divisor, an infinite dividend and an infinite divisor.
Values divide(InstrContext& c) {
  c.expectOperands(2);
  auto [a, b] = parts(c, 0);
  auto [x, y] = parts(c, 1);
  if (!b || !y) c.fail("divide of complex and real operands");
  PartOps o{c, a->type};
  Value* xyRatio = o.div(x, y);
  Value* xyDenom = o.add(y, o.mul(xyRatio, x));
  Value* yxRatio = o.div(y, x);
  Value* yxDenom = o.add(x, o.mul(yxRatio, y));
  Value* absX = o.abs(x);
  Value* absY = o.abs(y);
  Value* xSmaller = o.lt(absX, absY);
  Value* re = o.select(xSmaller, o.div(o.add(o.mul(xyRatio, a), b), xyDenom),
                       o.div(o.add(o.mul(yxRatio, b), a), yxDenom));
  Value* im = o.select(xSmaller, o.div(o.sub(o.mul(xyRatio, b), a), xyDenom),
                       o.div(o.sub(b, o.mul(yxRatio, a)), yxDenom));
  Value* zero = o.splat(0.0);
  Value* one = o.splat(1.0);
  Value* inf = o.splat(std::numeric_limits<double>::infinity());
  // A zero divisor: (copysign(inf, x) a, copysign(inf, x) b), unless a and b are both NaN.
  Value* zeroDivisor = o.both(o.both(o.eq(absX, zero), o.eq(absY, zero)),
                              o.either(o.no(o.isNan(a)), o.no(o.isNan(b))));
  Value* signedInf = o.copySign(inf, x);
  Value* zeroRe = o.mul(signedInf, a);
  Value* zeroIm = o.mul(signedInf, b);
  // An infinite dividend, a finite divisor: inf times the quotient of the dividend's unit signs.
  Value* absA = o.abs(a);
  Value* absB = o.abs(b);
  Value* aInf = o.eq(absA, inf);
  Value* bInf = o.eq(absB, inf);
  Value* infDividend = o.both(o.either(aInf, bInf), o.both(o.lt(absX, inf), o.lt(absY, inf)));
  Value* aUnit = o.copySign(o.select(aInf, one, zero), a);
  Value* bUnit = o.copySign(o.select(bInf, one, zero), b);
  Value* infRe = o.mul(inf, o.add(o.mul(aUnit, x), o.mul(bUnit, y)));
  Value* infIm = o.mul(inf, o.sub(o.mul(bUnit, x), o.mul(aUnit, y)));
  // A finite dividend, an infinite divisor: zero times the dividend over the divisor's unit signs.
  Value* xInf = o.eq(absX, inf);
  Value* yInf = o.eq(absY, inf);
  Value* infDivisor = o.both(o.either(xInf, yInf), o.both(o.lt(absA, inf), o.lt(absB, inf)));
  Value* xUnit = o.copySign(o.select(xInf, one, zero), x);
  Value* yUnit = o.copySign(o.select(yInf, one, zero), y);
  Value* smallRe = o.mul(zero, o.add(o.mul(a, xUnit), o.mul(b, yUnit)));
  Value* smallIm = o.mul(zero, o.sub(o.mul(b, xUnit), o.mul(a, yUnit)));
  Value* bothNan = o.both(o.isNan(re), o.isNan(im));
  auto pick = [&](Value* z, Value* i, Value* s, Value* plain) {
    Value* special =
        o.select(zeroDivisor, z, o.select(infDividend, i, o.select(infDivisor, s, plain)));
    return o.select(bothNan, special, plain);
  };
  return {pick(zeroRe, infRe, smallRe, re), pick(zeroIm, infIm, smallIm, im)};
}

// |a + bi| as XLA computes it: m sqrt(1 + (n/m)^2) with m = max(|a|, |b|), n = min (no overflow
// of a^2 + b^2); where that is NaN (0 and 0, inf and inf, a NaN part) the result is n.
Value* magnitude(InstrContext& c, Value* a, Value* b) {
  PartOps o{c, a->type};
  Value* fa = o.abs(a);
  Value* fb = o.abs(b);
  Value* m = op1(c, OpKind::Maximum, {fa, fb}, a->type);
  Value* n = op1(c, OpKind::Minimum, {fa, fb}, a->type);
  Value* q = o.div(n, m);
  Value* r = o.mul(m, op1(c, OpKind::Sqrt, {o.add(o.splat(1.0), o.mul(q, q))}, a->type));
  return o.select(o.isNan(r), n, r);
}

Values abs(InstrContext& c) {
  c.expectOperands(1);
  auto [a, b] = parts(c, 0);
  if (!b) c.fail("abs of a complex result needs a complex operand");
  return {magnitude(c, a, b)};
}

// sign(z) = z / |z|, and 0 for 0.
Values sign(InstrContext& c) {
  c.expectOperands(1);
  auto [a, b] = parts(c, 0);
  if (!b) c.fail("sign of a complex result needs a complex operand");
  Value* m = magnitude(c, a, b);
  Value* zero = splat(c, a->type, 0.0);
  Value* isZero = compareOp(c, ir::CompareDirection::EQ, m, zero);
  return {op1(c, OpKind::Select, {isZero, zero, binary(c, OpKind::Divide, a, m)}, a->type),
          op1(c, OpKind::Select, {isZero, zero, binary(c, OpKind::Divide, b, m)}, a->type)};
}

Values realPart(InstrContext& c) {
  c.expectOperands(1);
  auto [a, b] = parts(c, 0);
  (void)b;
  return {a};
}

Values imagPart(InstrContext& c) {
  c.expectOperands(1);
  auto [a, b] = parts(c, 0);
  return {b ? b : splat(c, a->type, 0.0)};
}

Values makeComplex(InstrContext& c) {
  c.expectOperands(2);
  Value* re = c.array(0);
  Value* im = c.array(1);
  if (re->type != partType(c) || im->type != partType(c)) {
    c.fail("type mismatch: complex of " + re->type.toString() + " and " + im->type.toString() +
           " is declared " + c.inst.shape.toString());
  }
  return {re, im};
}

Values convert(InstrContext& c) {
  c.expectOperands(1);
  if (!complexPartType(c.inst.shape.elementType)) {
    c.fail("convert from " + c.operandShape(0).toString() + " to " + c.inst.shape.toString() +
           ": XLA does not convert complex to real (take real() first)");
  }
  if (isComplexOperand(c, 0)) return partwise(c);
  ir::Type t = partType(c);
  Value* re = op1(c, OpKind::Convert, {c.array(0)}, t);
  return {re, splat(c, t, 0.0)};
}

Values compare(InstrContext& c) {
  c.expectOperands(2);
  auto [a, b] = parts(c, 0);
  auto [x, y] = parts(c, 1);
  std::string d = hlo::readComparisonDirection(c.attr("direction"));
  if ((d != "EQ" && d != "NE") || !b || !y) {
    c.fail("compare " + d + " of complex numbers (only EQ and NE are defined)");
  }
  ir::CompareDirection dir = d == "EQ" ? ir::CompareDirection::EQ : ir::CompareDirection::NE;
  ir::Type t{DType::Pred, a->type.dims};
  return {op1(c, d == "EQ" ? OpKind::And : OpKind::Or,
              {compareOp(c, dir, a, x), compareOp(c, dir, b, y)}, t)};
}

// "(re, im)" literal elements split into a real and an imaginary literal.
Values constant(InstrContext& c) {
  c.expectOperands(0);
  if (!c.inst.literal) c.fail("constant without a value");
  std::array<hlo::Literal, 2> split;
  for (size_t i = 0; i < c.inst.literal->elements.size(); ++i) {
    const std::string& e = c.inst.literal->elements[i];
    size_t comma = e.find(',');
    if (e.size() < 5 || e.front() != '(' || e.back() != ')' || comma == std::string::npos) {
      c.fail("invalid complex value '" + e + "'");
    }
    std::string re = e.substr(1, comma - 1);
    std::string im = e.substr(comma + 1, e.size() - comma - 2);
    while (!im.empty() && im.front() == ' ') im.erase(im.begin());
    split[0].elements.push_back(re);
    split[1].elements.push_back(im);
    for (auto& l : split) l.locs.push_back(c.inst.literal->locs[i]);
  }
  ir::Type t = partType(c);
  Values out;
  for (auto& l : split) {
    l.loc = c.inst.literal->loc;
    out.push_back(op1(c, OpKind::Constant, {}, t, ir::ConstantAttrs{literalBytes(l, t)}));
  }
  return out;
}

// (a + bi)(x + yi) summed: four real dots, (ax - by, ay + bx). A real operand gives two.
Values dot(InstrContext& c) {
  c.expectOperands(2);
  auto [a, b] = parts(c, 0);
  auto [x, y] = parts(c, 1);
  hlo::Instruction real = c.inst;
  real.shape = realView(c.inst.shape);
  const Handler realDot = handlers().at("dot");
  auto d = [&](Value* l, Value* r) -> Value* {
    if (!l || !r) return nullptr;
    InstrContext sub(c.importer, c.comp, real, c.region, {{l}, {r}});
    return realDot(sub)[0];
  };
  Value *ax = d(a, x), *by = d(b, y), *ay = d(a, y), *bx = d(b, x);
  Value* re = by ? binary(c, OpKind::Subtract, ax, by) : ax;
  Value* im = ay && bx ? binary(c, OpKind::Add, ay, bx) : ay ? ay : bx;
  if (!im) c.fail("dot of two real operands declared complex");
  return {re, im};
}

}  // namespace

const HandlerTable& complexHandlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    for (const char* op : {"add", "subtract", "negate", "broadcast", "reshape", "bitcast",
                           "transpose", "slice", "dynamic-slice", "dynamic-update-slice",
                           "concatenate", "pad", "reverse", "copy", "select", "gather"}) {
      t[op] = partwise;
    }
    t["multiply"] = multiply;
    t["divide"] = divide;
    t["abs"] = abs;
    t["sign"] = sign;
    t["real"] = realPart;
    t["imag"] = imagPart;
    t["complex"] = makeComplex;
    t["convert"] = convert;
    t["compare"] = compare;
    t["constant"] = constant;
    t["dot"] = dot;
    t["fft"] = importFft;
    return t;
  }();
  return table;
}

bool importsComplexLeaves(std::string_view opcode) {
  return opcode == "tuple" || opcode == "get-tuple-element" || opcode == "call" ||
         opcode == "while" || opcode == "conditional" || opcode == "opt-barrier" ||
         opcode == "optimization-barrier" || opcode == "reduce" || opcode == "reduce-window" ||
         opcode == "scatter";
}

bool needsComplexRule(const hlo::Computation& comp, const hlo::Instruction& inst) {
  if (inst.opcode == "parameter" || importsComplexLeaves(inst.opcode)) return false;
  if (containsComplex(inst.shape)) return true;
  for (const hlo::Operand& o : inst.operands) {
    const hlo::Instruction* def = comp.find(o.name);
    if (def != nullptr && containsComplex(def->shape)) return true;
  }
  return false;
}

Values splitComplexArgument(InstrContext& c, Value* interleaved) {
  const ir::Type& t = interleaved->type;
  std::vector<int64_t> dims(t.dims.begin(), t.dims.end() - 1);
  ir::Type part{t.dtype, dims};
  Values out;
  for (int64_t p = 0; p < 2; ++p) {
    ir::SliceAttrs s;
    s.starts.assign(t.rank(), 0);
    s.limits = t.dims;
    s.strides.assign(t.rank(), 1);
    s.starts.back() = p;
    s.limits.back() = p + 1;
    ir::Type sliced = t;
    sliced.dims.back() = 1;
    Value* v = op1(c, OpKind::Slice, {interleaved}, sliced, s);
    out.push_back(op1(c, OpKind::Reshape, {v}, part));
  }
  return out;
}

Value* joinComplexOutput(InstrContext& c, Value* re, Value* im) {
  ir::Type one = re->type;
  one.dims.push_back(1);
  ir::Type both = re->type;
  both.dims.push_back(2);
  Value* r = op1(c, OpKind::Reshape, {re}, one);
  Value* i = op1(c, OpKind::Reshape, {im}, one);
  return op1(c, OpKind::Concatenate, {r, i}, both,
             ir::ConcatenateAttrs{static_cast<int64_t>(one.rank()) - 1});
}

}  // namespace lf::frontend
