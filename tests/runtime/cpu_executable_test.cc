// The CPU executable: concurrent runs of one executable each get their own scratch.
#include <thread>

#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

ir::Program doubledSum() { return doubledSumProgram(256); }

TEST(CpuExecutable, ConcurrentRunsDoNotShareScratch) {
  ir::Program program = doubledSum();
  auto exe = runtime::Executable::compileCpu(codegen::emit(program, codegen::Target::Cpu),
                                             testCompileOptions());
  constexpr int kThreads = 4;
  std::vector<int64_t> results(kThreads * 50, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 50; ++r) {
        std::vector<int64_t> x(256, t + 1);
        auto out = exe->run({array<int64_t>(DType::S64, {256}, x)});
        results[t * 50 + r] = values<int64_t>(out.at(0))[0];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    for (int r = 0; r < 50; ++r) EXPECT_EQ(results[t * 50 + r], 512 * (t + 1));
  }
}

TEST(CpuExecutable, RejectsAKernelForAnotherTarget) {
  ir::Program program = doubledSum();
  codegen::EmittedKernel cuda = codegen::emit(program, codegen::Target::Cuda);
  EXPECT_THROW(runtime::Executable::compileCpu(cuda, testCompileOptions()), std::invalid_argument);
}

}  // namespace
}  // namespace lf::testing
