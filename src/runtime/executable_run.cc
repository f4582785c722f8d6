// Executable::run: the checked entry point. Every wrong input is reported by parameter number and
// HLO name before anything runs, because the raw entry trusts its buffers blindly.
#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/executable.h"

namespace lf::runtime {

namespace {

// bf16 has no numpy dtype: .npz files carry it as u16 bit patterns, which run() accepts.
bool dtypeAccepted(DType expected, DType given) {
  return expected == given || (expected == DType::BF16 && given == DType::U16);
}

std::string parameterLabel(const codegen::EmittedKernel& kernel, size_t i) {
  std::string label = "parameter " + std::to_string(i);
  if (i < kernel.inputNames.size() && !kernel.inputNames[i].empty())
    label += " (" + kernel.inputNames[i] + ")";
  return label;
}

}  // namespace

std::vector<HostArray> Executable::run(const std::vector<HostArray>& inputs) const {
  const codegen::EmittedKernel& k = kernel();
  if (inputs.size() != k.inputs.size())
    throw InputError("expected " + std::to_string(k.inputs.size()) + " inputs, got " +
                     std::to_string(inputs.size()));
  std::vector<const void*> inputPointers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Type& want = k.inputs[i];
    const ir::Type& got = inputs[i].type;
    if (!dtypeAccepted(want.dtype, got.dtype) || want.dims != got.dims)
      throw InputError(parameterLabel(k, i) + ": expected " + want.toString() + ", got " +
                       got.toString());
    if (static_cast<int64_t>(inputs[i].data.size()) != want.byteSize())
      throw InputError(parameterLabel(k, i) + ": expected " + std::to_string(want.byteSize()) +
                       " bytes of data for " + want.toString() + ", got " +
                       std::to_string(inputs[i].data.size()));
    inputPointers.push_back(inputs[i].data.data());
  }
  std::vector<HostArray> outputs(k.outputs.size());
  std::vector<void*> outputPointers;
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i].type = k.outputs[i];
    outputs[i].data.resize(static_cast<size_t>(k.outputs[i].byteSize()));
    outputPointers.push_back(outputs[i].data.data());
  }
  runRaw(inputPointers.data(), outputPointers.data());
  if (!k.hostCallbacks.empty()) {
    int32_t status = 0;
    std::memcpy(&status, outputs.back().data.data(), sizeof status);
    if (status != 0) {
      const auto site = static_cast<size_t>(status) - 1;
      throw HostCallbackReached(
          "the run reached host callback " +
          (site < k.hostCallbacks.size() ? k.hostCallbacks[site] : "#" + std::to_string(status)) +
          ": Python code, which loopfuse does not run (lf.jit runs such a call with XLA instead)");
    }
    outputs.pop_back();
  }
  return outputs;
}

}  // namespace lf::runtime
