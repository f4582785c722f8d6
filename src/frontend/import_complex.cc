// Complex numbers. The IR has no complex type: the importer keeps each complex array as two real
// leaves, (real, imaginary), so tuples, calls, loops and conditionals carry them as they carry any
// leaves, and every op on complex values becomes real ops on the parts:
//   data movement (broadcast, slice, pad, gather, select, ...) and add, subtract, negate: the op
//     once per part ("partwise": the ordinary handler on the parts, the shape read as real);
//   multiply (ac - bd, ad + bc); divide by Smith's algorithm (no overflow of c^2 + d^2); abs as
//     max * sqrt(1 + (min/max)^2); dot as four real dots; compare EQ / NE part by part.
// XLA computes these in its own order: results agree to the float tolerances, not to the bit.
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
Value* unary(InstrContext& c, OpKind k, Value* a) { return op1(c, k, {a}, a->type); }

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
  Value* re = binary(c, OpKind::Subtract, binary(c, OpKind::Multiply, a, x),
                     binary(c, OpKind::Multiply, b, y));
  Value* im =
      binary(c, OpKind::Add, binary(c, OpKind::Multiply, a, y), binary(c, OpKind::Multiply, b, x));
  return {re, im};
}

// (a + bi) / (x + yi) by Smith's algorithm: with |x| >= |y|, r = y/x, d = x + y r,
// ((a + b r) / d, (b - a r) / d); otherwise the same with the roles of x and y swapped.
Values divide(InstrContext& c) {
  c.expectOperands(2);
  auto [a, b] = parts(c, 0);
  auto [x, y] = parts(c, 1);
  if (!b || !y) c.fail("divide of complex and real operands");
  auto mul = [&](Value* p, Value* q) { return binary(c, OpKind::Multiply, p, q); };
  auto add = [&](Value* p, Value* q) { return binary(c, OpKind::Add, p, q); };
  auto sub = [&](Value* p, Value* q) { return binary(c, OpKind::Subtract, p, q); };
  auto div = [&](Value* p, Value* q) { return binary(c, OpKind::Divide, p, q); };
  Value* xWider =
      compareOp(c, ir::CompareDirection::GE, unary(c, OpKind::Abs, x), unary(c, OpKind::Abs, y));
  // |x| >= |y|
  Value* r1 = div(y, x);
  Value* d1 = add(x, mul(y, r1));
  Value* re1 = div(add(a, mul(b, r1)), d1);
  Value* im1 = div(sub(b, mul(a, r1)), d1);
  // |y| > |x|
  Value* r2 = div(x, y);
  Value* d2 = add(mul(x, r2), y);
  Value* re2 = div(add(mul(a, r2), b), d2);
  Value* im2 = div(sub(mul(b, r2), a), d2);
  ir::Type t = a->type;
  return {op1(c, OpKind::Select, {xWider, re1, re2}, t),
          op1(c, OpKind::Select, {xWider, im1, im2}, t)};
}

// |a + bi| = m sqrt(1 + (n/m)^2) with m = max(|a|, |b|), n = min: no overflow or underflow of
// a^2 + b^2. Zero gives 0 and an infinite part +inf (whatever the other part is).
Value* magnitude(InstrContext& c, Value* a, Value* b) {
  Value* fa = unary(c, OpKind::Abs, a);
  Value* fb = unary(c, OpKind::Abs, b);
  Value* m = binary(c, OpKind::Maximum, fa, fb);
  Value* n = binary(c, OpKind::Minimum, fa, fb);
  Value* q = binary(c, OpKind::Divide, n, m);
  Value* one = splat(c, a->type, 1.0);
  Value* r = binary(
      c, OpKind::Multiply, m,
      unary(c, OpKind::Sqrt, binary(c, OpKind::Add, one, binary(c, OpKind::Multiply, q, q))));
  Value* zero = splat(c, a->type, 0.0);
  Value* inf = splat(c, a->type, std::numeric_limits<double>::infinity());
  r = op1(c, OpKind::Select, {compareOp(c, ir::CompareDirection::EQ, m, zero), zero, r}, a->type);
  Value* anyInf = op1(c, OpKind::Or,
                      {compareOp(c, ir::CompareDirection::EQ, fa, inf),
                       compareOp(c, ir::CompareDirection::EQ, fb, inf)},
                      ir::Type{DType::Pred, a->type.dims});
  return op1(c, OpKind::Select, {anyInf, inf, r}, a->type);
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
         opcode == "optimization-barrier" || opcode == "reduce" || opcode == "reduce-window";
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
