// Helpers for the frontend tests: parse HLO text and import it, or collect the error text.
#pragma once

#include <string>

#include "frontend/import.h"

namespace lf::frontend::testing {

// Parses and imports `hlo`; returns the printed IR.
inline std::string importText(const std::string& hlo) {
  SourceFile file("test.hlo", hlo);
  return ir::print(importModule(hlo::parseModule(file)));
}

// Parses and imports `hlo`, which must fail; returns the formatted diagnostics.
inline std::string importError(const std::string& hlo) {
  SourceFile file("test.hlo", hlo);
  try {
    importModule(hlo::parseModule(file));
  } catch (const CompileError& e) {
    return file.format(e.diagnostics());
  }
  return "<no error>";
}

}  // namespace lf::frontend::testing
