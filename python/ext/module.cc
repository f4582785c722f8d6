// loopfuse._core: the Python face of the C++ library. `compile` runs the whole pipeline at trace
// time (so an unsupported op is found before XLA ever calls the handler, and the Python side can
// fall back to XLA), and fills the process cache that the FFI handlers read.
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <tuple>
#include <vector>

#include "executable_cache.h"
#include "ffi_handlers.h"
#include "runtime/cuda_executable.h"

namespace nb = nanobind;

namespace lf::python {

namespace {

// What Python sees of a compiled program (the executable itself stays in the C++ cache).
struct ProgramInfo {
  uint64_t key = 0;
  std::string target;
  std::vector<std::pair<std::string, std::vector<int64_t>>> inputs, outputs;  // (dtype, dims)
  std::vector<std::string> inputNames;
  std::string kernelSource;
  std::string explain;
  double compileSeconds = 0;
  bool cacheHit = false;  // the on-disk kernel cache had the object: no C++ compiler ran
  // CUDA only ("" on the CPU): the device and launch, e.g. "NVIDIA H200 (sm_90), 1 block of 1
  // thread, 40 registers per thread".
  std::string device;
  // Donation (EmittedKernel::canAlias): inputs whose buffer an output may take, outputs that may
  // take an input's buffer (of the same type).
  std::vector<bool> aliasSafeInputs, aliasSafeOutputs;
  // EmittedKernel::hostCallbacks: when there are any, the last output is the host-callback status.
  std::vector<std::string> hostCallbacks;
};

std::string describeCuda(const runtime::CudaKernelInfo& info) {
  auto plural = [](unsigned n, const char* word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  return info.deviceName + " (" + info.arch + "), " + plural(info.gridBlocks, "block") + " of " +
         plural(info.blockThreads, "thread") + (info.cooperative ? " (cooperative)" : "") + ", " +
         std::to_string(info.registers) + " registers per thread";
}

codegen::Target parseTarget(std::string_view name) {
  if (name == "cpu") return codegen::Target::Cpu;
  if (name == "cuda") return codegen::Target::Cuda;
  throw nb::value_error(
      ("loopfuse: unknown target '" + std::string(name) + "' (expected 'cpu' or 'cuda')").c_str());
}

std::vector<std::pair<std::string, std::vector<int64_t>>> describe(
    const std::vector<ir::Type>& types) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const ir::Type& t : types) out.emplace_back(std::string(dtypeName(t.dtype)), t.dims);
  return out;
}

ProgramInfo compileForPython(std::string_view hlo, std::string_view target,
                             const std::string& sourceName) {
  codegen::Target t = parseTarget(target);
  uint64_t key = hloKey(hlo);
  CachedProgram* program = nullptr;
  {
    nb::gil_scoped_release release;  // compiling may take seconds; let other Python threads run
    program = &getOrCompile(key, hlo, t, sourceName);
  }
  const codegen::EmittedKernel& kernel = program->executable->kernel();
  ProgramInfo info;
  info.key = key;
  info.target = codegen::targetName(t);
  info.inputs = describe(kernel.inputs);
  info.outputs = describe(kernel.outputs);
  info.inputNames = kernel.inputNames;
  info.kernelSource = kernel.source;
  info.explain = kernel.explain;
  info.compileSeconds = program->compileSeconds;
  info.cacheHit = program->executable->stats().cacheHit;
  info.aliasSafeInputs = kernel.aliasSafeInputs;
  info.aliasSafeOutputs = kernel.aliasSafeOutputs;
  info.hostCallbacks = kernel.hostCallbacks;
  if (const auto* cuda = dynamic_cast<const runtime::CudaExecutable*>(program->executable.get()))
    info.device = describeCuda(cuda->info());
  return info;
}

}  // namespace

}  // namespace lf::python

NB_MODULE(_core, m) {
  using namespace lf::python;
  m.doc() = "loopfuse's C++ core: compile HLO text, and the XLA FFI handlers that run it.";

  static nb::exception<lf::CompileError> compileError(m, "CompileError", PyExc_ValueError);

  nb::class_<ProgramInfo>(m, "ProgramInfo")
      .def_ro("key", &ProgramInfo::key)
      .def_ro("target", &ProgramInfo::target)
      .def_ro("inputs", &ProgramInfo::inputs)
      .def_ro("outputs", &ProgramInfo::outputs)
      .def_ro("input_names", &ProgramInfo::inputNames)
      .def_ro("kernel_source", &ProgramInfo::kernelSource)
      .def_ro("explain", &ProgramInfo::explain)
      .def_ro("compile_seconds", &ProgramInfo::compileSeconds)
      .def_ro("cache_hit", &ProgramInfo::cacheHit)
      .def_ro("device", &ProgramInfo::device)
      .def_ro("alias_safe_inputs", &ProgramInfo::aliasSafeInputs)
      .def_ro("alias_safe_outputs", &ProgramInfo::aliasSafeOutputs)
      .def_ro("host_callbacks", &ProgramInfo::hostCallbacks);

  m.def(
      "hlo_key", [](std::string_view hlo) { return hloKey(hlo); }, nb::arg("hlo"),
      "The 64-bit key of an HLO text (xxh3_64), the `key` attribute of the FFI call.");

  m.def(
      "compile",
      [](std::string_view hlo, std::string_view target, const std::string& sourceName) {
        try {
          return compileForPython(hlo, target, sourceName);
        } catch (const lf::CompileError& e) {
          // Re-raised with every diagnostic formatted against the HLO text (line, caret).
          std::string message = formatCompileError(e, hlo, sourceName);
          PyErr_SetString(compileError.ptr(), message.c_str());
          throw nb::python_error();
        }
      },
      nb::arg("hlo"), nb::arg("target") = "cpu", nb::arg("source_name") = "<hlo>",
      "Compiles HLO text (once per process) and describes the program. Raises CompileError for "
      "bad or unsupported HLO, RuntimeError when the host compiler fails.");

  m.def("cpu_handler", [] { return nb::capsule(reinterpret_cast<void*>(&LoopfuseCpuHandler)); });
  m.def("cuda_handler", [] { return nb::capsule(reinterpret_cast<void*>(&LoopfuseCudaHandler)); });
  // The CUDA handler is always compiled in (libcuda is opened at run time, never linked).
  m.attr("CUDA_BUILT") = true;
}
