// Batch mapping of jax.vmap'ed while loops whose chains stop at different times: the condition is
// reduce_or over a per-chain predicate and the body freezes finished chains with selects. Each
// group then runs the loop until its own chains are done; every chain's result must be the one it
// gets alone (worked out here by hand), and loops that do not freeze finished chains are refused.
#include <gtest/gtest.h>

#include <string>

#include "batch/batch.h"
#include "batch_test_util.h"
#include "runtime/cpu_program_builder.h"

namespace lf::batch {
namespace {

using lf::testing::ScopedEnv;
using Vars = ScopedEnv::Vars;

using lf::testing::load;

// jax.vmap of `while x < 10: x, n = 1.5 x + 1, n + 1` over 4 chains, as JAX lowers it. `keep` is
// the predicate of state 0's select, `countNext` the count's next value (JAX's own: the defaults),
// so the tests can break the pattern.
std::string vmappedWhile(const std::string& keep = "lt",
                         const std::string& countNext = "select(lt, inc, n)") {
  return R"(HloModule vmapped_while, entry_computation_layout={(f32[4]{0})->(f32[4]{0}, s32[4]{0})}

body {
  st = (f32[4], s32[4]) parameter(0)
  x = f32[4] get-tuple-element(st), index=0
  ten = f32[] constant(10)
  tens = f32[4] broadcast(ten), dimensions={}
  lt = pred[4] compare(x, tens), direction=LT
  five = f32[] constant(5)
  fives = f32[4] broadcast(five), dimensions={}
  lt5 = pred[4] compare(x, fives), direction=LT
  k = f32[] constant(1.5)
  ks = f32[4] broadcast(k), dimensions={}
  m = f32[4] multiply(x, ks)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  a = f32[4] add(m, ones)
  xn = f32[4] select()" +
         keep + R"(, a, x)
  n = s32[4] get-tuple-element(st), index=1
  i1 = s32[] constant(1)
  i1s = s32[4] broadcast(i1), dimensions={}
  inc = s32[4] add(n, i1s)
  nn = s32[4] )" +
         countNext + R"(
  ROOT t = (f32[4], s32[4]) tuple(xn, nn)
}

or {
  p = pred[] parameter(0)
  q = pred[] parameter(1)
  ROOT r = pred[] or(p, q)
}

cond {
  st = (f32[4], s32[4]) parameter(0)
  x = f32[4] get-tuple-element(st), index=0
  ten = f32[] constant(10)
  tens = f32[4] broadcast(ten), dimensions={}
  lt = pred[4] compare(x, tens), direction=LT
  f = pred[] constant(false)
  ROOT any = pred[] reduce(lt, f), dimensions={0}, to_apply=or
}

ENTRY main {
  x0 = f32[4] parameter(0)
  z = s32[] constant(0)
  zs = s32[4] broadcast(z), dimensions={}
  init = (f32[4], s32[4]) tuple(x0, zs)
  w = (f32[4], s32[4]) while(init), condition=cond, body=body
  x = f32[4] get-tuple-element(w), index=0
  n = s32[4] get-tuple-element(w), index=1
  ROOT out = (f32[4], s32[4]) tuple(x, n)
}
)";
}

TEST(GuardedLoop, ChainsThatStopOnTheirOwnAreMapped) {
  ir::Program p = load(vmappedWhile());
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.chains, 4);
  EXPECT_EQ(m.groupReductions.size(), 1u);
  EXPECT_EQ(m.outputDims, (std::vector<int>{0, 0}));
}

TEST(GuardedLoop, EachChainGetsItsOwnTripCount) {
  // Chains needing 0, 1, 3 and 5 iterations: in every grouping each chain must stop at its own.
  const std::vector<float> x0{12.0f, 9.0f, 2.0f, 0.1f};
  std::vector<float> expectX = x0;
  std::vector<int32_t> expectN(4, 0);
  for (int c = 0; c < 4; ++c) {
    while (expectX[c] < 10.0f) {
      expectX[c] = expectX[c] * 1.5f + 1.0f;
      ++expectN[c];
    }
  }
  ASSERT_EQ(expectN, (std::vector<int32_t>{0, 1, 3, 5}));
  for (const char* group : {"1", "2", "4"}) {
    ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                       {"LOOPFUSE_BATCH_GROUP", group},
                       {"LOOPFUSE_CPU_THREADS", "2"},
                       {"OMP_WAIT_POLICY", "passive"}});
    codegen::EmittedKernel k = codegen::emit(load(vmappedWhile()), Target::Cpu);
    ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos)
        << k.explain;
    auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
    auto out = exe->run({testing::array<float>(DType::F32, {4}, x0)});
    EXPECT_EQ(testing::values<float>(out.at(0)), expectX) << "group " << group;
    EXPECT_EQ(testing::values<int32_t>(out.at(1)), expectN) << "group " << group;
  }
}

TEST(GuardedLoop, RefusesABodyThatChangesFinishedChains) {
  const std::string why =
      "runs while any chain's predicate holds, and its body changes the state of chains whose "
      "predicate fails";
  // The count goes on for finished chains: a group's trip count would show in it.
  Mapping m = analyze(load(vmappedWhile("lt", "add(n, i1s)")));
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(m.reason.find(why), std::string::npos) << m.reason;
  // The state is frozen by another predicate than the condition's.
  m = analyze(load(vmappedWhile("lt5")));
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(m.reason.find(why), std::string::npos) << m.reason;
  m = analyze(load(vmappedWhile("lt", "select(lt5, inc, n)")));
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(m.reason.find(why), std::string::npos) << m.reason;
}

// The same loop with a bound on its own iteration count, as equinox's while_loop writes it
// (every vmapped diffrax solve): the condition is and(reduce_or(P), step < bound) and the step
// counter is shared state that changes. `out` is the entry's result tuple.
std::string boundedWhile(int bound, const std::string& out = "tuple(x, n)",
                         const std::string& outType = "(f32[4], s32[4])") {
  return R"(HloModule bounded_while, entry_computation_layout={(f32[4]{0})->)" + outType +
         R"(}

body {
  st = (f32[4], s32[4], s32[]) parameter(0)
  x = f32[4] get-tuple-element(st), index=0
  ten = f32[] constant(10)
  tens = f32[4] broadcast(ten), dimensions={}
  lt = pred[4] compare(x, tens), direction=LT
  k = f32[] constant(1.5)
  ks = f32[4] broadcast(k), dimensions={}
  m = f32[4] multiply(x, ks)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  a = f32[4] add(m, ones)
  xn = f32[4] select(lt, a, x)
  n = s32[4] get-tuple-element(st), index=1
  i1 = s32[] constant(1)
  i1s = s32[4] broadcast(i1), dimensions={}
  inc = s32[4] add(n, i1s)
  nn = s32[4] select(lt, inc, n)
  step = s32[] get-tuple-element(st), index=2
  stepn = s32[] add(step, i1)
  ROOT t = (f32[4], s32[4], s32[]) tuple(xn, nn, stepn)
}

or {
  p = pred[] parameter(0)
  q = pred[] parameter(1)
  ROOT r = pred[] or(p, q)
}

cond {
  st = (f32[4], s32[4], s32[]) parameter(0)
  x = f32[4] get-tuple-element(st), index=0
  ten = f32[] constant(10)
  tens = f32[4] broadcast(ten), dimensions={}
  lt = pred[4] compare(x, tens), direction=LT
  f = pred[] constant(false)
  any = pred[] reduce(lt, f), dimensions={0}, to_apply=or
  step = s32[] get-tuple-element(st), index=2
  bound = s32[] constant()" +
         std::to_string(bound) + R"()
  below = pred[] compare(step, bound), direction=LT
  ROOT go = pred[] and(any, below)
}

ENTRY main {
  x0 = f32[4] parameter(0)
  z = s32[] constant(0)
  zs = s32[4] broadcast(z), dimensions={}
  init = (f32[4], s32[4], s32[]) tuple(x0, zs, z)
  w = (f32[4], s32[4], s32[]) while(init), condition=cond, body=body
  x = f32[4] get-tuple-element(w), index=0
  n = s32[4] get-tuple-element(w), index=1
  steps = s32[] get-tuple-element(w), index=2
  ROOT out = )" +
         outType + " " + out + R"(
}
)";
}

TEST(GuardedLoop, ABoundOnTheIterationCountIsTheSameInEveryGroup) {
  // Chains needing 0, 1, 3 and 5 iterations, with the loop bounded at 4 iterations: the last
  // chain stops at the bound, the others on their own, in every grouping.
  const std::vector<float> x0{12.0f, 9.0f, 2.0f, 0.1f};
  std::vector<float> expectX = x0;
  std::vector<int32_t> expectN(4, 0);
  for (int c = 0; c < 4; ++c) {
    for (int step = 0; step < 4 && expectX[c] < 10.0f; ++step) {
      expectX[c] = expectX[c] * 1.5f + 1.0f;
      ++expectN[c];
    }
  }
  ASSERT_EQ(expectN, (std::vector<int32_t>{0, 1, 3, 4}));
  {
    ir::Program p = load(boundedWhile(4));
    Mapping m = analyze(p);
    ASSERT_TRUE(m.mapped()) << m.reason;
    EXPECT_EQ(m.groupReductions.size(), 1u);
  }
  for (const char* group : {"1", "2", "4"}) {
    ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                       {"LOOPFUSE_BATCH_GROUP", group},
                       {"LOOPFUSE_CPU_THREADS", "2"},
                       {"OMP_WAIT_POLICY", "passive"}});
    codegen::EmittedKernel k = codegen::emit(load(boundedWhile(4)), Target::Cpu);
    ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos)
        << k.explain;
    auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
    auto out = exe->run({testing::array<float>(DType::F32, {4}, x0)});
    EXPECT_EQ(testing::values<float>(out.at(0)), expectX) << "group " << group;
    EXPECT_EQ(testing::values<int32_t>(out.at(1)), expectN) << "group " << group;
  }
}

TEST(GuardedLoop, RefusesWhenTheFinalStepCountIsRead) {
  // The loop's step count after the loop depends on which chains share it.
  const ir::Program p = load(boundedWhile(100, "tuple(x, n, steps)", "(f32[4], s32[4], s32[])"));
  Mapping m = analyze(p);
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(m.reason.find("changes the state of chains whose predicate fails"), std::string::npos)
      << m.reason;
}

// Loop state that starts as a broadcast (shared, of the batch's shape) and is scattered into at
// each chain's own row (a batching dimension pair): the state becomes batched, and the scatter
// slices the shared start at the group's rows.
TEST(GuardedLoop, ScatterIntoStateThatStartsShared) {
  ir::Program p = load(R"(HloModule trace, entry_computation_layout={(f32[4]{0})->f32[4,3]{1,0}}

assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}

cond {
  st = (s32[], f32[4], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

body {
  st = (s32[], f32[4], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[4] get-tuple-element(st), index=1
  trace = f32[4,3] get-tuple-element(st), index=2
  ib = s32[4] broadcast(i), dimensions={}
  at = s32[4,1] reshape(ib)
  written = f32[4,3] scatter(trace, at, x), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=1, to_apply=assign
  two = f32[] constant(2)
  twos = f32[4] broadcast(two), dimensions={}
  xn = f32[4] multiply(x, twos)
  one = s32[] constant(1)
  inext = s32[] add(i, one)
  ROOT t = (s32[], f32[4], f32[4,3]) tuple(inext, xn, written)
}

ENTRY main {
  x0 = f32[4] parameter(0)
  z = s32[] constant(0)
  zf = f32[] constant(0)
  empty = f32[4,3] broadcast(zf), dimensions={}
  init = (s32[], f32[4], f32[4,3]) tuple(z, x0, empty)
  w = (s32[], f32[4], f32[4,3]) while(init), condition=cond, body=body
  ROOT trace = f32[4,3] get-tuple-element(w), index=2
}
)");
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.outputDims, (std::vector<int>{0}));
  ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                     {"LOOPFUSE_BATCH_GROUP", "2"},
                     {"LOOPFUSE_CPU_THREADS", "2"},
                     {"OMP_WAIT_POLICY", "passive"}});
  codegen::EmittedKernel k = codegen::emit(p, Target::Cpu);
  ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos) << k.explain;
  auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
  auto out = exe->run({testing::array<float>(DType::F32, {4}, {1.0f, -2.0f, 0.5f, 3.0f})});
  EXPECT_EQ(testing::values<float>(out.at(0)),
            (std::vector<float>{1, 2, 4, -2, -4, -8, 0.5f, 1, 2, 3, 6, 12}));
}

}  // namespace
}  // namespace lf::batch
