// The host emulator of CUDA kernels (runtime/cuda_emulator.h): an emitted program in every CUDA
// mode and both thread orders; a kernel missing a barrier, which the two orders tell apart; and a
// barrier that not every thread reaches, which is an error.
#include "runtime/cuda_emulator.h"

#include <numeric>

#include "codegen/prelude_sources.h"
#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

ir::Program doubledSum() { return doubledSumProgram(1000); }

struct ModeCase {
  std::string mode, blockThreads;
  bool reverse;
};

class CudaEmulatorModes : public ::testing::TestWithParam<ModeCase> {};

TEST_P(CudaEmulatorModes, SumsLikeTheHandComputedValue) {
  const ModeCase& c = GetParam();
  ScopedEnv env(ScopedEnv::Vars{{"LOOPFUSE_CUDA_MODE", c.mode},
                                {"LOOPFUSE_CUDA_BLOCK_THREADS", c.blockThreads}});
  ir::Program program = doubledSum();
  codegen::EmittedKernel kernel = codegen::emit(program, codegen::Target::Cuda);
  EXPECT_EQ(kernel.cudaMode, c.mode);
  runtime::CudaEmulation emulation;
  emulation.reverse = c.reverse;
  auto exe = runtime::compileCudaEmulated(kernel, emulation, testCompileOptions());
  std::vector<int64_t> x(1000);
  std::iota(x.begin(), x.end(), -300);
  auto out = exe->run({array<int64_t>(DType::S64, {1000}, x)});
  EXPECT_EQ(values<int64_t>(out.at(0))[0], 2 * (999 * 1000 / 2 - 300 * 1000));
}

INSTANTIATE_TEST_SUITE_P(Modes, CudaEmulatorModes,
                         ::testing::Values(ModeCase{"thread", "", false},
                                           ModeCase{"block", "", false},
                                           ModeCase{"block", "96", true},
                                           ModeCase{"grid", "", false},
                                           ModeCase{"grid", "33", true}),
                         [](const ::testing::TestParamInfo<ModeCase>& info) {
                           return info.param.mode +
                                  (info.param.blockThreads.empty() ? "" : info.param.blockThreads) +
                                  (info.param.reverse ? "Reverse" : "Forward");
                         });

// A block-mode kernel written by hand: each thread writes its element of a scratch array, then
// reads its right neighbour's (with or without a barrier between).
codegen::EmittedKernel neighbourKernel(const std::string& between) {
  codegen::EmittedKernel k;
  k.target = codegen::Target::Cuda;
  k.entryName = "neighbour";
  k.inputs = {type(DType::S32, {64})};
  k.outputs = {type(DType::S32, {64})};
  k.cudaMode = "block";
  k.blockThreads = 64;
  k.scratchBytes = 64 * 4;
  k.source = codegen::preludeText("lf_cuda.h") + R"(
extern "C" __global__ void neighbour(LfKernelArgs args) {
  const int* in = (const int*)args.in[0];
  int* out = (int*)args.out[0];
  int* shared = (int*)args.scratch;
  shared[LF_TID] = in[LF_TID];
  )" + between +
             R"(
  out[LF_TID] = shared[(LF_TID + 1) % LF_NTHREADS];
}
)";
  return k;
}

std::vector<int32_t> runNeighbour(const std::string& between, bool reverse) {
  runtime::CudaEmulation emulation;
  emulation.reverse = reverse;
  auto exe =
      runtime::compileCudaEmulated(neighbourKernel(between), emulation, testCompileOptions());
  std::vector<int32_t> x(64);
  std::iota(x.begin(), x.end(), 100);
  return values<int32_t>(exe->run({array<int32_t>(DType::S32, {64}, x)}).at(0));
}

TEST(CudaEmulator, TheTwoOrdersDisagreeWhereABarrierIsMissing) {
  std::vector<int32_t> rotated(64);
  for (int i = 0; i < 64; ++i) rotated[i] = 100 + (i + 1) % 64;
  EXPECT_EQ(runNeighbour("LF_BARRIER();", false), rotated);
  EXPECT_EQ(runNeighbour("LF_BARRIER();", true), rotated);
  // Without the barrier, first to last reads neighbours not yet written (the scratch is zeroed);
  // last to first reads them written.
  std::vector<int32_t> forward = runNeighbour("", false);
  EXPECT_EQ(forward[0], 0);
  EXPECT_EQ(forward[63], 100);
  EXPECT_NE(forward, runNeighbour("", true));
}

TEST(CudaEmulator, ABarrierNotEveryThreadReachesIsAnError) {
  try {
    runNeighbour("if (LF_TID == 5) return; LF_BARRIER();", false);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("some threads ended while others wait at a barrier"),
              std::string::npos)
        << e.what();
  }
}

TEST(CudaEmulator, RejectsACpuKernel) {
  ir::Program program = doubledSum();
  EXPECT_THROW(runtime::compileCudaEmulated(codegen::emit(program, codegen::Target::Cpu), {},
                                            testCompileOptions()),
               std::invalid_argument);
}

TEST(CudaEmulator, ReadsItsSettingsFromTheEnvironment) {
  {
    ScopedEnv env(ScopedEnv::Vars{{"LOOPFUSE_CUDA_EMU_ORDER", "reverse"},
                                  {"LOOPFUSE_CUDA_EMU_GRID_BLOCKS", "5"}});
    runtime::CudaEmulation e = runtime::cudaEmulationFromEnvironment();
    EXPECT_TRUE(e.reverse);
    EXPECT_EQ(e.gridBlocks, 5u);
  }
  ScopedEnv bad(ScopedEnv::Vars{{"LOOPFUSE_CUDA_EMU_ORDER", "sideways"}});
  EXPECT_THROW(runtime::cudaEmulationFromEnvironment(), std::invalid_argument);
}

}  // namespace
}  // namespace lf::testing
