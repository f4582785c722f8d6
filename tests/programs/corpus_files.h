// What the corpus tests share: where the programs are, which there are, and how one is read,
// imported and named.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "frontend/import.h"
#include "hlo/ast.h"
#include "passes/pipeline.h"
#include "ir/ir.h"
#include "support/diagnostic.h"

namespace lf::corpus {

namespace fs = std::filesystem;


inline fs::path corpusDir() { return fs::path(LF_SOURCE_DIR) / "tests" / "programs"; }

inline bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The HLO files of the corpus, sorted: with `cudaVariants`, NAME.cuda.hlo files too.
inline std::vector<std::string> corpusFiles(bool cudaVariants) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(corpusDir(), ec)) {
    const std::string file = entry.path().filename().string();
    if (!endsWith(file, ".hlo")) continue;
    if (endsWith(file, ".cuda.hlo") && !cudaVariants) continue;
    names.push_back(file);
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Parse, import and run the passes (lf::CompileError on bad or unsupported input).
inline ir::Program importFile(const SourceFile& file) {
  hlo::Module module = hlo::parseModule(file);
  ir::Program program = frontend::importModule(module);
  passes::runPasses(program);
  return program;
}

// The batch-mapped variants of the corpus runs (tests/CMakeLists.txt) set
// $LOOPFUSE_TEST_BATCHED_ONLY: a program the batch analysis leaves alone compiles there to the
// kernel the other runs already check, so it is skipped rather than compiled and run again.
inline bool batchedOnly() {
  const char* v = std::getenv("LOOPFUSE_TEST_BATCHED_ONLY");
  return v != nullptr && std::string(v) == "1";
}

inline std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 4);  // drop ".hlo"
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

}  // namespace lf::corpus
