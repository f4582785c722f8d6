// Helpers for the pass tests: HLO text in, one pass, the verified and printed IR out.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "frontend/import.h"
#include "passes/dce.h"

namespace lf::passes::testing {

inline ir::Program importHlo(const std::string& hlo) {
  SourceFile file("test.hlo", hlo);
  return frontend::importModule(hlo::parseModule(file));
}

// Every diagnostic of the verifier, one a line; empty for a valid program.
inline std::string verifierErrors(const ir::Program& program) {
  std::string out;
  for (const Diagnostic& d : ir::verify(program)) out += d.message + "\n";
  return out;
}

// Imports `hlo`, runs `pass` and then DCE (so that the printed IR shows what the pass changed,
// not the operands it left unused), verifying the IR after each; returns the printed IR.
template <class Pass>
std::string afterPass(const std::string& hlo, Pass pass) {
  ir::Program program = importHlo(hlo);
  pass(program);
  EXPECT_EQ(verifierErrors(program), "") << ir::print(program);
  eliminateDeadCode(program);
  EXPECT_EQ(verifierErrors(program), "") << ir::print(program);
  return ir::print(program);
}

}  // namespace lf::passes::testing
