// Helpers shared by the parser tests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "hlo/ast.h"

namespace lf::hlo::testing {

inline Module parseText(const std::string& text) {
  return parseModule(SourceFile("test.hlo", text));
}

// The first line of the formatted error ("test.hlo:L:C: error: ..."), or "" if it parsed.
inline std::string firstErrorLine(const std::string& text, const std::string& path = "test.hlo") {
  SourceFile file(path, text);
  try {
    parseModule(file);
  } catch (const CompileError& e) {
    EXPECT_EQ(e.diagnostics().size(), 1u);
    std::string formatted = file.format(e.diagnostics());
    return formatted.substr(0, formatted.find('\n'));
  }
  return "";
}

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string locString(SourceLoc loc) {
  return std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

}  // namespace lf::hlo::testing
