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

#include "frontend/complex_parts.h"
#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;
using ir::Value;

Value* binary(InstrContext& c, OpKind k, Value* a, Value* b) { return op1(c, k, {a, b}, a->type); }

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
    addComplexMathHandlers(t);
    addComplexLinalgHandlers(t);
    return t;
  }();
  return table;
}

bool importsComplexLeaves(std::string_view opcode) {
  return opcode == "tuple" || opcode == "get-tuple-element" || opcode == "call" ||
         opcode == "while" || opcode == "conditional" || opcode == "opt-barrier" ||
         opcode == "optimization-barrier" || opcode == "reduce" || opcode == "reduce-window" ||
         opcode == "scatter" || opcode == "sort";
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
