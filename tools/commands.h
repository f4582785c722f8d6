// The subcommands of `loopfuse`, one file each; each returns the process exit code and reports
// user errors by throwing ToolError (see cli_common.h).
#pragma once

#include <string>

#include "codegen/emit.h"

namespace lf::tools {

int inspectCommand(const std::string& path);
int supportedOpsCommand();

int irCommand(const std::string& path, bool afterPasses);
int emitCommand(const std::string& path, codegen::Target target, bool emulated);
int explainCommand(const std::string& path, codegen::Target target);

struct RunOptions {
  std::string hloPath;
  std::string inputsPath;
  std::string outputsPath;   // empty: do not write the outputs
  std::string expectedPath;  // empty: the expected outputs are in the inputs file
  bool check = false;
  codegen::Target target = codegen::Target::Cpu;
  bool emulate = false;  // target cuda: run the CUDA kernel on the host (runtime/cuda_emulator.h)
  int repeat = 0;        // > 0: time that many further runs and report the median per call
  bool json = false;     // end with one JSON line: ok, compile time, cache hit, time per call
};
int runCommand(const RunOptions& options);

}  // namespace lf::tools
