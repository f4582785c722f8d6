// What every `loopfuse` subcommand shares: exit codes, the error type that carries one, and
// loading an HLO file through the parser and the importer with diagnostics formatted for the user.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "codegen/emit.h"
#include "hlo/ast.h"
#include "ir/ir.h"
#include "support/diagnostic.h"

namespace lf::tools {

// Exit codes of the `loopfuse` command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitMismatch = 1;     // run --check: an output is outside the tolerance
inline constexpr int kExitUnsupported = 1;  // inspect: the program uses unsupported ops; run: the
                                            // run reached a host callback
inline constexpr int kExitUserError = 2;    // unreadable or malformed input, wrong inputs
inline constexpr int kExitInternal = 3;     // a bug in loopfuse

// An error already worded for the user (diagnostics included), with the exit code to return.
class ToolError : public std::runtime_error {
 public:
  ToolError(const std::string& message, int exitCode)
      : std::runtime_error(message), exitCode_(exitCode) {}
  int exitCode() const { return exitCode_; }

 private:
  int exitCode_;
};

// Reads a whole file; ToolError naming the path when it cannot be read.
std::string readTextFile(const std::string& path);

// The HLO file, kept alive for as long as diagnostics may quote it.
struct LoadedHlo {
  std::unique_ptr<SourceFile> file;
  hlo::Module module;
};

// Reads and parses; a syntax error becomes a ToolError with `file:line:col: error: ...`.
LoadedHlo loadHlo(const std::string& path);

// Runs `step`, turning an lf::CompileError into a ToolError formatted against `file`.
template <class Step>
auto withDiagnostics(const SourceFile& file, Step step, int exitCode = kExitUserError) {
  try {
    return step();
  } catch (const CompileError& e) {
    throw ToolError(file.format(e.diagnostics()), exitCode);
  }
}

// The whole pipeline: parse, import, the IR passes, plan and emit for `target`.
codegen::EmittedKernel emitHlo(const std::string& path, codegen::Target target);

}  // namespace lf::tools
