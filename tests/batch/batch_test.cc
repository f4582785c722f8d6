// Batch mapping: which dimension the analysis finds, why it refuses, the group program it builds,
// and the values a batch-mapped kernel computes (against a loop written out here by hand).
#include "batch/batch.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "batch_test_util.h"
#include "runtime/cpu_program_builder.h"

namespace lf::batch {
namespace {

using lf::testing::load;

// Four chains of x <- 0.5 * (x . w) + b, 20 times (too many to unroll), where b is the chain's
// index (an iota along the batch dimension: a shared value that every chain reads its own row of).
// Outputs: x transposed (batch dimension 1), x, and the trip count (shared).
constexpr const char* kChains =
    R"(HloModule chains, entry_computation_layout={(f32[4,3]{1,0}, f32[3,3]{1,0})->(f32[3,4]{1,0}, f32[4,3]{1,0}, s32[])}

cond {
  p = (s32[], f32[4,3], f32[3,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(20)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[4,3], f32[3,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4,3] get-tuple-element(p), index=1
  w = f32[3,3] get-tuple-element(p), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  d = f32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  half = f32[] constant(0.5)
  halves = f32[4,3] broadcast(half), dimensions={}
  scaled = f32[4,3] multiply(d, halves)
  chain = f32[4,3] iota(), iota_dimension=0
  updated = f32[4,3] add(scaled, chain)
  ROOT t = (s32[], f32[4,3], f32[3,3]) tuple(next, updated, w)
}

ENTRY main {
  x0 = f32[4,3] parameter(0)
  w = f32[3,3] parameter(1)
  zero = s32[] constant(0)
  t = (s32[], f32[4,3], f32[3,3]) tuple(zero, x0, w)
  r = (s32[], f32[4,3], f32[3,3]) while(t), condition=cond, body=body
  x = f32[4,3] get-tuple-element(r), index=1
  xt = f32[3,4] transpose(x), dimensions={1,0}
  i = s32[] get-tuple-element(r), index=0
  ROOT out = (f32[3,4], f32[4,3], s32[]) tuple(xt, x, i)
}
)";

// A loop that adds the sum over the chains to every chain each iteration.
constexpr const char* kMixing =
    R"(HloModule mixing, entry_computation_layout={(f32[4,3]{1,0})->f32[4,3]{1,0}}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  p = (s32[], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(20)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (s32[], f32[4,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4,3] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  z = f32[] constant(0)
  total = f32[3] reduce(x, z), dimensions={0}, to_apply=add
  totals = f32[4,3] broadcast(total), dimensions={1}
  updated = f32[4,3] add(x, totals)
  ROOT t = (s32[], f32[4,3]) tuple(next, updated)
}

ENTRY main {
  x0 = f32[4,3] parameter(0)
  zero = s32[] constant(0)
  t = (s32[], f32[4,3]) tuple(zero, x0)
  r = (s32[], f32[4,3]) while(t), condition=cond, body=body
  ROOT x = f32[4,3] get-tuple-element(r), index=1
}
)";

TEST(BatchAnalysis, FindsTheChainsOfAVmappedLoop) {
  ir::Program p = load(kChains);
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  // The first output's leading dimension (3) is tried first: w has it too, and the dot contracts
  // it; the second output's (4) is the batch.
  EXPECT_EQ(m.chains, 4);
  EXPECT_EQ(m.inputDims, (std::vector<int>{0, -1}));
  EXPECT_EQ(m.outputDims, (std::vector<int>{1, 0, -1}));
}

TEST(BatchAnalysis, RefusesALoopThatMixesChains) {
  ir::Program p = load(kMixing);
  Mapping m = analyze(p);
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(m.reason.find("over 4 chains: reduce total (line 23) reduces over the batch dimension"),
            std::string::npos)
      << m.reason;
}

TEST(BatchAnalysis, NamesTheOpThatContractsTheBatch) {
  ir::Program p = load(R"(HloModule gram, entry_computation_layout={(f32[4,3]{1,0})->f32[4,4]{1,0}}

ENTRY main {
  x = f32[4,3] parameter(0)
  ROOT g = f32[4,4] dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
)");
  Mapping m = analyze(p);
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(m.reason.find("dot g (line 5) multiplies two batched operands across chains"),
            std::string::npos)
      << m.reason;
}

TEST(BatchAnalysis, TheSeedProgramVmappedOver1024Chains) {
  std::ifstream in(std::string(LF_SOURCE_DIR) + "/tests/programs/seed_vmap1024.hlo");
  std::stringstream text;
  text << in.rdbuf();
  ir::Program p = load(text.str());
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.chains, 1024);
  // The weights are shared; the keys are per chain; the trip count is shared.
  EXPECT_EQ(m.inputDims, (std::vector<int>{-1, -1, 0, -1}));
  // code_momentum and the keys per chain; the iteration count is the same for every chain.
  EXPECT_EQ(m.outputDims, (std::vector<int>{0, 0, -1}));
}

TEST(BatchGroupProgram, HasGroupRowsAndTheFirstChainArgument) {
  ir::Program p = load(kChains);
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped());
  auto g = groupProgram(p, m, 2);
  EXPECT_TRUE(ir::verify(*g).empty());
  ASSERT_EQ(g->body.args.size(), 3u);
  EXPECT_EQ(g->body.args[0]->type.toString(), "f32[2,3]");
  EXPECT_EQ(g->body.args[1]->type.toString(), "f32[3,3]");
  EXPECT_EQ(g->body.args[2]->type.toString(), "s32[]");
  EXPECT_EQ(g->body.yields[0]->type.toString(), "f32[3,2]");
  EXPECT_EQ(g->body.yields[1]->type.toString(), "f32[2,3]");
  EXPECT_EQ(g->body.yields[2]->type.toString(), "s32[]");
  // The shared iota is read at the group's rows.
  EXPECT_NE(ir::print(*g).find("dynamic-slice"), std::string::npos) << ir::print(*g);
  EXPECT_THROW(groupProgram(p, m, 3), std::logic_error);  // 3 does not divide 4
}

using lf::testing::ScopedEnv;
using Vars = ScopedEnv::Vars;

struct Layout {
  const char* batch;
  const char* group;  // "" : the default group size
  const char* threads;
  const char* expectExplain;
};

class BatchKernel : public ::testing::TestWithParam<Layout> {};

TEST_P(BatchKernel, ComputesEveryChainLikeTheLoopByHand) {
  const Layout& l = GetParam();
  ScopedEnv env(Vars{{"LOOPFUSE_BATCH", l.batch},
                     {"LOOPFUSE_BATCH_GROUP", l.group},
                     {"LOOPFUSE_CPU_THREADS", l.threads},
                     {"OMP_WAIT_POLICY", "passive"}});
  ir::Program p = load(kChains);
  codegen::EmittedKernel k = codegen::emit(p, Target::Cpu);
  EXPECT_NE(k.explain.find(l.expectExplain), std::string::npos) << k.explain;
  auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
  std::vector<float> x0(12), w(9);
  for (int i = 0; i < 12; ++i) x0[i] = 0.25f * static_cast<float>(i) - 1.0f;
  for (int i = 0; i < 9; ++i) w[i] = 0.125f * static_cast<float>(i % 5) - 0.2f;
  auto out = exe->run({testing::array<float>(DType::F32, {4, 3}, x0),
                       testing::array<float>(DType::F32, {3, 3}, w)});
  std::vector<float> xt = testing::values<float>(out.at(0));
  std::vector<float> x = testing::values<float>(out.at(1));
  EXPECT_EQ(testing::values<int32_t>(out.at(2)), std::vector<int32_t>{20});
  for (int b = 0; b < 4; ++b) {
    std::vector<float> row(x0.begin() + 3 * b, x0.begin() + 3 * b + 3);
    for (int it = 0; it < 20; ++it) {
      std::vector<float> next(3);
      for (int j = 0; j < 3; ++j) {
        float acc = 0.0f;
        for (int k2 = 0; k2 < 3; ++k2) acc += row[k2] * w[3 * k2 + j];
        next[j] = acc * 0.5f + static_cast<float>(b);
      }
      row = next;
    }
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(x[3 * b + j], row[j], 1e-5f * (1.0f + std::abs(row[j]))) << b << "," << j;
      EXPECT_EQ(xt[4 * j + b], x[3 * b + j]) << "transposed output, chain " << b;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, BatchKernel,
    ::testing::Values(Layout{"off", "", "1", "batch mapping: none: off"},
                      Layout{"auto", "1", "3", "4 groups of 1 chains shared out over 3 CPU"},
                      Layout{"auto", "2", "2", "2 groups of 2 chains shared out over 2 CPU"},
                      Layout{"on", "4", "1", "1 groups of 4 chains shared out over 1 CPU"}),
    [](const ::testing::TestParamInfo<Layout>& info) {
      return std::string(info.param.batch) + "_group" +
             (*info.param.group ? info.param.group : "default") + "_threads" + info.param.threads;
    });

// Gathers that mix nothing: each chain takes its own element of its own row (a batching dimension
// pair, what `jax.vmap(lambda x, i: x[i])` lowers to), and every chain's row at shared columns (the
// batch dimension is a whole offset dimension of each slice).
constexpr const char* kGathers =
    R"(HloModule gathers, entry_computation_layout={(f32[4,5]{1,0}, s32[4]{0}, s32[2]{0})->(f32[4]{0}, f32[4,2]{1,0})}

ENTRY main {
  x = f32[4,5] parameter(0)
  i = s32[4] parameter(1)
  cols = s32[2] parameter(2)
  own = s32[4,1] reshape(i)
  mine = f32[4] gather(x, own), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}
  shared = s32[2,1] reshape(cols)
  picked = f32[4,2] gather(x, shared), offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=1, slice_sizes={4,1}
  ROOT out = (f32[4], f32[4,2]) tuple(mine, picked)
}
)";

TEST(BatchAnalysis, GathersWithinEachChain) {
  ir::Program p = load(kGathers);
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.inputDims, (std::vector<int>{0, 0, -1}));
  EXPECT_EQ(m.outputDims, (std::vector<int>{0, 0}));
}

TEST(BatchKernel, GathersWithinEachChainGiveEachChainsElements) {
  for (const char* group : {"1", "2"}) {
    ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                       {"LOOPFUSE_BATCH_GROUP", group},
                       {"LOOPFUSE_CPU_THREADS", "2"},
                       {"OMP_WAIT_POLICY", "passive"}});
    ir::Program p = load(kGathers);
    codegen::EmittedKernel k = codegen::emit(p, Target::Cpu);
    ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos)
        << k.explain;
    auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
    std::vector<float> x(20);
    for (int j = 0; j < 20; ++j) x[j] = static_cast<float>(10 * (j / 5) + j % 5);
    // Out-of-range starts clamp, as in XLA: -3 reads column 0 and 9 column 4.
    std::vector<int32_t> own{2, -3, 9, 4}, cols{4, 1};
    auto out = exe->run({testing::array<float>(DType::F32, {4, 5}, x),
                         testing::array<int32_t>(DType::S32, {4}, own),
                         testing::array<int32_t>(DType::S32, {2}, cols)});
    EXPECT_EQ(testing::values<float>(out.at(0)), (std::vector<float>{2, 10, 24, 34})) << group;
    EXPECT_EQ(testing::values<float>(out.at(1)), (std::vector<float>{4, 1, 14, 11, 24, 21, 34, 31}))
        << group;
  }
}

// Scatters that mix nothing: each chain adds its own value at its own column of its own row (a
// batching dimension pair, what `jax.vmap(lambda x, i, v: x.at[i].add(v))` lowers to), and every
// chain's row written at a shared column (the batch is a whole window dimension).
constexpr const char* kScatters =
    R"(HloModule scatters, entry_computation_layout={(f32[4,5]{1,0}, s32[4]{0}, f32[4]{0}, f32[4]{0})->(f32[4,5]{1,0}, f32[4,5]{1,0})}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

assign {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}

ENTRY main {
  x = f32[4,5] parameter(0)
  i = s32[4] parameter(1)
  v = f32[4] parameter(2)
  column = f32[4] parameter(3)
  own = s32[4,1] reshape(i)
  added = f32[4,5] scatter(x, own, v), update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=1, to_apply=add
  two = s32[1] constant({2})
  col = f32[4,1] reshape(column)
  set = f32[4,5] scatter(x, two, col), update_window_dims={0,1}, inserted_window_dims={}, scatter_dims_to_operand_dims={1}, index_vector_dim=0, to_apply=assign
  ROOT out = (f32[4,5], f32[4,5]) tuple(added, set)
}
)";

TEST(BatchKernel, ScattersWithinEachChain) {
  ir::Program p = load(kScatters);
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.outputDims, (std::vector<int>{0, 0}));
  for (const char* group : {"1", "2"}) {
    ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"},
                       {"LOOPFUSE_BATCH_GROUP", group},
                       {"LOOPFUSE_CPU_THREADS", "2"},
                       {"OMP_WAIT_POLICY", "passive"}});
    codegen::EmittedKernel k = codegen::emit(load(kScatters), Target::Cpu);
    ASSERT_NE(k.explain.find("batch mapping: 4 independent chains"), std::string::npos)
        << k.explain;
    auto exe = runtime::Executable::compileCpu(k, testing::testCompileOptions());
    std::vector<float> x(20);
    for (int j = 0; j < 20; ++j) x[j] = static_cast<float>(10 * (j / 5) + j % 5);
    // An out-of-range index skips the update, as in XLA: chain 1's -3 and chain 2's 9.
    std::vector<int32_t> own{2, -3, 9, 4};
    std::vector<float> v{0.5f, 0.25f, 0.125f, 1.0f}, column{-1, -2, -3, -4};
    auto out = exe->run({testing::array<float>(DType::F32, {4, 5}, x),
                         testing::array<int32_t>(DType::S32, {4}, own),
                         testing::array<float>(DType::F32, {4}, v),
                         testing::array<float>(DType::F32, {4}, column)});
    std::vector<float> added = x, set = x;
    added[0 * 5 + 2] += 0.5f;
    added[3 * 5 + 4] += 1.0f;
    for (int b = 0; b < 4; ++b) set[b * 5 + 2] = column[b];
    EXPECT_EQ(testing::values<float>(out.at(0)), added) << group;
    EXPECT_EQ(testing::values<float>(out.at(1)), set) << group;
  }
}

TEST(BatchKernel, ExplainSaysWhyAProgramIsNotMapped) {
  ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "auto"}});
  ir::Program p = load(kMixing);
  codegen::EmittedKernel k = codegen::emit(p, Target::Cpu);
  EXPECT_NE(k.explain.find("batch mapping: none: over 4 chains: reduce total"), std::string::npos)
      << k.explain;
}

TEST(BatchKernel, CudaRunsOneThreadPerChain) {
  ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "auto"}});
  ir::Program p = load(kChains);
  codegen::EmittedKernel k = codegen::emit(p, Target::Cuda);
  EXPECT_EQ(k.cudaMode, "batch-thread");
  EXPECT_EQ(k.chains, 4);
  EXPECT_EQ(k.blockThreads, 32u);
  EXPECT_EQ(k.gridBlocks, 1u);
  EXPECT_NE(k.source.find("#define LF_THREAD_MODE 1"), std::string::npos);
  EXPECT_NE(k.source.find("if (lf_group >= 4) return;"), std::string::npos);
}

// Donation in a batch-mapped kernel: a group writes its rows of an output only after reading its
// rows of the inputs, so a batched input may lend its buffer to an output batched along the same
// (leading) dimension; a shared input is read by every group until the end, and a transposed
// output writes other groups' rows.
TEST(BatchKernel, AliasesOnlyRowsEachGroupOwns) {
  ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "auto"}});
  ir::Program p = load(kChains);
  codegen::EmittedKernel k = codegen::emit(p, Target::Cpu);
  ASSERT_GT(k.chains, 0);
  EXPECT_EQ(k.aliasSafeInputs, (std::vector<bool>{true, false}));
  EXPECT_EQ(k.aliasSafeOutputs, (std::vector<bool>{false, true, false}));
  EXPECT_TRUE(k.canAlias(0, 1));
  EXPECT_FALSE(k.canAlias(0, 0));  // f32[3,4] is not f32[4,3], and it is transposed
  EXPECT_FALSE(k.canAlias(1, 1));
}

TEST(BatchKernel, RejectsAGroupThatDoesNotDivideTheBatch) {
  ScopedEnv env(Vars{{"LOOPFUSE_BATCH", "on"}, {"LOOPFUSE_BATCH_GROUP", "3"}});
  ir::Program p = load(kChains);
  EXPECT_THROW(codegen::emit(p, Target::Cpu), std::invalid_argument);
}

}  // namespace
}  // namespace lf::batch
