// Machine code that a known GPU code generator bug produces must not appear in our kernels.
//
// NVRTC 13.0's ptxas, fully unrolling a dynamic-update-slice's select loop, took
// `clamp(start, 0, hi) == hi` from the predicate output of a min/max (`VIMNMX.RELU R0, P3, P3, R4,
// 0x5`), which an H200 sets otherwise: shapes_dynamic_update_slice wrote its last row too
// (docs/gpu-runs/README.md). The emitter keeps that loop rolled (LF_NO_UNROLL, lf_cuda.h). This
// test compiles the CUBIN (sm_90) of every corpus program with a dynamic-update-slice and
// disassembles it with nvdisasm (PyPI's nvidia-cuda-nvdisasm, installed into .venv by
// scripts/setup.sh; or $LOOPFUSE_NVDISASM, or the toolkit's): no min/max may write a predicate.
// Skipped when NVRTC or nvdisasm is missing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/emit.h"
#include "frontend/import.h"
#include "hlo/ast.h"
#include "hlo/parse_helpers.h"
#include "passes/pipeline.h"
#include "runtime/nvrtc.h"

namespace lf::runtime {
namespace {

namespace fs = std::filesystem;

const fs::path& programsDir() {
  static const fs::path dir = fs::path(LF_SOURCE_DIR) / "tests" / "programs";
  return dir;
}

// nvdisasm: $LOOPFUSE_NVDISASM, the project's .venv (any python3.x, CUDA 12 or 13 wheel), the
// toolkit; empty when none.
std::string findNvdisasm() {
  if (const char* env = std::getenv("LOOPFUSE_NVDISASM"); env && *env) return env;
  const fs::path lib = fs::path(LF_SOURCE_DIR) / ".venv" / "lib";
  std::error_code ec;
  for (const auto& python : fs::directory_iterator(lib, ec)) {
    const fs::path nvidia = python.path() / "site-packages" / "nvidia";
    for (const auto& cuda : fs::directory_iterator(nvidia, ec)) {
      const fs::path candidate = cuda.path() / "bin" / "nvdisasm";
      if (fs::exists(candidate)) return candidate.string();
    }
  }
  for (const char* candidate : {"/usr/local/cuda/bin/nvdisasm"}) {
    if (fs::exists(candidate)) return candidate;
  }
  return "";
}

std::string run(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::string out;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0) out.append(buffer.data(), n);
  return out;
}

// Each SASS line whose min/max writes a predicate (a P register right after the destination).
std::vector<std::string> predicatedMinMax(const std::string& sass) {
  static const std::regex pattern(R"([A-Z0-9]*MNMX[.A-Z0-9]* R[0-9]+, !?P[0-6])");
  std::vector<std::string> found;
  std::istringstream lines(sass);
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, pattern)) found.push_back(line);
  }
  return found;
}

std::vector<std::string> programsWithAnUpdateSlice() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(programsDir())) {
    if (entry.path().extension() != ".hlo") continue;
    if (hlo::testing::readFile(entry.path().string()).find("dynamic-update-slice(") !=
        std::string::npos)
      names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(SassGuard, TheBugsPatternIsFoundInAHandWrittenKernel) {
  // The check itself: the instruction form as nvdisasm prints it, and lines it must not flag.
  EXPECT_EQ(predicatedMinMax("        /*8d40*/   VIMNMX.RELU R0, P3, P3, R4, 0x5, PT ;\n").size(),
            1u);
  EXPECT_TRUE(predicatedMinMax("  VIMNMX.RELU R5, R4.reuse, 0x4, PT ;\n  @P3 STG.E [R2], R9 ;\n"
                               "  ISETP.NE.AND P2, PT, R0, 0x1, PT ;\n")
                  .empty());
}

TEST(SassGuard, NoCorpusUpdateSliceKernelHasAPredicatedMinMax) {
  if (!nvrtcAvailable()) GTEST_SKIP() << "NVRTC not found";
  const std::string nvdisasm = findNvdisasm();
  if (nvdisasm.empty())
    GTEST_SKIP() << "nvdisasm not found (pip install nvidia-cuda-nvdisasm, or LOOPFUSE_NVDISASM)";
  const std::vector<std::string> names = programsWithAnUpdateSlice();
  ASSERT_GE(names.size(), 20u) << "the corpus's dynamic-update-slice programs went missing";
  const fs::path cubinPath =
      fs::temp_directory_path() / ("lf_sass_guard_" + std::to_string(getpid()) + ".cubin");
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const fs::path path = programsDir() / name;
    ir::Program program = frontend::importModule(
        hlo::parseModule(SourceFile(path.string(), hlo::testing::readFile(path.string()))));
    passes::runPasses(program);
    const codegen::EmittedKernel kernel = codegen::emit(program, codegen::Target::Cuda);
    const NvrtcOutput out = compileCudaToCubin(kernel.source, "sm_90");
    ASSERT_TRUE(out.ok) << out.log;
    std::ofstream(cubinPath, std::ios::binary) << out.cubin;
    const std::string sass = run("'" + nvdisasm + "' '" + cubinPath.string() + "' 2>&1");
    ASSERT_NE(sass.find("EXIT"), std::string::npos) << "no SASS: did nvdisasm run?\n"
                                                    << sass.substr(0, 500);
    const std::vector<std::string> found = predicatedMinMax(sass);
    EXPECT_TRUE(found.empty()) << found.size() << " predicated min/max, first: " << found.front();
  }
  fs::remove(cubinPath);
}

}  // namespace
}  // namespace lf::runtime
