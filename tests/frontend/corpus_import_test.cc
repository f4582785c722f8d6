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
// jax.random with impl="rbg" (the testdata file is jax 0.11's lowering of a uniform draw): the
// rng-bit-generator expands into elementwise ops, so no custom op is left.
TEST(CorpusImport, RngBitGeneratorExpandsIntoElementwiseOps) {
  std::filesystem::path path =
      std::filesystem::path(LF_SOURCE_DIR) / "tests/tools/testdata/rng_bit_generator_uniform.hlo";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file(path.string(), text.str());
  const std::string ir = ir::print(importModule(hlo::parseModule(file)));
  EXPECT_EQ(ir.find("rng"), std::string::npos) << ir;
  EXPECT_NE(ir.find("multiply("), std::string::npos) << ir;  // Philox's rounds
}

std::string rngImportError(const std::string& state, const std::string& algorithm) {
  const std::string hlo = "HloModule m\nENTRY main {\n  s = " + state +
                          " parameter(0)\n  ROOT r = (" + state +
                          ", u32[3]) rng-bit-generator(s), algorithm=" + algorithm + "\n}\n";
  SourceFile file("test.hlo", hlo);
  try {
    importModule(hlo::parseModule(file));
  } catch (const CompileError& e) {
    return file.format(e.diagnostics());
  }
  return "<no error>";
}

TEST(CorpusImport, RngBitGeneratorErrors) {
  std::string e = rngImportError("u64[2]", "rng_mystery");
  EXPECT_NE(e.find("test.hlo:4:61: error: unknown rng-bit-generator algorithm 'rng_mystery'"),
            std::string::npos)
      << e;
  e = rngImportError("u64[3]", "rng_philox");
  EXPECT_NE(e.find("test.hlo:4:"), std::string::npos) << e;
  EXPECT_NE(e.find("rng-bit-generator state must be u64[2]"), std::string::npos) << e;
  e = rngImportError("u32[4]", "rng_default");
  EXPECT_NE(e.find("state must be u64[2] (as JAX makes it from a u32[4] key), got u32[4]"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace lf::frontend
