// The FFI handlers. CPU: finds (or builds) the executable, checks XLA's buffers against its
// signature, and runs it on the thread XLA calls it on, reading and writing XLA's buffers in place
// (no copies).
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "executable_cache.h"
#include "ffi_handlers.h"
#include "xla/ffi/api/ffi.h"

namespace ffi = xla::ffi;

namespace lf::python {

namespace {

std::optional<DType> fromFfi(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED:
      return DType::Pred;
    case ffi::DataType::S8:
      return DType::S8;
    case ffi::DataType::S16:
      return DType::S16;
    case ffi::DataType::S32:
      return DType::S32;
    case ffi::DataType::S64:
      return DType::S64;
    case ffi::DataType::U8:
      return DType::U8;
    case ffi::DataType::U16:
      return DType::U16;
    case ffi::DataType::U32:
      return DType::U32;
    case ffi::DataType::U64:
      return DType::U64;
    case ffi::DataType::F16:
      return DType::F16;
    case ffi::DataType::BF16:
      return DType::BF16;
    case ffi::DataType::F32:
      return DType::F32;
    case ffi::DataType::F64:
      return DType::F64;
    default:
      return std::nullopt;
  }
}

// "" when the buffer has the expected type, else what is wrong with it.
std::string checkBuffer(const ffi::AnyBuffer& buffer, const ir::Type& want) {
  std::optional<DType> dtype = fromFfi(buffer.element_type());
  ffi::Span<const int64_t> dims = buffer.dimensions();
  std::vector<int64_t> got(dims.begin(), dims.end());
  if (dtype && *dtype == want.dtype && got == want.dims) return "";
  ir::Type gotType{dtype.value_or(want.dtype), got};
  std::string gotText = dtype ? gotType.toString() : "an unsupported element type";
  return "expected " + want.toString() + ", got " + gotText;
}

std::string label(const codegen::EmittedKernel& kernel, size_t i, bool input) {
  std::string text = (input ? "parameter " : "result ") + std::to_string(i);
  if (input && i < kernel.inputNames.size() && !kernel.inputNames[i].empty())
    text += " (" + kernel.inputNames[i] + ")";
  return text;
}

ffi::Error runCpu(ffi::RemainingArgs args, ffi::RemainingRets rets, std::string_view hlo,
                  int64_t key) {
  // The Python side sends the uint64 key's bits as an int64 attribute.
  CachedProgram& program =
      getOrCompile(static_cast<uint64_t>(key), hlo, codegen::Target::Cpu, "<loopfuse_cpu hlo>");
  const codegen::EmittedKernel& kernel = program.executable->kernel();
  if (args.size() != kernel.inputs.size() || rets.size() != kernel.outputs.size())
    return ffi::Error::InvalidArgument(
        "loopfuse: the program takes " + std::to_string(kernel.inputs.size()) + " inputs and " +
        std::to_string(kernel.outputs.size()) + " results; the call has " +
        std::to_string(args.size()) + " and " + std::to_string(rets.size()));
  std::vector<const void*> inputs(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    ffi::ErrorOr<ffi::AnyBuffer> buffer = args.get<ffi::AnyBuffer>(i);
    if (buffer.has_error()) return buffer.error();
    std::string problem = checkBuffer(*buffer, kernel.inputs[i]);
    if (!problem.empty())
      return ffi::Error::InvalidArgument("loopfuse: " + label(kernel, i, true) + ": " + problem);
    inputs[i] = buffer->untyped_data();
  }
  std::vector<void*> outputs(rets.size());
  for (size_t i = 0; i < rets.size(); ++i) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> buffer = rets.get<ffi::AnyBuffer>(i);
    if (buffer.has_error()) return buffer.error();
    std::string problem = checkBuffer(**buffer, kernel.outputs[i]);
    if (!problem.empty())
      return ffi::Error::InvalidArgument("loopfuse: " + label(kernel, i, false) + ": " + problem);
    outputs[i] = (*buffer)->untyped_data();
  }
  std::lock_guard<std::mutex> lock(program.runMutex);
  program.executable->runRaw(inputs.data(), outputs.data());
  return ffi::Error::Success();
}

// Exceptions must not cross the FFI boundary: every one becomes an ffi::Error with its message.
ffi::Error runCpuCaught(ffi::RemainingArgs args, ffi::RemainingRets rets, std::string_view hlo,
                        int64_t key) {
  try {
    return runCpu(args, rets, hlo, key);
  } catch (const CompileError& e) {
    return ffi::Error::InvalidArgument("loopfuse: " +
                                       formatCompileError(e, hlo, "<loopfuse_cpu hlo>"));
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("loopfuse: ") + e.what());
  } catch (...) {
    return ffi::Error::Internal("loopfuse: unknown exception");
  }
}

ffi::Error cudaNotBuilt(ffi::RemainingArgs, ffi::RemainingRets, std::string_view, int64_t) {
  return ffi::Error(ffi::ErrorCode::kUnimplemented,
                    "loopfuse: the CUDA handler is not built yet; run on the CPU "
                    "(jax.default_device(jax.devices('cpu')[0])) or use platform='cpu'");
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LoopfuseCpuHandler, runCpuCaught,
    ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attr<std::string_view>("hlo").Attr<int64_t>(
        "key"));

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LoopfuseCudaHandler, cudaNotBuilt,
    ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attr<std::string_view>("hlo").Attr<int64_t>(
        "key"));

}  // namespace lf::python
