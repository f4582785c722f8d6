// jax's CPU lowering of threefry2x32 (a call of a 5-trip while loop of integer ops) is imported as
// the threefry2x32 op, and only when its computation evaluates to the hash: the module below is
// jax 0.11's lowering as jax.random.bits prints it, with the shapes and constants the tests vary.
// Also the integer evaluator the recognition runs on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/integer_eval.h"
#include "frontend/test_util.h"

namespace lf::frontend::testing {
namespace {

// jax 0.11's threefry2x32 lowering (from `jax.random.bits` on the CPU), called once from the entry.
// COUNTS is the counters' shape (the keys are scalars), ROT0 and ROT1 the rotation tables, KS the
// key-schedule constant. (Keys of other shapes, one per vmapped chain, are in the corpus test.)
std::string threefryModule(const std::string& counts, const std::string& rot0 = "13, 15, 26, 6",
                           const std::string& rot1 = "17, 29, 16, 24",
                           const std::string& ks = "466688986") {
  std::string text = R"(HloModule m
body {
  s = (s32[], s32[], COUNTS, COUNTS, u32[], u32[], u32[], u32[4], u32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  g = s32[] get-tuple-element(s), index=1
  g1 = s32[] add(g, one)
  x0 = COUNTS get-tuple-element(s), index=2
  x1 = COUNTS get-tuple-element(s), index=3
  rot = u32[4] get-tuple-element(s), index=7
  thirty_two = u32[] constant(32)
  a0 = COUNTS add(x0, x1)
  r0s = u32[1] slice(rot), slice={[0:1]}
  r0 = u32[] reshape(r0s)
  l0 = COUNTS broadcast(r0), dimensions={}
  sl0 = COUNTS shift-left(x1, l0)
  q0 = u32[] subtract(thirty_two, r0)
  m0 = COUNTS broadcast(q0), dimensions={}
  sr0 = COUNTS shift-right-logical(x1, m0)
  o0 = COUNTS or(sl0, sr0)
  y0 = COUNTS xor(a0, o0)
  a1 = COUNTS add(a0, y0)
  r1s = u32[1] slice(rot), slice={[1:2]}
  r1 = u32[] reshape(r1s)
  l1 = COUNTS broadcast(r1), dimensions={}
  sl1 = COUNTS shift-left(y0, l1)
  q1 = u32[] subtract(thirty_two, r1)
  m1 = COUNTS broadcast(q1), dimensions={}
  sr1 = COUNTS shift-right-logical(y0, m1)
  o1 = COUNTS or(sl1, sr1)
  y1 = COUNTS xor(a1, o1)
  a2 = COUNTS add(a1, y1)
  r2s = u32[1] slice(rot), slice={[2:3]}
  r2 = u32[] reshape(r2s)
  l2 = COUNTS broadcast(r2), dimensions={}
  sl2 = COUNTS shift-left(y1, l2)
  q2 = u32[] subtract(thirty_two, r2)
  m2 = COUNTS broadcast(q2), dimensions={}
  sr2 = COUNTS shift-right-logical(y1, m2)
  o2 = COUNTS or(sl2, sr2)
  y2 = COUNTS xor(a2, o2)
  a3 = COUNTS add(a2, y2)
  k4 = u32[] get-tuple-element(s), index=4
  kb4 = COUNTS broadcast(k4), dimensions={}
  a4 = COUNTS add(a3, kb4)
  r3s = u32[1] slice(rot), slice={[3:4]}
  r3 = u32[] reshape(r3s)
  l3 = COUNTS broadcast(r3), dimensions={}
  sl3 = COUNTS shift-left(y2, l3)
  q3 = u32[] subtract(thirty_two, r3)
  m3 = COUNTS broadcast(q3), dimensions={}
  sr3 = COUNTS shift-right-logical(y2, m3)
  o3 = COUNTS or(sl3, sr3)
  y3 = COUNTS xor(a3, o3)
  k5 = u32[] get-tuple-element(s), index=5
  kb5 = COUNTS broadcast(k5), dimensions={}
  y4 = COUNTS add(y3, kb5)
  gu = u32[] convert(g1)
  gb = COUNTS broadcast(gu), dimensions={}
  y5 = COUNTS add(y4, gb)
  k6 = u32[] get-tuple-element(s), index=6
  rot1 = u32[4] get-tuple-element(s), index=8
  ROOT t = (s32[], s32[], COUNTS, COUNTS, u32[], u32[], u32[], u32[4], u32[4]) tuple(i1, g1, a4, y5, k5, k6, k4, rot1, rot)
}
cond {
  s = (s32[], s32[], COUNTS, COUNTS, u32[], u32[], u32[], u32[4], u32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(i, five), direction=LT
}
threefry2x32 {
  zero = s32[] constant(0)
  k0s = u32[] parameter(0)
  k1s = u32[] parameter(1)
  x0 = COUNTS parameter(2)
  x1 = COUNTS parameter(3)
  kb0 = COUNTS broadcast(k0s), dimensions={}
  kb1 = COUNTS broadcast(k1s), dimensions={}
  a0 = COUNTS add(x0, kb0)
  a1 = COUNTS add(x1, kb1)
  kx = u32[] xor(k0s, k1s)
  c = u32[] constant(KS)
  k2 = u32[] xor(kx, c)
  rot0 = u32[4] constant({ROT0})
  rot1 = u32[4] constant({ROT1})
  init = (s32[], s32[], COUNTS, COUNTS, u32[], u32[], u32[], u32[4], u32[4]) tuple(zero, zero, a0, a1, k1s, k2, k0s, rot0, rot1)
  w = (s32[], s32[], COUNTS, COUNTS, u32[], u32[], u32[], u32[4], u32[4]) while(init), condition=cond, body=body
  h0 = COUNTS get-tuple-element(w), index=2
  h1 = COUNTS get-tuple-element(w), index=3
  ROOT r = (COUNTS, COUNTS) tuple(h0, h1)
}
ENTRY main {
  k0 = u32[] parameter(0)
  k1 = u32[] parameter(1)
  x0 = COUNTS parameter(2)
  x1 = COUNTS parameter(3)
  ROOT h = (COUNTS, COUNTS) call(k0, k1, x0, x1), to_apply=threefry2x32
}
)";
  auto replaceAll = [&](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replaceAll("COUNTS", counts);
  replaceAll("ROT0", rot0);
  replaceAll("ROT1", rot1);
  replaceAll("KS", ks);
  return text;
}

bool hashed(const std::string& ir) { return ir.find("threefry2x32(") != std::string::npos; }

TEST(ThreefryCall, JaxLoweringBecomesTheOp) {
  const std::string ir = importText(threefryModule("u32[4]"));
  EXPECT_EQ(ir, R"(program m(%0: u32[], %1: u32[], %2: u32[4], %3: u32[4]) -> (u32[4], u32[4]) {
  %4 = broadcast(%0) dimensions={} : u32[4]
  %5 = broadcast(%1) dimensions={} : u32[4]
  %6, %7 = threefry2x32(%4, %5, %2, %3) : u32[4], u32[4]
  return %6, %7
}
)");
}

TEST(ThreefryCall, LargeAndMultiDimensionalCountersAreTriedOnFewElements) {
  EXPECT_TRUE(hashed(importText(threefryModule("u32[100000]"))));
  EXPECT_TRUE(hashed(importText(threefryModule("u32[1024,3]"))));
  EXPECT_TRUE(hashed(importText(threefryModule("u32[]"))));
  // Many small dims are not resized and would be tried at full size (2^32 elements): not tried.
  EXPECT_FALSE(hashed(importText(threefryModule("u32[16,16,16,16,16,16,16,16]"))));
}

TEST(ThreefryCall, AnyOtherComputationIsInlined) {
  // Another rotation, another key-schedule constant: the same ops and signature, not the hash.
  for (const std::string& ir :
       {importText(threefryModule("u32[4]", "13, 15, 26, 7")),
        importText(threefryModule("u32[4]", "13, 15, 26, 6", "17, 29, 16, 25")),
        importText(threefryModule("u32[4]", "13, 15, 26, 6", "17, 29, 16, 24", "466688987")),
        importText(threefryModule("u32[3000]", "13, 15, 26, 7"))}) {
    EXPECT_FALSE(hashed(ir)) << ir;
    EXPECT_NE(ir.find("while("), std::string::npos) << ir;
  }
}

TEST(ThreefryCall, SignatureAloneIsNotEnough) {
  // (k0, k1, x0, x1) -> (x1, x0): the signature of the hash, and never taken for it.
  const std::string ir = importText(R"(HloModule m
swap {
  k0 = u32[] parameter(0)
  k1 = u32[] parameter(1)
  x0 = u32[8] parameter(2)
  x1 = u32[8] parameter(3)
  ROOT r = (u32[8], u32[8]) tuple(x1, x0)
}
ENTRY main {
  k0 = u32[] parameter(0)
  k1 = u32[] parameter(1)
  x0 = u32[8] parameter(2)
  x1 = u32[8] parameter(3)
  ROOT h = (u32[8], u32[8]) call(k0, k1, x0, x1), to_apply=swap
})");
  EXPECT_EQ(ir, R"(program m(%0: u32[], %1: u32[], %2: u32[8], %3: u32[8]) -> (u32[8], u32[8]) {
  return %3, %2
}
)");
}

TEST(ThreefryCall, AnEndlessLoopEndsTheTryNotTheImport) {
  // A callee with the hash's signature whose loop never ends: the evaluator's budget stops the
  // try, and the call is imported as written (running it would not end either, as in XLA).
  const std::string ir = importText(R"(HloModule m
cond {
  s = (u32[8], u32[8]) parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  s = (u32[8], u32[8]) parameter(0)
  a = u32[8] get-tuple-element(s), index=0
  b = u32[8] get-tuple-element(s), index=1
  c = u32[8] add(a, b)
  ROOT t = (u32[8], u32[8]) tuple(c, a)
}
spin {
  k0 = u32[] parameter(0)
  k1 = u32[] parameter(1)
  x0 = u32[8] parameter(2)
  x1 = u32[8] parameter(3)
  init = (u32[8], u32[8]) tuple(x0, x1)
  ROOT w = (u32[8], u32[8]) while(init), condition=cond, body=body
}
ENTRY main {
  k0 = u32[] parameter(0)
  k1 = u32[] parameter(1)
  x0 = u32[8] parameter(2)
  x1 = u32[8] parameter(3)
  ROOT h = (u32[8], u32[8]) call(k0, k1, x0, x1), to_apply=spin
})");
  EXPECT_FALSE(hashed(ir));
  EXPECT_NE(ir.find("while("), std::string::npos) << ir;
}

// Every call of jax's threefry2x32 in the corpus (scalar keys, a key per vmapped chain, counters of
// one to thousands of elements) imports as the op: the imported programs have threefry2x32 ops and
// none of the rotation tables that the hash written out carries.
TEST(ThreefryCall, EveryCorpusCallIsRecognised) {
  int programs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LF_SOURCE_DIR "/tests/programs")) {
    if (entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find("to_apply=threefry2x32") == std::string::npos) continue;
    SourceFile file(entry.path().string(), text.str());
    const std::string ir = ir::print(importModule(hlo::parseModule(file)));
    // flax's LSTMCell.initialize_carry splits a key it never uses: the call is dead and imports as
    // nothing (the rotation tables below would show a hash written out instead).
    const bool deadCallsOnly = entry.path().stem().string().rfind("model_flax_lstm_scan", 0) == 0;
    EXPECT_EQ(hashed(ir), !deadCallsOnly) << entry.path();
    EXPECT_EQ(ir.find("constant({13, 15, 26, 6})"), std::string::npos) << entry.path();
    EXPECT_EQ(ir.find("constant({17, 29, 16, 24})"), std::string::npos) << entry.path();
    ++programs;
  }
  EXPECT_GT(programs, 40);
}

// ---- the evaluator ------------------------------------------------------------------------------

EvalValue u32s(std::vector<int64_t> dims, std::vector<uint64_t> bits) {
  EvalValue v;
  v.dims = std::move(dims);
  v.bits = std::move(bits);
  return v;
}

std::optional<EvalValue> evaluate(const std::string& text, const std::vector<EvalValue>& args,
                                  EvalOptions options = {}) {
  SourceFile file("e.hlo", text);
  const hlo::Module m = hlo::parseModule(file);
  return evaluateIntegerComputation(m, m.entry(), args, options);
}

TEST(IntegerEval, ShiftsPastTheWidthFollowXla) {
  // x << 32 and x >> 32 are 0; an arithmetic shift past the width gives the sign.
  const std::optional<EvalValue> r = evaluate(R"(HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  n = s32[3] parameter(1)
  l = s32[3] shift-left(x, n)
  rl = s32[3] shift-right-logical(x, n)
  ra = s32[3] shift-right-arithmetic(x, n)
  ROOT t = (s32[3], s32[3], s32[3]) tuple(l, rl, ra)
})",
                                              {[] {
                                                 EvalValue x = u32s({3}, {0xfffffff0u, 8, 8});
                                                 x.dtype = DType::S32;
                                                 return x;
                                               }(),
                                               [] {
                                                 EvalValue n = u32s({3}, {32, 2, 0xffffffffu});
                                                 n.dtype = DType::S32;
                                                 return n;
                                               }()});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->elements[0].bits, (std::vector<uint64_t>{0, 32, 0}));
  EXPECT_EQ(r->elements[1].bits, (std::vector<uint64_t>{0, 2, 0}));
  EXPECT_EQ(r->elements[2].bits, (std::vector<uint64_t>{0xffffffffu, 2, 0}));
}

TEST(IntegerEval, ComparesAndConvertsByTheTypesSign) {
  const std::optional<EvalValue> r = evaluate(R"(HloModule m
ENTRY e {
  a = u32[2] parameter(0)
  b = u32[2] parameter(1)
  lt = pred[2] compare(a, b), direction=LT
  as = s32[2] convert(a)
  bs = s32[2] convert(b)
  slt = pred[2] compare(as, bs), direction=LT
  w = s64[2] convert(as)
  ROOT t = (pred[2], pred[2], s64[2]) tuple(lt, slt, w)
})",
                                              {u32s({2}, {0xffffffffu, 1}), u32s({2}, {1, 2})});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->elements[0].bits, (std::vector<uint64_t>{0, 1}));  // unsigned: 2^32 - 1 > 1
  EXPECT_EQ(r->elements[1].bits, (std::vector<uint64_t>{1, 1}));  // signed: -1 < 1
  EXPECT_EQ(r->elements[2].bits, (std::vector<uint64_t>{~uint64_t{0}, 1}));  // sign-extended
}

TEST(IntegerEval, StopsOnFloatsSlicesOfResizedArraysAndBudget) {
  // A float op is outside the evaluator.
  EXPECT_FALSE(evaluate(R"(HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  ROOT y = f32[2] add(x, x)
})",
                        {u32s({2}, {0, 0})}));
  // A slice of a resized array would read other elements than the full-size one.
  const std::string slice = R"(HloModule m
ENTRY e {
  x = u32[100] parameter(0)
  ROOT y = u32[10] slice(x), slice={[0:10]}
})";
  EvalOptions resized;
  resized.resizedDims[100] = 5;
  EvalValue x = u32s({5}, {1, 2, 3, 4, 5});
  x.resized = true;
  EXPECT_FALSE(evaluate(slice, {x}, resized));
  std::vector<uint64_t> hundred(100, 7);
  ASSERT_TRUE(evaluate(slice, {u32s({100}, hundred)}));
  // The budget counts the elements made.
  EvalOptions tight;
  tight.maxElements = 50;
  EXPECT_FALSE(evaluate(R"(HloModule m
ENTRY e {
  x = u32[100] parameter(0)
  ROOT y = u32[100] add(x, x)
})",
                        {u32s({100}, hundred)}, tight));
}

}  // namespace
}  // namespace lf::frontend::testing
