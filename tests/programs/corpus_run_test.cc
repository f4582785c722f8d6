// Every corpus program (tests/programs/NAME.hlo with NAME.npz, written by generate.py from JAX)
// through the whole pipeline: parse, import, passes, emit for the CPU, build, run with JAX's
// inputs, and compare with JAX's outputs using the tolerances of runtime/tolerance.h (integers
// bit-exact). The programs are listed at run time, so a new corpus file needs no edit here. A
// summary of what failed and why is printed at the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

#include "codegen/emit.h"
#include "corpus_files.h"
#include "runtime/cuda_emulator.h"
#include "runtime/executable.h"
#include "runtime/npz.h"
#include "runtime/nvrtc.h"
#include "runtime/report.h"
#include "runtime/tolerance.h"

namespace lf {
namespace {

using namespace corpus;  // NOLINT(google-build-using-namespace): the shared helpers

// The failures of the whole run, printed once at the end so that the team sees them together.
class FailureLog : public ::testing::Environment {
 public:
  static FailureLog& instance() {
    static FailureLog* log = new FailureLog;  // owned by gtest after AddGlobalTestEnvironment
    return *log;
  }
  void record(const std::string& suite, const std::string& program, const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    failures_[suite].push_back(program + ": " + why);
  }
  void pass(const std::string& suite) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++passes_[suite];
  }
  void TearDown() override {
    for (const std::string suite : {"cpu", "cuda-emulated", "cuda-ptx"}) {
      const size_t failed = failures_[suite].size();
      if (failed + passes_[suite] == 0) continue;
      std::cout << "[corpus " << suite << "] " << passes_[suite] << " passed, " << failed
                << " failed\n";
      for (const std::string& line : failures_[suite]) std::cout << "  FAIL " << line << "\n";
    }
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::vector<std::string>> failures_;
  std::map<std::string, int> passes_;
};

const bool kLogRegistered = (::testing::AddGlobalTestEnvironment(&FailureLog::instance()), true);

// First line of a (possibly long, multi-line) message, for the summary.
std::string firstLine(const std::string& s) {
  const size_t end = s.find('\n');
  return end == std::string::npos ? s : s.substr(0, end);
}

// The program of `file` (NAME.hlo or NAME.cuda.hlo) emitted for `target`, built by `build`, run
// with NAME.npz's inputs and compared with its outputs; failures are logged under `suite`.
void checkAgainstJax(
    const std::string& suite, const std::string& file, codegen::Target target,
    const std::function<std::unique_ptr<runtime::Executable>(const codegen::EmittedKernel&)>&
        build) {
  const std::string program = file.substr(0, file.size() - (endsWith(file, ".cuda.hlo") ? 9 : 4));
  const fs::path hloPath = corpusDir() / file;
  const fs::path npzPath = corpusDir() / (program + ".npz");
  auto fail = [&](const std::string& stage, const std::string& why) {
    FailureLog::instance().record(suite, file, stage + ": " + firstLine(why));
    FAIL() << file << ": " << stage << ":\n" << why;
  };
  if (!fs::exists(npzPath)) GTEST_SKIP() << "no " << npzPath;

  const SourceFile source(hloPath.string(), readFile(hloPath));
  codegen::EmittedKernel kernel;
  try {
    ir::Program ir = importFile(source);
    kernel = codegen::emit(ir, target);
  } catch (const CompileError& e) {
    return fail("compile", source.format(e.diagnostics()));
  } catch (const std::exception& e) {
    return fail("compile (internal)", e.what());
  }
  if (batchedOnly() && kernel.chains == 0) GTEST_SKIP() << file << " is not batch-mapped";

  std::vector<runtime::HostArray> outputs, expected;
  try {
    runtime::NamedArrays arrays = runtime::readNpz(npzPath.string());
    std::vector<runtime::HostArray> inputs =
        runtime::numberedArrays(arrays, "input_", npzPath.string());
    expected = runtime::numberedArrays(arrays, "output_", npzPath.string());
    outputs = build(kernel)->run(inputs);
  } catch (const std::exception& e) {
    return fail("build or run", e.what());
  }
  if (outputs.size() != expected.size())
    return fail("outputs", std::to_string(outputs.size()) + " outputs, JAX has " +
                               std::to_string(expected.size()));
  std::string mismatches;
  for (size_t i = 0; i < outputs.size(); ++i) {
    runtime::ArrayComparison c = runtime::compareArrays(outputs[i], expected[i]);
    if (c.ok()) continue;
    std::ostringstream why;
    why << "output_" << i << " " << outputs[i].type.toString() << ": ";
    if (!c.error.empty()) {
      why << c.error;
    } else {
      const int64_t around = std::max<int64_t>(0, c.firstMismatch - 2);
      why << c.mismatches << " of " << outputs[i].type.numElements()
          << " elements differ, first at index " << c.firstMismatch << " (got " << c.firstActual
          << ", JAX " << c.firstExpected << "), max abs err " << c.maxAbsError << ", max rel err "
          << c.maxRelError << "; from index " << around << ": got "
          << runtime::formatArray(outputs[i], 6, around) << ", JAX "
          << runtime::formatArray(expected[i], 6, around);
    }
    mismatches += why.str() + "\n";
  }
  if (!mismatches.empty()) return fail("mismatch", mismatches);
  FailureLog::instance().pass(suite);
}

class CorpusCpu : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusCpu, MatchesJax) {
  checkAgainstJax("cpu", GetParam(), codegen::Target::Cpu, [](const codegen::EmittedKernel& k) {
    return runtime::Executable::compileCpu(k);
  });
}

INSTANTIATE_TEST_SUITE_P(Programs, CorpusCpu, ::testing::ValuesIn(corpusFiles(false)), testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusCpu);

// The CUDA kernel of every .hlo and .cuda.hlo, run on the host by the emulator (every CUDA thread a
// fiber, the GPU's launch geometry): the CUDA plan's storage, splits and barriers checked against
// JAX without a GPU. $LOOPFUSE_CUDA_EMU_ORDER=reverse runs threads last to first between barriers.
class CorpusCudaEmulated : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusCudaEmulated, MatchesJax) {
  checkAgainstJax("cuda-emulated", GetParam(), codegen::Target::Cuda,
                  [](const codegen::EmittedKernel& k) {
                    return runtime::compileCudaEmulated(k, runtime::cudaEmulationFromEnvironment());
                  });
}

INSTANTIATE_TEST_SUITE_P(Programs, CorpusCudaEmulated, ::testing::ValuesIn(corpusFiles(true)),
                         testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusCudaEmulated);

// Every .hlo and .cuda.hlo must emit CUDA source that NVRTC compiles to PTX with no message at all
// (a warning in generated code is a bug too). Needs no GPU, only libnvrtc.
class CorpusCudaPtx : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusCudaPtx, CompilesWithNvrtc) {
  if (!runtime::nvrtcAvailable()) GTEST_SKIP() << "NVRTC not found";
  const std::string file = GetParam();
  const fs::path hloPath = corpusDir() / file;
  auto fail = [&](const std::string& stage, const std::string& why) {
    FailureLog::instance().record("cuda-ptx", file, stage + ": " + firstLine(why));
    FAIL() << file << ": " << stage << ":\n" << why;
  };
  const SourceFile source(hloPath.string(), readFile(hloPath));
  codegen::EmittedKernel kernel;
  try {
    ir::Program ir = importFile(source);
    kernel = codegen::emit(ir, codegen::Target::Cuda);
  } catch (const CompileError& e) {
    return fail("compile", source.format(e.diagnostics()));
  } catch (const std::exception& e) {
    return fail("compile (internal)", e.what());
  }
  if (batchedOnly() && kernel.chains == 0) GTEST_SKIP() << file << " is not batch-mapped";
  runtime::NvrtcOutput ptx = runtime::compileCudaToPtx(kernel.source, "compute_90");
  if (!ptx.ok) return fail("nvrtc", ptx.log);
  if (!ptx.log.empty()) return fail("nvrtc warnings", ptx.log);
  EXPECT_FALSE(ptx.ptx.empty());
  FailureLog::instance().pass("cuda-ptx");
}

INSTANTIATE_TEST_SUITE_P(Programs, CorpusCudaPtx, ::testing::ValuesIn(corpusFiles(true)), testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusCudaPtx);

}  // namespace
}  // namespace lf
