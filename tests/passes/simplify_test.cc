// Constant folding and algebraic simplification: each rule, and the cases that must stay. The
// folded values were worked out by hand from XLA's rules (../shared/reference/xla-op-semantics.md).
#include "passes/simplify.h"

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

// add, subtract, multiply, negate and abs wrap (abs(INT_MIN) = INT_MIN); max/min follow the dtype's
// signedness; not is bitwise.
TEST(Simplify, FoldsWrappingIntegerArithmetic) {
  EXPECT_EQ(afterPass(R"(HloModule fold_integers
ENTRY main {
  max = s32[] constant(2147483647)
  one = s32[] constant(1)
  wrap = s32[] add(max, one)
  a = u8[2] constant({200, 16})
  b = u8[2] constant({2, 16})
  mul = u8[2] multiply(a, b)
  sub = u8[2] subtract(b, a)
  n = s32[3] constant({-7, 7, -2147483648})
  neg = s32[3] negate(n)
  abs = s32[3] abs(n)
  m = s8[] constant(-128)
  five = s8[] constant(5)
  mx = s8[] maximum(m, five)
  um = u8[] constant(128)
  ufive = u8[] constant(5)
  umx = u8[] maximum(um, ufive)
  five16 = s16[] constant(5)
  nt = s16[] not(five16)
  ROOT t = (s32[], u8[2], u8[2], s32[3], s32[3], s8[], u8[], s16[]) tuple(wrap, mul, sub, neg, abs, mx, umx, nt)
})",
                      simplify),
            R"(program fold_integers() -> (s32[], u8[2], u8[2], s32[3], s32[3], s8[], u8[], s16[]) {
  %0 = constant(-2147483648) : s32[]
  %1 = constant({144, 0}) : u8[2]
  %2 = constant({58, 0}) : u8[2]
  %3 = constant({7, -7, -2147483648}) : s32[3]
  %4 = constant({7, 7, -2147483648}) : s32[3]
  %5 = constant(5) : s8[]
  %6 = constant(128) : u8[]
  %7 = constant(-6) : s16[]
  return %0, %1, %2, %3, %4, %5, %6, %7
}
)");
}

// x / 0 = -1 (all bits, u32 too), x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0, quotients
// truncate.
TEST(Simplify, FoldsDivisionByZeroAndIntMinByMinusOne) {
  EXPECT_EQ(afterPass(R"(HloModule fold_division
ENTRY main {
  x = s32[4] constant({7, -7, -2147483648, 5})
  y = s32[4] constant({0, 2, -1, -1})
  q = s32[4] divide(x, y)
  r = s32[4] remainder(x, y)
  ux = u32[2] constant({7, 4294967295})
  uy = u32[2] constant({0, 2})
  uq = u32[2] divide(ux, uy)
  ur = u32[2] remainder(ux, uy)
  ROOT t = (s32[4], s32[4], u32[2], u32[2]) tuple(q, r, uq, ur)
})",
                      simplify),
            R"(program fold_division() -> (s32[4], s32[4], u32[2], u32[2]) {
  %0 = constant({-1, -3, -2147483648, -5}) : s32[4]
  %1 = constant({7, -1, 0, 0}) : s32[4]
  %2 = constant({4294967295, 2147483647}) : u32[2]
  %3 = constant({7, 1}) : u32[2]
  return %0, %1, %2, %3
}
)");
}

// An amount >= the width, or negative (compared unsigned), gives 0, or the sign fill for an
// arithmetic right shift.
TEST(Simplify, FoldsShiftsPastTheWidth) {
  EXPECT_EQ(afterPass(R"(HloModule fold_shifts
ENTRY main {
  x = s32[5] constant({1, 1, -8, -8, -8})
  k = s32[5] constant({31, 32, 1, -1, 40})
  shl = s32[5] shift-left(x, k)
  sra = s32[5] shift-right-arithmetic(x, k)
  srl = s32[5] shift-right-logical(x, k)
  u = u8[2] constant({200, 200})
  uk = u8[2] constant({7, 8})
  usrl = u8[2] shift-right-logical(u, uk)
  ROOT t = (s32[5], s32[5], s32[5], u8[2]) tuple(shl, sra, srl, usrl)
})",
                      simplify),
            R"(program fold_shifts() -> (s32[5], s32[5], s32[5], u8[2]) {
  %0 = constant({-2147483648, 0, -16, 0, 0}) : s32[5]
  %1 = constant({0, 0, -4, -1, -1}) : s32[5]
  %2 = constant({0, 0, 2147483644, 0, 0}) : s32[5]
  %3 = constant({1, 0}) : u8[2]
  return %0, %1, %2, %3
}
)");
}

// Compare by the dtype's signedness; convert extends by the source's signedness and truncates; to
// pred is x != 0; select copies bits of any dtype.
TEST(Simplify, FoldsCompareConvertSelectAndPred) {
  EXPECT_EQ(
      afterPass(R"(HloModule fold_compare_convert_select
ENTRY main {
  s = s32[2] constant({-1, 3})
  one = s32[2] constant({1, 3})
  slt = pred[2] compare(s, one), direction=LT
  u = u32[2] constant({4294967295, 3})
  uone = u32[2] constant({1, 3})
  ult = pred[2] compare(u, uone), direction=LT
  uge = pred[2] compare(u, uone), direction=GE
  b = s8[3] constant({-1, 44, 0})
  wide = u32[3] convert(b)
  p = pred[3] convert(b)
  big = s32[2] constant({300, -129})
  narrow = s8[2] convert(big)
  pi = s32[2] convert(slt)
  pand = pred[2] and(slt, ult)
  pnot = pred[2] not(slt)
  f = f32[2] constant({1.5, -0})
  g = f32[2] constant({nan, 2})
  sel = f32[2] select(slt, f, g)
  ROOT t = (pred[2], pred[2], pred[2], u32[3], pred[3], s8[2], s32[2], pred[2], pred[2], f32[2]) tuple(slt, ult, uge, wide, p, narrow, pi, pand, pnot, sel)
})",
                simplify),
      R"(program fold_compare_convert_select() -> (pred[2], pred[2], pred[2], u32[3], pred[3], s8[2], s32[2], pred[2], pred[2], f32[2]) {
  %0 = constant({true, false}) : pred[2]
  %1 = constant({false, false}) : pred[2]
  %2 = constant({true, true}) : pred[2]
  %3 = constant({4294967295, 44, 0}) : u32[3]
  %4 = constant({true, true, false}) : pred[3]
  %5 = constant({44, 127}) : s8[2]
  %6 = constant({1, 0}) : s32[2]
  %7 = constant({false, false}) : pred[2]
  %8 = constant({false, true}) : pred[2]
  %9 = constant({1.5, 2}) : f32[2]
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
}
)");
}

// broadcast, transpose, reshape, slice and iota fold up to 64 elements (f32 iota too); 65 or 72
// elements stay.
TEST(Simplify, FoldsSmallDataMovementOnly) {
  EXPECT_EQ(afterPass(R"(HloModule fold_data_movement
ENTRY main {
  c = s32[2] constant({1, 2})
  b = s32[3,2] broadcast(c), dimensions={1}
  tr = s32[2,3] transpose(b), dimensions={1,0}
  r = s32[6] reshape(tr)
  sl = s32[2] slice(r), slice={[1:6:3]}
  io = f32[2,2] iota(), iota_dimension=1
  big = s32[65] iota(), iota_dimension=0
  h = f16[] constant(1)
  hb = f16[8,9] broadcast(h), dimensions={}
  ROOT t = (s32[2,3], s32[2], f32[2,2], s32[65], f16[8,9]) tuple(tr, sl, io, big, hb)
})",
                      simplify),
            R"(program fold_data_movement() -> (s32[2,3], s32[2], f32[2,2], s32[65], f16[8,9]) {
  %0 = constant({1, 1, 1, 2, 2, 2}) : s32[2,3]
  %1 = constant({1, 2}) : s32[2]
  %2 = constant({0, 1, 0, 1}) : f32[2,2]
  %3 = iota() dimension=0 : s32[65]
  %4 = constant(1) : f16[]
  %5 = broadcast(%4) dimensions={} : f16[8,9]
  return %0, %1, %2, %3, %5
}
)");
}

// Float arithmetic, float compare (denormals are flushed at run time), int<->float converts and
// integer power are not folded.
TEST(Simplify, NeverFoldsFloatArithmeticOrIntegerPower) {
  EXPECT_EQ(afterPass(R"(HloModule no_float_folding
ENTRY main {
  a = f32[] constant(0.1)
  b = f32[] constant(0.2)
  add = f32[] add(a, b)
  tiny = f32[] constant(1e-45)
  zero = f32[] constant(0)
  ne = pred[] compare(tiny, zero), direction=NE
  e = f32[] exponential(a)
  i = s32[] constant(16777217)
  f = f32[] convert(i)
  back = s32[] convert(a)
  base = s32[] constant(3)
  ex = s32[] constant(2)
  pw = s32[] power(base, ex)
  ROOT t = (f32[], pred[], f32[], f32[], s32[], s32[]) tuple(add, ne, e, f, back, pw)
})",
                      simplify),
            R"(program no_float_folding() -> (f32[], pred[], f32[], f32[], s32[], s32[]) {
  %0 = constant(0.1) : f32[]
  %1 = constant(0.2) : f32[]
  %2 = add(%0, %1) : f32[]
  %3 = constant(1e-45) : f32[]
  %4 = constant(0) : f32[]
  %5 = compare(%3, %4) direction=NE type=FLOAT : pred[]
  %6 = exponential(%0) : f32[]
  %7 = constant(16777217) : s32[]
  %8 = convert(%7) : f32[]
  %9 = convert(%0) : s32[]
  %10 = constant(3) : s32[]
  %11 = constant(2) : s32[]
  %12 = power(%10, %11) : s32[]
  return %2, %5, %6, %8, %9, %12
}
)");
}

// x+0, 0+x, x-0, x*1, x|0, ~0&x, x^0 and x<<0 go (through broadcast constants); 0-x, x*0, x&1 and
// 0<<x stay.
TEST(Simplify, DropsIntegerIdentities) {
  EXPECT_EQ(afterPass(R"(HloModule integer_identities
ENTRY main {
  x = s32[2] parameter(0)
  zero = s32[] constant(0)
  zeros = s32[2] broadcast(zero), dimensions={}
  one = s32[2] constant({1, 1})
  ones = s32[2] constant({-1, -1})
  a = s32[2] add(zeros, x)
  s = s32[2] subtract(a, zeros)
  m = s32[2] multiply(s, one)
  o = s32[2] or(m, zeros)
  n = s32[2] and(ones, o)
  xo = s32[2] xor(n, zeros)
  sh = s32[2] shift-left(xo, zeros)
  keep1 = s32[2] subtract(zeros, x)
  keep2 = s32[2] multiply(x, zeros)
  keep3 = s32[2] and(x, one)
  keep4 = s32[2] shift-left(zeros, x)
  ROOT t = (s32[2], s32[2], s32[2], s32[2], s32[2]) tuple(sh, keep1, keep2, keep3, keep4)
})",
                      simplify),
            R"(program integer_identities(%0: s32[2]) -> (s32[2], s32[2], s32[2], s32[2], s32[2]) {
  %1 = constant({0, 0}) : s32[2]
  %2 = constant({1, 1}) : s32[2]
  %3 = subtract(%1, %0) : s32[2]
  %4 = multiply(%0, %1) : s32[2]
  %5 = and(%0, %2) : s32[2]
  %6 = shift-left(%1, %0) : s32[2]
  return %0, %3, %4, %5, %6
}
)");
}

// 1.0*x, x/1.0, x+(-0.0) and x-(+0.0) go (XLA drops them too); x+(+0.0) (-0 + +0 = +0), x-(-0.0)
// and x*0 stay.
TEST(Simplify, DropsOnlyExactFloatIdentities) {
  EXPECT_EQ(afterPass(R"(HloModule float_identities
ENTRY main {
  x = f32[2] parameter(0)
  one = f32[] constant(1)
  ones = f32[2] broadcast(one), dimensions={}
  pz = f32[2] constant({0, 0})
  nz = f32[2] constant({-0, -0})
  m = f32[2] multiply(ones, x)
  a = f32[2] add(m, nz)
  s = f32[2] subtract(a, pz)
  keep1 = f32[2] add(x, pz)
  keep2 = f32[2] subtract(x, nz)
  keep3 = f32[2] multiply(x, pz)
  d = f32[2] divide(x, ones)
  ROOT t = (f32[2], f32[2], f32[2], f32[2], f32[2]) tuple(s, keep1, keep2, keep3, d)
})",
                      simplify),
            R"(program float_identities(%0: f32[2]) -> (f32[2], f32[2], f32[2], f32[2], f32[2]) {
  %1 = constant({0, 0}) : f32[2]
  %2 = constant({-0, -0}) : f32[2]
  %3 = add(%0, %1) : f32[2]
  %4 = subtract(%0, %2) : f32[2]
  %5 = multiply(%0, %1) : f32[2]
  return %0, %3, %4, %5, %0
}
)");
}

// select with a uniform constant predicate or equal branches, convert to the same type, reshape of
// reshape, identity reshape/transpose/slice/broadcast; select with a mixed constant predicate
// stays.
TEST(Simplify, DropsStructuralIdentities) {
  EXPECT_EQ(
      afterPass(R"(HloModule structural_identities
ENTRY main {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  p = pred[2,3] parameter(2)
  t = pred[] constant(true)
  ts = pred[2,3] broadcast(t), dimensions={}
  s1 = f32[2,3] select(ts, x, y)
  mixed = pred[2] constant({true, false})
  pm = pred[2,3] broadcast(mixed), dimensions={0}
  keep = f32[2,3] select(pm, x, y)
  same = f32[2,3] select(p, y, y)
  c = f32[2,3] convert(s1)
  r1 = f32[6] reshape(c)
  r2 = f32[3,2] reshape(r1)
  r3 = f32[2,3] reshape(x)
  tr = f32[2,3] transpose(r3), dimensions={0,1}
  sl = f32[2,3] slice(tr), slice={[0:2], [0:3]}
  bc = f32[2,3] broadcast(sl), dimensions={0,1}
  ROOT out = (f32[2,3], f32[2,3], f32[3,2], f32[2,3]) tuple(keep, same, r2, bc)
})",
                simplify),
      R"(program structural_identities(%0: f32[2,3], %1: f32[2,3], %2: pred[2,3]) -> (f32[2,3], f32[2,3], f32[3,2], f32[2,3]) {
  %3 = constant({true, true, true, false, false, false}) : pred[2,3]
  %4 = select(%3, %0, %1) : f32[2,3]
  %5 = reshape(%0) : f32[3,2]
  return %4, %1, %5, %0
}
)");
}

// Loop conditions, loop bodies and reducers are simplified like the top level.
TEST(Simplify, FoldsAndSimplifiesInsideLoopsAndReducers) {
  EXPECT_EQ(afterPass(R"(HloModule simplify_inside_regions
mx {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  zero = s32[] constant(0)
  b0 = s32[] add(b, zero)
  ROOT m = s32[] maximum(a, b0)
}
cond {
  st = (s32[], s32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  two = s32[] constant(2)
  five = s32[] constant(5)
  n = s32[] multiply(two, five)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], s32[2]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = s32[2] get-tuple-element(st), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  c = s32[2] constant({3, 4})
  d = s32[2] iota(), iota_dimension=0
  e = s32[2] shift-left(c, d)
  x2 = s32[2] xor(x, e)
  ROOT t = (s32[], s32[2]) tuple(i2, x2)
}
ENTRY main {
  x = s32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[2]) tuple(zero, x)
  w = (s32[], s32[2]) while(init), condition=cond, body=body
  wx = s32[2] get-tuple-element(w), index=1
  low = s32[] constant(-2147483648)
  r = s32[] reduce(wx, low), dimensions={0}, to_apply=mx
  ROOT t = (s32[2], s32[]) tuple(wx, r)
})",
                      simplify),
            R"(program simplify_inside_regions(%0: s32[2]) -> (s32[2], s32[]) {
  %1 = constant(0) : s32[]
  %2, %3 = while(%1, %0) : s32[], s32[2]
    cond(%4: s32[], %5: s32[2]) {
      %6 = constant(10) : s32[]
      %7 = compare(%4, %6) direction=LT type=SIGNED : pred[]
      yield %7
    }
    body(%8: s32[], %9: s32[2]) {
      %10 = constant(1) : s32[]
      %11 = add(%8, %10) : s32[]
      %12 = constant({3, 8}) : s32[2]
      %13 = xor(%9, %12) : s32[2]
      yield %11, %13
    }
  %14 = constant(-2147483648) : s32[]
  %15 = reduce(%3, %14) dimensions={0} : s32[]
    reducer(%16: s32[], %17: s32[]) {
      %18 = maximum(%16, %17) : s32[]
      yield %18
    }
  return %3, %15
}
)");
}
// threefry2x32 of constants folds to Random123's known answers (jax.random.key(0) made inside the
// function); past the size that data movement folds to, it stays an op.
TEST(Simplify, FoldsThreefryOfConstants) {
  EXPECT_EQ(afterPass(R"(HloModule fold_threefry
ENTRY main {
  k = u32[2] constant({0, 4294967295})
  ROOT h = (u32[2], u32[2]) custom-call(k, k, k, k), custom_call_target="cu_threefry2x32_ffi"
})",
                      simplify),
            R"(program fold_threefry() -> (u32[2], u32[2]) {
  %0 = constant({1797259609, 481924860}) : u32[2]
  %1 = constant({2579123966, 3137350631}) : u32[2]
  return %0, %1
}
)");
  std::string zeros = "0";
  for (int i = 1; i < 65; ++i) zeros += ", 0";
  const std::string big = afterPass(R"(HloModule big
ENTRY main {
  k = u32[65] constant({)" + zeros + R"(})
  ROOT h = (u32[65], u32[65]) custom-call(k, k, k, k), custom_call_target="cu_threefry2x32_ffi"
})",
                                    simplify);
  EXPECT_NE(big.find("threefry2x32("), std::string::npos) << big;
}

}  // namespace
}  // namespace lf::passes::testing
