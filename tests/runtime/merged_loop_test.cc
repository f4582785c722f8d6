// Loop merging (codegen/emit_merge.cc): consecutive elementwise stages share one loop when each
// reads the others' results at its own index, and a stage that reads one at another index does
// not join. Checked on the values (CPU, and the CUDA kernel in the emulator with its threads run
// last to first, where a left-out barrier reads stale data) and on the emitted text.
#include <gtest/gtest.h>

#include "codegen/emit.h"
#include "frontend/import.h"
#include "hlo/ast.h"
#include "runtime/cpu_program_builder.h"
#include "runtime/cuda_emulator.h"

namespace lf::testing {
namespace {

// a = 2x, b = a * a, c = b - a: one chain, each value read twice, so each a stage of its own
// before merging. d = reverse(c) + c reads c at 63 - i: it must wait for every thread's c.
// e = d * d makes d a stage (not fused into the output copy).
constexpr const char* kChain =
    R"(HloModule chain, entry_computation_layout={(f32[64]{0})->(f32[64]{0}, f32[64]{0}, f32[64]{0})}

ENTRY main.1 {
  x.1 = f32[64]{0} parameter(0)
  a.2 = f32[64]{0} add(x.1, x.1)
  b.3 = f32[64]{0} multiply(a.2, a.2)
  c.4 = f32[64]{0} subtract(b.3, a.2)
  r.5 = f32[64]{0} reverse(c.4), dimensions={0}
  d.6 = f32[64]{0} add(r.5, c.4)
  e.7 = f32[64]{0} multiply(d.6, d.6)
  ROOT t.8 = (f32[64]{0}, f32[64]{0}, f32[64]{0}) tuple(d.6, b.3, e.7)
}
)";

ir::Program chain() {
  return frontend::importModule(hlo::parseModule(SourceFile("chain.hlo", kChain)));
}

std::vector<float> inputValues() {
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = 0.5f * static_cast<float>(i - 20);  // exact in f32
  return x;
}

// Worked out by hand: every product and sum here is exact in f32.
void expectHandValues(const std::vector<runtime::HostArray>& out) {
  const std::vector<float> x = inputValues();
  auto c = [&](int i) { return 4 * x[i] * x[i] - 2 * x[i]; };
  std::vector<float> d = values<float>(out.at(0)), b = values<float>(out.at(1));
  std::vector<float> e = values<float>(out.at(2));
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(b[i], 4 * x[i] * x[i]) << "b[" << i << "]";
    EXPECT_EQ(d[i], c(63 - i) + c(i)) << "d[" << i << "]";
    EXPECT_EQ(e[i], d[i] * d[i]) << "e[" << i << "]";
  }
}

TEST(MergedLoop, ChainSharesOneLoopAndTheReverseWaits) {
  ScopedEnv env(ScopedEnv::Vars{{"LOOPFUSE_MERGE_STAGES", "1"}});  // off by default on the CPU
  codegen::EmittedKernel k = codegen::emit(chain(), codegen::Target::Cpu);
  // a, b and c in one loop; d (a gather of c) in its own after a barrier.
  EXPECT_NE(k.source.find("// b.3 (multiply"), std::string::npos);
  const size_t loopA = k.source.find("// a.2 (add");
  const size_t loopD = k.source.find("// d.6 (add");
  ASSERT_NE(loopA, std::string::npos);
  ASSERT_NE(loopD, std::string::npos);
  const std::string merged = k.source.substr(loopA, loopD - loopA);
  EXPECT_EQ(merged.find("for ("), std::string::npos) << merged;  // no loop between a and d
  EXPECT_NE(merged.find("LF_BARRIER()"), std::string::npos) << merged;
  // a is read only by b and c, through its local: no store, no buffer.
  EXPECT_EQ(k.source.find("v_a_2["), std::string::npos) << merged;
  EXPECT_NE(merged.find("v_b_3[i] = "), std::string::npos) << merged;
  EXPECT_NE(k.explain.find("one loop: a.2 b.3 c.4\n"), std::string::npos) << k.explain;
  expectHandValues(runCpu(chain(), {array<float>(DType::F32, {64}, inputValues())}));
}

TEST(MergedLoop, OnForCudaOffForTheCpuUnlessTheEnvironmentSays) {
  EXPECT_NE(codegen::emit(chain(), codegen::Target::Cpu).source.find("v_a_2[i] = "),
            std::string::npos);
  EXPECT_NE(codegen::emit(chain(), codegen::Target::Cuda).explain.find("one loop: a.2 b.3 c.4"),
            std::string::npos);
  ScopedEnv env(ScopedEnv::Vars{{"LOOPFUSE_MERGE_STAGES", "0"}});
  codegen::EmittedKernel k = codegen::emit(chain(), codegen::Target::Cuda);
  EXPECT_NE(k.source.find("v_a_2[i] = "), std::string::npos);
  EXPECT_EQ(k.explain.find("loop merging"), std::string::npos);
  expectHandValues(runCpu(chain(), {array<float>(DType::F32, {64}, inputValues())}));
}

// On CUDA (merging on by default) the reverse joins no loop either; run the block and grid kernels
// with their threads in reverse order, where a missing barrier between c and d would read c before
// it is written.
TEST(MergedLoop, CudaKernelInTheEmulatorInReverseOrder) {
  for (const char* mode : {"block", "grid"}) {
    ScopedEnv env(
        ScopedEnv::Vars{{"LOOPFUSE_CUDA_MODE", mode}, {"LOOPFUSE_CUDA_BLOCK_THREADS", "32"}});
    codegen::EmittedKernel k = codegen::emit(chain(), codegen::Target::Cuda);
    runtime::CudaEmulation emulation;
    emulation.reverse = true;
    auto exe = runtime::compileCudaEmulated(k, emulation, testCompileOptions());
    expectHandValues(exe->run({array<float>(DType::F32, {64}, inputValues())}));
  }
}

}  // namespace
}  // namespace lf::testing
