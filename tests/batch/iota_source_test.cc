// Batch mapping of a batch made inside the program: jax.vmap over jax.random.split(key, n) maps
// over threefry of an iota of n, and no input has the batch. The iota then starts the batch: each
// chain's element is its own, and a group reads its slice of the whole iota. Each chain's result
// must be the one it gets alone (worked out here by hand), in every grouping.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "batch/batch.h"
#include "batch_test_util.h"
#include "runtime/cpu_program_builder.h"

namespace lf::batch {
namespace {

using lf::testing::load;
using lf::testing::ScopedEnv;
using Vars = ScopedEnv::Vars;

// Chain c starts at x = c * s and runs `x = 0.5 * x + s` five times; `extra` is appended to the
// entry (to add an op that mixes the chains).
std::string chainsFromIota(const std::string& extraOut = "", const std::string& extraType = "") {
  return R"(HloModule chains_from_iota, entry_computation_layout={(f32[])->(f32[4]{0})" +
         extraType + R"()}

cond {
  st = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  five = s32[] constant(5)
  ROOT lt = pred[] compare(i, five), direction=LT
}

body {
  st = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[4] get-tuple-element(st), index=1
  s = f32[] constant(0.25)
  ss = f32[4] broadcast(s), dimensions={}
  half = f32[] constant(0.5)
  halves = f32[4] broadcast(half), dimensions={}
  m = f32[4] multiply(x, halves)
  xn = f32[4] add(m, ss)
  one = s32[] constant(1)
  inext = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(inext, xn)
}

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  scale = f32[] parameter(0)
  c = s32[4] iota(), iota_dimension=0
  cf = f32[4] convert(c)
  scales = f32[4] broadcast(scale), dimensions={}
  x0 = f32[4] multiply(cf, scales)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, x0)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  x = f32[4] get-tuple-element(w), index=1
)" + (extraOut.empty() ? "  ROOT out = (f32[4]) tuple(x)\n" : extraOut) +
         "}\n";
}

TEST(IotaSource, TheBatchMadeInsideIsMapped) {
  const ir::Program p = load(chainsFromIota());
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.chains, 4);
  EXPECT_EQ(m.inputDims, (std::vector<int>{-1}));
  EXPECT_EQ(m.outputDims, (std::vector<int>{0}));
  // The iota (or the constant that folding makes of it); the splat constants stay shared.
  ASSERT_EQ(m.batchSources.size(), 1u);
  const ir::OpKind source = (*m.batchSources.begin())->kind;
  EXPECT_TRUE(source == ir::OpKind::Iota || source == ir::OpKind::Constant)
      << ir::opKindName(source);
}

TEST(IotaSource, EachChainGetsItsOwnIotaElement) {
  const float scale = 3.0f;
  std::vector<float> expect(4);
  for (int c = 0; c < 4; ++c) {
    float x = static_cast<float>(c) * scale;
    for (int i = 0; i < 5; ++i) x = 0.5f * x + 0.25f;  // exact in f32: no rounding to differ
    expect[c] = x;
  }
  for (const char* group : {"1", "2", "4"}) {
    ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                       {"LOOPFUSE_BATCH_GROUP", group},
                       {"LOOPFUSE_CPU_THREADS", "2"},
                       {"OMP_WAIT_POLICY", "passive"}});
    codegen::EmittedKernel k = codegen::emit(load(chainsFromIota()), Target::Cpu);
    ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos)
        << k.explain;
    EXPECT_NE(k.explain.find("the batch is made inside the program, from "), std::string::npos)
        << k.explain;
    EXPECT_NE(k.explain.find(" c (line "), std::string::npos) << k.explain;
    auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
    auto out = exe->run({testing::array<float>(DType::F32, {}, {scale})});
    EXPECT_EQ(testing::values<float>(out.at(0)), expect) << "group " << group;
  }
}

TEST(IotaSource, AnOpThatMixesTheChainsIsRefused) {
  // The sum over the iota's chains as a second output: not independent chains.
  const std::string mixed = R"(  zf = f32[] constant(0)
  total = f32[] reduce(x, zf), dimensions={0}, to_apply=sum
  ROOT out = (f32[4], f32[]) tuple(x, total)
)";
  Mapping m = analyze(load(chainsFromIota(mixed, ", f32[]")));
  EXPECT_FALSE(m.mapped());
  // The reason is the first attempt's (the inputs give no batch).
  EXPECT_NE(m.reason.find("no output depends on a batched input"), std::string::npos) << m.reason;
}

// A batched input and noise of its shape from an iota every chain shares (what
// `x + jax.random.normal(key, x.shape)` with one key is): chain c adds c * 0.25. `tail` follows
// `x` in the entry, and may call `sum`.
std::string batchedStatePlusIotaNoise(const std::string& tail) {
  return R"(HloModule noise_of_x_shape, entry_computation_layout={(f32[4]{0})->(f32[4]{0})}

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

ENTRY main {
  x0 = f32[4] parameter(0)
  c = s32[4] iota(), iota_dimension=0
  cf = f32[4] convert(c)
  q = f32[] constant(0.25)
  qs = f32[4] broadcast(q), dimensions={}
  noise = f32[4] multiply(cf, qs)
  x = f32[4] add(x0, noise)
)" + tail +
         "}\n";
}

TEST(IotaSource, NoiseOfTheBatchedStatesShapeIsEachGroupsOwn) {
  // Shared, each group would compute the whole batch's noise and read its slice; as a batch
  // source it computes its own chains' only.
  const std::string tail = "  ROOT out = (f32[4]) tuple(x)\n";
  Mapping m = analyze(load(batchedStatePlusIotaNoise(tail)));
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.inputDims, (std::vector<int>{0}));
  EXPECT_EQ(m.batchSources.size(), 1u);
  for (const char* group : {"1", "2", "4"}) {
    ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                       {"LOOPFUSE_BATCH_GROUP", group},
                       {"LOOPFUSE_CPU_THREADS", "2"},
                       {"OMP_WAIT_POLICY", "passive"}});
    codegen::EmittedKernel k = codegen::emit(load(batchedStatePlusIotaNoise(tail)), Target::Cpu);
    ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos)
        << k.explain;
    auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
    auto out = exe->run({testing::array<float>(DType::F32, {4}, {1, 2, 3, 4})});
    EXPECT_EQ(testing::values<float>(out.at(0)), (std::vector<float>{1, 2.25f, 3.5f, 4.75f}))
        << "group " << group;
  }
}

TEST(IotaSource, AnIotaTheChainsReadWholeLeavesTheInputsToStartTheBatch) {
  // The noise's sum over the iota's dimension is every chain's alike: as a batch source the iota
  // would make that sum mix the chains, so the analysis falls back to the inputs alone.
  const std::string tail = R"(  zf = f32[] constant(0)
  total = f32[] reduce(noise, zf), dimensions={0}, to_apply=sum
  totals = f32[4] broadcast(total), dimensions={}
  y = f32[4] add(x, totals)
  ROOT out = (f32[4]) tuple(y)
)";
  const std::string text = batchedStatePlusIotaNoise(tail);
  Mapping m = analyze(load(text));
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.inputDims, (std::vector<int>{0}));
  EXPECT_TRUE(m.batchSources.empty());
  ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                     {"LOOPFUSE_BATCH_GROUP", "2"},
                     {"LOOPFUSE_CPU_THREADS", "2"},
                     {"OMP_WAIT_POLICY", "passive"}});
  codegen::EmittedKernel k = codegen::emit(load(text), Target::Cpu);
  ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos) << k.explain;
  auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
  auto out = exe->run({testing::array<float>(DType::F32, {4}, {1, 2, 3, 4})});
  // noise = 0, 0.25, 0.5, 0.75; its sum 1.5 added to every chain.
  EXPECT_EQ(testing::values<float>(out.at(0)), (std::vector<float>{2.5f, 3.75f, 5, 6.25f}));
}

}  // namespace
}  // namespace lf::batch
