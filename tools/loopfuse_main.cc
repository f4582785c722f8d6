// The `loopfuse` command line: parses the arguments (CLI11), runs one subcommand, and turns every
// error into a message on stderr and an exit code (see cli_common.h); nothing a user passes may
// crash it.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "cli_common.h"
#include "commands.h"
#include "runtime/npz.h"

#ifndef LOOPFUSE_VERSION
#define LOOPFUSE_VERSION "(version not set by the build)"
#endif

namespace {

using lf::codegen::Target;

const std::map<std::string, Target> kTargets = {{"cpu", Target::Cpu}, {"cuda", Target::Cuda}};

void printError(const std::string& message) {
  std::cerr << message;
  if (message.empty() || message.back() != '\n') std::cerr << '\n';
}

int runApp(int argc, char** argv) {
  CLI::App app{"loopfuse: compiles a JAX program (XLA HLO text), loops included, into one kernel"};
  app.require_subcommand(1);
  bool dumpAfterAll = false;
  app.add_flag("--dump-after-all", dumpAfterAll,
               "print the IR after every pass to stderr (same as LOOPFUSE_DUMP=after-all)");

  std::string path;
  Target target = Target::Cpu;
  bool afterPasses = false;
  lf::tools::RunOptions run;

  CLI::App* inspect = app.add_subcommand(
      "inspect", "signature, computations, op counts, loops and unsupported ops of an HLO file");
  inspect->add_option("file", path, "HLO text file")->required();

  CLI::App* ir = app.add_subcommand("ir", "print the imported program IR");
  ir->add_option("file", path, "HLO text file")->required();
  ir->add_flag("--after-passes", afterPasses, "run the IR passes first");

  CLI::App* emit = app.add_subcommand("emit", "print the generated source");
  emit->add_option("file", path, "HLO text file")->required();
  emit->add_option("--target", target, "cpu or cuda")
      ->required()
      ->transform(CLI::CheckedTransformer(kTargets, CLI::ignore_case));
  bool emitEmulated = false;
  emit->add_flag("--emulate", emitEmulated,
                 "with --target cuda: print the host C++ that `run --emulate` builds instead");

  CLI::App* explain = app.add_subcommand("explain", "explain how the program will run");
  explain->add_option("file", path, "HLO text file")->required();
  explain->add_option("--target", target, "cpu (default) or cuda")
      ->transform(CLI::CheckedTransformer(kTargets, CLI::ignore_case));

  CLI::App* runApp = app.add_subcommand("run", "compile and run with .npz inputs");
  runApp->add_option("file", run.hloPath, "HLO text file")->required();
  runApp->add_option("--inputs", run.inputsPath, "input_0, input_1, ... (.npz)")->required();
  runApp->add_option("--outputs", run.outputsPath, "write output_0, output_1, ... here (.npz)");
  runApp->add_flag("--check", run.check, "compare with output_0, ... (exit 1 on a mismatch)");
  runApp->add_option("--expected", run.expectedPath, "expected outputs (default: the inputs file)");
  runApp->add_option("--target", run.target, "cpu (default) or cuda")
      ->transform(CLI::CheckedTransformer(kTargets, CLI::ignore_case));
  runApp->add_flag("--emulate", run.emulate,
                   "with --target cuda: run the CUDA kernel on this machine's CPU, each GPU thread "
                   "a fiber (checks the CUDA plan without a GPU)");
  runApp->add_option("--repeat", run.repeat, "time N more runs; report the median per call")
      ->check(CLI::Range(0, 1000000));
  runApp->add_flag("--json", run.json, "end with a one-line JSON summary");

  CLI::App* version = app.add_subcommand("version", "print the version");
  CLI::App* supportedOps =
      app.add_subcommand("supported-ops", "print docs/SUPPORTED_OPS.md (the supported HLO ops)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return lf::tools::kExitUserError;
  }

  if (dumpAfterAll) setenv("LOOPFUSE_DUMP", "after-all", 1);
  if (*inspect) return lf::tools::inspectCommand(path);
  if (*ir) return lf::tools::irCommand(path, afterPasses);
  if (*emit) return lf::tools::emitCommand(path, target, emitEmulated);
  if (*explain) return lf::tools::explainCommand(path, target);
  if (*runApp) return lf::tools::runCommand(run);
  if (*supportedOps) return lf::tools::supportedOpsCommand();
  if (*version) {
    std::cout << "loopfuse " << LOOPFUSE_VERSION << "\n";
    return lf::tools::kExitOk;
  }
  return lf::tools::kExitUserError;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return runApp(argc, argv);
  } catch (const lf::tools::ToolError& e) {
    printError(e.what());
    return e.exitCode();
  } catch (const lf::CompileError& e) {
    // Diagnostics with no file to quote (every command formats its own file's errors).
    for (const lf::Diagnostic& d : e.diagnostics()) printError("error: " + d.message);
    return lf::tools::kExitUserError;
  } catch (const lf::runtime::InputError& e) {
    printError(std::string("error: ") + e.what());
    return lf::tools::kExitUserError;
  } catch (const lf::runtime::NpzError& e) {
    printError(std::string("error: ") + e.what());
    return lf::tools::kExitUserError;
  } catch (const std::invalid_argument& e) {  // a bad LOOPFUSE_* setting
    printError(std::string("error: ") + e.what());
    return lf::tools::kExitUserError;
  } catch (const std::exception& e) {
    printError(std::string("internal error: ") + e.what());
    return lf::tools::kExitInternal;
  } catch (...) {
    printError("internal error: unknown exception");
    return lf::tools::kExitInternal;
  }
}
