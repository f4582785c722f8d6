// `loopfuse run FILE.hlo --inputs IN.npz [--outputs OUT.npz] [--check] [--expected EXP.npz]`:
// compiles for the CPU (or the GPU with --target cuda) through the cache, runs with the .npz
// inputs, optionally writes the outputs and compares them with JAX's using the tolerances of
// runtime/tolerance.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_emulator.h"
#include "runtime/cuda_executable.h"
#include "runtime/npz.h"
#include "runtime/report.h"
#include "runtime/tolerance.h"

namespace lf::tools {

namespace {

using runtime::HostArray;
using runtime::NamedArrays;

// input_0, input_1, ... if present; otherwise every array not named output_*, in archive order.
std::vector<HostArray> selectInputs(const NamedArrays& arrays, const std::string& path) {
  std::vector<HostArray> inputs = runtime::numberedArrays(arrays, "input_", path);
  if (!inputs.empty()) return inputs;
  for (const auto& [name, array] : arrays)
    if (name.rfind("output_", 0) != 0) inputs.push_back(array);
  return inputs;
}

std::string scientific(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

// Prints one line per output; returns true when all match.
bool checkOutputs(const std::vector<HostArray>& outputs, const std::vector<HostArray>& expected,
                  const std::string& expectedPath) {
  if (expected.size() != outputs.size())
    throw ToolError("error: " + expectedPath + ": has " + std::to_string(expected.size()) +
                        " expected outputs (output_0, ...), the program has " +
                        std::to_string(outputs.size()),
                    kExitUserError);
  bool allOk = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    runtime::ArrayComparison c = runtime::compareArrays(outputs[i], expected[i]);
    std::cout << "output_" << i << " " << outputs[i].type.toString() << ": ";
    if (!c.error.empty()) {
      std::cout << "MISMATCH (" << c.error << ")\n";
    } else {
      std::cout << "max abs err " << scientific(c.maxAbsError) << ", max rel err "
                << scientific(c.maxRelError) << ", " << (c.ok() ? "ok" : "MISMATCH");
      if (!c.ok())
        std::cout << " (" << c.mismatches << " elements, first at index " << c.firstMismatch
                  << ": got " << c.firstActual << ", expected " << c.firstExpected << ")";
      std::cout << "\n";
    }
    allOk = allOk && c.ok();
  }
  return allOk;
}

// Median wall time of `repeat` calls on buffers allocated once (what a caller that keeps its
// buffers pays per call; for CUDA it includes the host<->device copies of runRaw).
double medianSecondsPerCall(const runtime::Executable& executable,
                            const std::vector<HostArray>& inputs, int repeat) {
  std::vector<const void*> in;
  for (const HostArray& a : inputs) in.push_back(a.data.data());
  std::vector<std::vector<uint8_t>> outBuffers;
  std::vector<void*> out;
  for (const ir::Type& t : executable.kernel().outputs) outBuffers.emplace_back(t.byteSize());
  for (auto& b : outBuffers) out.push_back(b.data());
  std::vector<double> seconds;
  for (int i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    executable.runRaw(in.data(), out.data());
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace

int runCommand(const RunOptions& options) {
  codegen::EmittedKernel kernel = emitHlo(options.hloPath, options.target);
  // Read the inputs before compiling, so that a bad .npz fails fast.
  const NamedArrays inputArrays = runtime::readNpz(options.inputsPath);
  const std::vector<HostArray> inputs = selectInputs(inputArrays, options.inputsPath);

  std::unique_ptr<runtime::Executable> executable;
  if (options.emulate && options.target != codegen::Target::Cuda) {
    throw ToolError("error: --emulate runs a CUDA kernel on the host; add --target cuda",
                    kExitUserError);
  }
  if (options.emulate) {
    executable = runtime::compileCudaEmulated(kernel, runtime::cudaEmulationFromEnvironment());
  } else if (options.target == codegen::Target::Cuda) {
    try {
      executable = runtime::Executable::compileCuda(kernel);
    } catch (const runtime::cuda::CudaError& e) {  // no driver or no device: not a loopfuse bug
      throw ToolError(std::string("error: ") + e.what(), kExitUserError);
    }
  } else {
    executable = runtime::Executable::compileCpu(kernel);
  }
  const runtime::CompileStats& stats = executable->stats();
  std::cout << "compile: " << scientific(stats.seconds) << " s ("
            << (stats.cacheHit ? "cache hit" : "cache miss") << ")\n";
  if (auto* gpu = dynamic_cast<const runtime::CudaExecutable*>(executable.get())) {
    const runtime::CudaKernelInfo& info = gpu->info();
    std::cout << "device: " << info.deviceName << " (" << info.arch << "), " << info.gridBlocks
              << " x " << info.blockThreads << " threads"
              << (info.cooperative ? " cooperative" : "") << ", " << info.registers
              << " registers, " << info.localBytes << " local bytes\n";
  }

  std::vector<HostArray> outputs;
  try {
    outputs = executable->run(inputs);
  } catch (const runtime::InputError& e) {
    throw ToolError("error: " + options.inputsPath + ": " + e.what(), kExitUserError);
  } catch (const runtime::HostCallbackReached& e) {
    throw ToolError("error: " + options.inputsPath + ": " + e.what(), kExitUnsupported);
  }

  std::optional<double> secondsPerCall;
  if (options.repeat > 0) {
    secondsPerCall = medianSecondsPerCall(*executable, inputs, options.repeat);
    std::cout << "time per call: " << scientific(*secondsPerCall * 1e6) << " us (median of "
              << options.repeat << ")\n";
  }
  // The one-line JSON summary, printed last, for scripts (the demo, the benchmarks).
  auto printJson = [&](bool ok) {
    if (!options.json) return;
    nlohmann::json j = {{"ok", ok},
                        {"compile_seconds", stats.seconds},
                        {"cache_hit", stats.cacheHit},
                        {"repeats", options.repeat}};
    j["seconds_per_call"] = secondsPerCall ? nlohmann::json(*secondsPerCall) : nlohmann::json();
    std::cout << j.dump() << "\n";
  };

  if (!options.outputsPath.empty()) {
    NamedArrays named;
    for (size_t i = 0; i < outputs.size(); ++i)
      named.emplace_back("output_" + std::to_string(i), outputs[i]);
    runtime::writeNpz(options.outputsPath, named);
  }
  if (!options.check) {
    for (size_t i = 0; i < outputs.size(); ++i)
      std::cout << "output_" << i << " " << runtime::formatArray(outputs[i]) << "\n";
    printJson(true);
    return kExitOk;
  }
  const std::string expectedPath =
      options.expectedPath.empty() ? options.inputsPath : options.expectedPath;
  const NamedArrays expectedArrays =
      options.expectedPath.empty() ? inputArrays : runtime::readNpz(expectedPath);
  const bool ok = checkOutputs(
      outputs, runtime::numberedArrays(expectedArrays, "output_", expectedPath), expectedPath);
  printJson(ok);
  return ok ? kExitOk : kExitMismatch;
}

}  // namespace lf::tools
