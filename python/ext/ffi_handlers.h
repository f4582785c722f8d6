// The XLA FFI handlers that run a loopfuse program as an XLA custom call ("loopfuse_cpu",
// "loopfuse_cuda"). Each is the XLA_FFI_Handler symbol that jax.ffi.register_ffi_target takes
// (wrapped in a PyCapsule by the extension module).
#pragma once

// Declared here without xla/ffi/api/c_api.h, which only ffi_handlers.cc includes (see
// python/CMakeLists.txt about GCC and that header).
extern "C" {
struct XLA_FFI_Error;
struct XLA_FFI_CallFrame;
}

namespace lf::python {

// Attributes of both: `hlo` (the program's HLO text, so that a fresh process can rebuild the
// executable) and `key` (its hloKey, for the process-level cache). Arguments and results: the
// program's parameters and results, in order.
extern "C" XLA_FFI_Error* LoopfuseCpuHandler(XLA_FFI_CallFrame* frame);
// Also takes XLA's stream (the platform stream context); buffers are device pointers. libcuda is
// opened at the first call, so the handler is always built, and fails cleanly without a driver.
extern "C" XLA_FFI_Error* LoopfuseCudaHandler(XLA_FFI_CallFrame* frame);

}  // namespace lf::python
