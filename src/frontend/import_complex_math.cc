// The complex functions that reach the importer as complex HLO ops (jax expands exp, log, sqrt,
// sin, cos, ... into real ops itself, but not these): tanh, tan, exponential-minus-one, rsqrt and
// power, as real ops on the (real, imaginary) parts. The formulas and their special cases (tanh
// saturating to +-1 for large real parts, a zero or infinite base in power, NaN and inf parts)
// are those of XLA's elemental IR emitter, which the CPU backend runs, so that results agree with
// jax.jit's rather than with a textbook's; the real functions they call are the IR's own, which
// agree with XLA's to the float tolerances.
#include <array>
#include <iterator>
#include <limits>

#include "frontend/complex_parts.h"
#include "frontend/importer.h"

namespace lf::frontend {
namespace {

using ir::OpKind;
using ir::Value;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// The (real, imaginary) parts of the only operand, which must be complex.
std::array<Value*, 2> unaryParts(InstrContext& c) {
  c.expectOperands(1);
  auto p = parts(c, 0);
  if (!p[1]) c.fail(c.inst.opcode + " of a complex result needs a complex operand");
  return p;
}

// tanh(a + bi) = (e^2a - e^-2a + 2i sin 2b) / (e^2a + e^-2a + 2 cos 2b), with the exponentials
// as expm1 (exact for small a), 2 cos 2b + 2 as 4 cos^2 b and 2 sin 2b as 4 cos b sin b. Where
// e^2a + e^-2a overflows the real part is +-1 (the sign of a), the imaginary part the signed zero
// the division gives; a finite a with an infinite or NaN b gives NaN, b = 0 gives +0 and an
// infinite a with such a b gives (+-1, +0).
std::array<Value*, 2> tanhParts(PartOps& o, Value* a, Value* b) {
  Value* minusOne = o.splat(-1.0);
  Value* twoA = o.add(a, a);
  Value* minusTwoA = o.mul(minusOne, twoA);
  Value* e2a = o.unary(OpKind::Expm1, twoA);
  Value* eMinus2a = o.unary(OpKind::Expm1, minusTwoA);
  Value* realNumerator = o.sub(e2a, eMinus2a);
  Value* cosB = o.unary(OpKind::Cos, b);
  Value* four = o.splat(4.0);
  Value* cosSquared = o.mul(cosB, cosB);
  Value* twoCos2bPlus2 = o.mul(cosSquared, four);
  Value* sinB = o.unary(OpKind::Sin, b);
  Value* imagNumerator = o.mul(four, o.mul(cosB, sinB));
  Value* expSumMinus2 = o.add(e2a, eMinus2a);
  Value* denom = o.add(expSumMinus2, twoCos2bPlus2);
  Value* inf = o.splat(kInf);
  Value* saturated = o.eq(expSumMinus2, inf);
  Value* limit = o.copySign(o.splat(1.0), a);
  Value* re = o.select(saturated, limit, o.div(realNumerator, denom));
  Value* im = o.div(imagNumerator, denom);
  Value* aInf = o.eq(o.abs(a), inf);
  Value* bZero = o.eq(b, o.splat(0.0));
  Value* sin2bNan = o.isNan(imagNumerator);
  Value* reNan = o.both(sin2bNan, o.no(aInf));
  Value* imZero = o.either(bZero, o.both(aInf, sin2bNan));
  re = o.select(reNan, o.splat(kNan), re);
  im = o.select(imZero, o.splat(0.0), im);
  return {re, im};
}

Values complexTanh(InstrContext& c) {
  auto [a, b] = unaryParts(c);
  PartOps o{c, a->type};
  auto [re, im] = tanhParts(o, a, b);
  return {re, im};
}

// tan(a + bi) = -i tanh(-b + ai).
Values complexTan(InstrContext& c) {
  auto [a, b] = unaryParts(c);
  PartOps o{c, a->type};
  Value* minusB = o.mul(o.splat(-1.0), b);
  auto [re, im] = tanhParts(o, minusB, a);
  return {im, o.mul(o.splat(-1.0), re)};
}

// cos(x) - 1: cephes' polynomial -x^2/2 + x^4 p(x^2) where x^2 < (pi/4)^2, cos(x) - 1 elsewhere.
Value* cosm1(PartOps& o, Value* x) {
  static constexpr double kCoeffs[] = {
      4.7377507964246204691685E-14, -1.1470284843425359765671E-11, 2.0876754287081521758361E-9,
      -2.7557319214999787979814E-7, 2.4801587301570552304991E-5,   -1.3888888888888872993737E-3,
      4.1666666666666666609054E-2,
  };
  Value* cosX = o.unary(OpKind::Cos, x);
  Value* large = o.add(cosX, o.splat(-1.0));
  Value* x2 = o.mul(x, x);
  Value* x4 = o.mul(x2, x2);
  Value* poly = o.splat(kCoeffs[0]);
  for (size_t i = 1; i < std::size(kCoeffs); ++i) {
    Value* scaled = o.mul(poly, x2);
    poly = o.add(scaled, o.splat(kCoeffs[i]));
  }
  Value* head = o.mul(x4, poly);
  Value* tail = o.mul(o.splat(-0.5), x2);
  Value* small = o.add(head, tail);
  return o.select(o.ge(x2, o.splat(0.61685)), large, small);
}

// e^(a + bi) - 1 = (expm1(a) cos b + cosm1(b)) + i e^a sin b, the imaginary part +0 where b = 0.
Values complexExpm1(InstrContext& c) {
  auto [a, b] = unaryParts(c);
  PartOps o{c, a->type};
  Value* zero = o.splat(0.0);
  Value* one = o.splat(1.0);
  Value* expm1A = o.unary(OpKind::Expm1, a);
  Value* expA = o.add(expm1A, one);
  Value* sinB = o.unary(OpKind::Sin, b);
  Value* cosm1B = cosm1(o, b);
  Value* cosB = o.add(cosm1B, one);
  Value* re = o.add(o.mul(expm1A, cosB), cosm1B);
  Value* im = o.select(o.eq(b, zero), zero, o.mul(expA, sinB));
  return {re, im};
}

// 1/sqrt(a + bi) = |z|^-1/2 (cos(-t/2) + i sin(-t/2)), t = atan2(b, a), with |z|^-1/2 as
// rsqrt(max) rsqrt(sqrt(1 + (min/max)^2)) (rsqrt(min) where that is NaN). 0 gives (inf, NaN); an
// infinite a, or an infinite b with a NaN a, gives (copysign(0, a), -copysign(0, b)).
Values complexRsqrt(InstrContext& c) {
  auto [a, b] = unaryParts(c);
  PartOps o{c, a->type};
  Value* absA = o.abs(a);
  Value* absB = o.abs(b);
  Value* mx = o.max(absA, absB);
  Value* mn = o.min(absA, absB);
  Value* q = o.div(mn, mx);
  Value* qq = o.mul(q, q);
  Value* root = o.unary(OpKind::Sqrt, o.add(o.splat(1.0), qq));
  Value* rsqrtMx = o.unary(OpKind::Rsqrt, mx);
  Value* rsqrtRoot = o.unary(OpKind::Rsqrt, root);
  Value* product = o.mul(rsqrtMx, rsqrtRoot);
  Value* r = o.select(o.isNan(product), o.unary(OpKind::Rsqrt, mn), product);
  Value* t = o.binary(OpKind::Atan2, b, a);
  Value* angle = o.mul(t, o.splat(-0.5));
  Value* cosAngle = o.unary(OpKind::Cos, angle);
  Value* sinAngle = o.unary(OpKind::Sin, angle);
  Value* zero = o.splat(0.0);
  Value* inf = o.splat(kInf);
  Value* aZero = o.copySign(zero, a);
  Value* minusBZero = o.mul(o.copySign(zero, b), o.splat(-1.0));
  Value* bZero = o.eq(b, zero);
  Value* aIsZero = o.eq(a, zero);
  Value* atZero = o.both(bZero, aIsZero);
  Value* bInf = o.eq(absB, inf);
  Value* aNan = o.isNan(a);
  Value* bInfANan = o.both(bInf, aNan);
  Value* aInf = o.eq(absA, inf);
  Value* atInf = o.either(bInfANan, aInf);
  Value* re = o.select(atZero, inf, o.select(atInf, aZero, o.mul(r, cosAngle)));
  Value* im = o.select(atZero, o.splat(kNan), o.select(atInf, minusBZero, o.mul(r, sinAngle)));
  return {re, im};
}

// (a + bi)^(c + di) = |z|^c e^(-d t) (cos q + i sin q), t = atan2(b, a), q = c t + d log|z|; then
// Kahan's special cases: 0^c = 0 for real c > 0, x^0 = 1 (0^0 too), 1^w = 1, inf^c = inf for real
// c > 0 and 0 for real c < 0.
Values complexPower(InstrContext& c) {
  c.expectOperands(2);
  auto [a, b] = parts(c, 0);
  auto [x, y] = parts(c, 1);
  if (!b || !y) c.fail("power of complex and real operands");
  PartOps o{c, a->type};
  Value* abs = magnitude(c, a, b);
  Value* absToX = o.binary(OpKind::Power, abs, x);
  Value* minusY = o.neg(y);
  Value* arg = o.binary(OpKind::Atan2, b, a);
  Value* coeff = o.mul(absToX, o.unary(OpKind::Exp, o.mul(minusY, arg)));
  Value* logAbs = o.unary(OpKind::Log, abs);
  Value* xArg = o.mul(x, arg);
  Value* yLogAbs = o.mul(y, logAbs);
  Value* q = o.add(xArg, yLogAbs);
  Value* re = o.mul(coeff, o.unary(OpKind::Cos, q));
  Value* im = o.mul(coeff, o.unary(OpKind::Sin, q));
  Value* zero = o.splat(0.0);
  Value* one = o.splat(1.0);
  Value* inf = o.splat(kInf);
  Value* yZero = o.eq(y, zero);
  Value* xZero = o.eq(zero, x);
  // Applied innermost first, so that a later case overrides an earlier one.
  auto special = [&](Value* when, Value* r, Value* i) {
    re = o.select(when, r, re);
    im = o.select(when, i, im);
  };
  Value* zeroBase = o.both(o.eq(abs, zero), yZero);
  Value* xNonNegative = o.le(zero, x);
  Value* zeroBaseCase = o.both(zeroBase, xNonNegative);
  special(zeroBaseCase, o.select(xZero, one, zero), zero);
  special(o.both(xZero, yZero), one, zero);
  Value* aOne = o.eq(a, one);
  Value* bIsZero = o.eq(b, zero);
  special(o.both(aOne, bIsZero), one, zero);
  Value* aIsInf = o.eq(a, inf);
  Value* realInfBase = o.both(aIsInf, o.both(bIsZero, yZero));
  special(o.both(realInfBase, o.gt(x, zero)), inf, zero);
  special(o.both(realInfBase, o.lt(x, zero)), zero, zero);
  return {re, im};
}

}  // namespace

void addComplexMathHandlers(HandlerTable& table) {
  table["tanh"] = complexTanh;
  table["tan"] = complexTan;
  table["exponential-minus-one"] = complexExpm1;
  table["rsqrt"] = complexRsqrt;
  table["power"] = complexPower;
}

}  // namespace lf::frontend
