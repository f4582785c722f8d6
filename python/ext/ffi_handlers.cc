// The FFI handlers. Both find (or build) the executable and check XLA's buffers against its
// signature, then read and write XLA's buffers in place (no copies). CPU: runs it on the thread
// XLA calls it on. CUDA: launches it on XLA's stream, on the device of XLA's current context.
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "executable_cache.h"
#include "ffi_handlers.h"
#include "runtime/cuda_executable.h"
#include "xla/ffi/api/ffi.h"

// XLA passes the stream as a cudaStream_t; spelled here without the CUDA runtime header (a CPU-only
// build has none). It is the driver's CUstream, which the runtime takes as void*.
struct CUstream_st;
using cudaStream_t = CUstream_st*;

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
  // A complex array is the program's array of (real, imaginary) pairs (frontend/importer.h): the
  // same bytes, read in place.
  const ffi::DataType t = buffer.element_type();
  if ((t == ffi::DataType::C64 || t == ffi::DataType::C128) && !want.dims.empty() &&
      want.dims.back() == 2 && want.dtype == (t == ffi::DataType::C64 ? DType::F32 : DType::F64) &&
      std::vector<int64_t>(want.dims.begin(), want.dims.end() - 1) == got) {
    return "";
  }
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

// Checks XLA's buffers against the program's signature and collects their data pointers (host
// pointers on the CPU, device pointers on CUDA).
ffi::Error collectBuffers(const codegen::EmittedKernel& kernel, ffi::RemainingArgs args,
                          ffi::RemainingRets rets, std::vector<const void*>& inputs,
                          std::vector<void*>& outputs) {
  if (args.size() != kernel.inputs.size() || rets.size() != kernel.outputs.size())
    return ffi::Error::InvalidArgument(
        "loopfuse: the program takes " + std::to_string(kernel.inputs.size()) + " inputs and " +
        std::to_string(kernel.outputs.size()) + " results; the call has " +
        std::to_string(args.size()) + " and " + std::to_string(rets.size()));
  inputs.assign(args.size(), nullptr);
  for (size_t i = 0; i < args.size(); ++i) {
    ffi::ErrorOr<ffi::AnyBuffer> buffer = args.get<ffi::AnyBuffer>(i);
    if (buffer.has_error()) return buffer.error();
    std::string problem = checkBuffer(*buffer, kernel.inputs[i]);
    if (!problem.empty())
      return ffi::Error::InvalidArgument("loopfuse: " + label(kernel, i, true) + ": " + problem);
    inputs[i] = buffer->untyped_data();
  }
  outputs.assign(rets.size(), nullptr);
  for (size_t i = 0; i < rets.size(); ++i) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> buffer = rets.get<ffi::AnyBuffer>(i);
    if (buffer.has_error()) return buffer.error();
    std::string problem = checkBuffer(**buffer, kernel.outputs[i]);
    if (!problem.empty())
      return ffi::Error::InvalidArgument("loopfuse: " + label(kernel, i, false) + ": " + problem);
    outputs[i] = (*buffer)->untyped_data();
  }
  return ffi::Error::Success();
}

constexpr const char* kCpuSource = "<loopfuse_cpu hlo>";
constexpr const char* kCudaSource = "<loopfuse_cuda hlo>";

ffi::Error runCpu(ffi::RemainingArgs args, ffi::RemainingRets rets, std::string_view hlo,
                  int64_t key) {
  // The Python side sends the uint64 key's bits as an int64 attribute.
  CachedProgram& program =
      getOrCompile(static_cast<uint64_t>(key), hlo, codegen::Target::Cpu, kCpuSource);
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  ffi::Error checked = collectBuffers(program.executable->kernel(), args, rets, inputs, outputs);
  if (checked.failure()) return checked;
  std::lock_guard<std::mutex> lock(program.runMutex);
  program.executable->runRaw(inputs.data(), outputs.data());
  return ffi::Error::Success();
}

// XLA calls this with its context current and its stream for the call: the executable of that
// context's device is launched on that stream, on XLA's device buffers, without waiting (XLA
// orders what follows on the stream). No lock: launches on one stream run in order, and each
// stream has its own scratch (CudaExecutable::runOnStream).
ffi::Error runCuda(cudaStream_t stream, ffi::RemainingArgs args, ffi::RemainingRets rets,
                   std::string_view hlo, int64_t key) {
  CachedProgram& program = getOrCompile(static_cast<uint64_t>(key), hlo, codegen::Target::Cuda,
                                        kCudaSource, currentCudaDevice());
  const auto* executable = dynamic_cast<const runtime::CudaExecutable*>(program.executable.get());
  if (executable == nullptr)
    return ffi::Error::Internal("loopfuse: the cached program is not a CUDA executable");
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  ffi::Error checked = collectBuffers(executable->kernel(), args, rets, inputs, outputs);
  if (checked.failure()) return checked;
  executable->runOnStream(stream, inputs.data(), outputs.data());
  return ffi::Error::Success();
}

// Exceptions must not cross the FFI boundary: every one becomes an ffi::Error with its message.
template <typename Run>
ffi::Error caught(std::string_view hlo, const char* sourceName, Run&& run) {
  try {
    return run();
  } catch (const CompileError& e) {
    return ffi::Error::InvalidArgument("loopfuse: " + formatCompileError(e, hlo, sourceName));
  } catch (const std::exception& e) {
    return ffi::Error::Internal(std::string("loopfuse: ") + e.what());
  } catch (...) {
    return ffi::Error::Internal("loopfuse: unknown exception");
  }
}

ffi::Error runCpuCaught(ffi::RemainingArgs args, ffi::RemainingRets rets, std::string_view hlo,
                        int64_t key) {
  return caught(hlo, kCpuSource, [&] { return runCpu(args, rets, hlo, key); });
}

ffi::Error runCudaCaught(cudaStream_t stream, ffi::RemainingArgs args, ffi::RemainingRets rets,
                         std::string_view hlo, int64_t key) {
  return caught(hlo, kCudaSource, [&] { return runCuda(stream, args, rets, hlo, key); });
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(
    LoopfuseCpuHandler, runCpuCaught,
    ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attr<std::string_view>("hlo").Attr<int64_t>(
        "key"));

// Not kCmdBufferCompatible: the first call of a program on a device may compile and allocate
// (scratch per stream), which a CUDA graph capture cannot hold.
XLA_FFI_DEFINE_HANDLER_SYMBOL(LoopfuseCudaHandler, runCudaCaught,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<std::string_view>("hlo")
                                  .Attr<int64_t>("key"));

}  // namespace lf::python
