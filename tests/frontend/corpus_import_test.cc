// Every corpus program (tests/programs/*.hlo, real JAX output) imports and passes ir::verify.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "frontend/import.h"

namespace lf::frontend {
namespace {

std::vector<std::filesystem::path> corpusFiles() {
  std::vector<std::filesystem::path> out;
  std::filesystem::path dir = std::filesystem::path(LF_SOURCE_DIR) / "tests" / "programs";
  if (!std::filesystem::exists(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".hlo") out.push_back(e.path());  // also matches *.cuda.hlo
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Programs whose only problem is an op loopfuse deliberately leaves to XLA: they must fail with
// exactly that report (and nothing else). Empty: every corpus program must import.
const std::map<std::string, std::string> kExpectedUnsupported = {};

TEST(CorpusImport, EveryProgramImportsAndVerifies) {
  std::vector<std::filesystem::path> files = corpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus yet";
  for (const auto& path : files) {
    SCOPED_TRACE(path.filename().string());
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    SourceFile file(path.string(), text.str());
    try {
      ir::Program p = importModule(hlo::parseModule(file));
      EXPECT_TRUE(ir::verify(p).empty());
      EXPECT_FALSE(p.body.yields.empty());
      EXPECT_FALSE(kExpectedUnsupported.count(path.filename().string())) << "now imports";
    } catch (const CompileError& e) {
      auto expected = kExpectedUnsupported.find(path.filename().string());
      bool onlyExpected = expected != kExpectedUnsupported.end();
      for (const Diagnostic& d : e.diagnostics()) {
        onlyExpected = onlyExpected && d.message.find(expected->second) == 0;
      }
      if (!onlyExpected) ADD_FAILURE() << file.format(e.diagnostics());
    }
  }
}

// A real JAX lowering with an op loopfuse does not support: reported with its location.
// (jax.random with the "rbg" implementation: rng-bit-generator, tests/tools/testdata.)
TEST(CorpusImport, RngBitGeneratorIsReportedUnsupported) {
  std::filesystem::path path = std::filesystem::path(LF_SOURCE_DIR) /
                               "tests/tools/testdata/unsupported_rng_bit_generator.hlo";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file(path.string(), text.str());
  try {
    importModule(hlo::parseModule(file));
    FAIL() << "rng-bit-generator imported";
  } catch (const CompileError& e) {
    ASSERT_EQ(e.diagnostics().size(), 1u);
    EXPECT_EQ(e.diagnostics()[0].message.rfind("unsupported op 'rng-bit-generator'", 0), 0u)
        << e.diagnostics()[0].message;
    EXPECT_TRUE(e.diagnostics()[0].loc.known());
  }
}

}  // namespace
}  // namespace lf::frontend
