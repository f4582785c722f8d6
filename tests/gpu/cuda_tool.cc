// lf_cuda_tool: the two things tests/gpu/check.sh needs beyond `loopfuse run --target cuda`.
//
//   lf_cuda_tool warm-cache ARCH FILE.hlo...
//       emits each program for CUDA and compiles it with NVRTC to a CUBIN for ARCH (e.g. sm_90)
//       into the compile cache ($LOOPFUSE_CACHE_DIR). Needs no GPU: run it where the project is
//       built and carry the cache to the GPU machine, so that its time goes to running.
//   lf_cuda_tool bench FILE.hlo DATA.npz REPEAT
//       compiles for the GPU, copies input_* to the device once, then times REPEAT launches on the
//       default stream, each followed by a stream synchronize (what a caller waiting for the result
//       pays), after one warm-up launch. Checks the outputs against output_* when DATA.npz has
//       them. Prints one line: `bench <file> median_ms <m> min_ms <m> check <ok|MISMATCH|none>`.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "codegen/emit.h"
#include "frontend/import.h"
#include "hlo/ast.h"
#include "passes/pipeline.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_executable.h"
#include "runtime/npz.h"
#include "runtime/tolerance.h"
#include "support/diagnostic.h"

namespace lf {
namespace {

using runtime::HostArray;
namespace cuda = runtime::cuda;

codegen::EmittedKernel emitCuda(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  const SourceFile file(path, text.str());
  try {
    ir::Program program = frontend::importModule(hlo::parseModule(file));
    passes::runPasses(program);
    return codegen::emit(program, codegen::Target::Cuda);
  } catch (const CompileError& e) {
    throw std::runtime_error(file.format(e.diagnostics()));
  }
}

int warmCache(const std::string& arch, const std::vector<std::string>& files) {
  int failures = 0;
  for (const std::string& file : files) {
    try {
      runtime::CudaBinary binary = runtime::compileCubinCached(emitCuda(file).source, arch);
      std::cout << "warm " << file << " ok " << binary.stats.seconds << " s"
                << (binary.stats.cacheHit ? " (hit)" : "") << "\n";
    } catch (const std::exception& e) {
      ++failures;
      std::string why = e.what();
      std::cout << "warm " << file << " FAIL " << why.substr(0, why.find('\n')) << "\n";
    }
  }
  return failures == 0 ? 0 : 1;
}

// One device buffer per array, freed at scope exit.
class DeviceArrays {
 public:
  explicit DeviceArrays(const std::vector<int64_t>& bytes) {
    for (int64_t n : bytes) {
      cuda::DevicePtr p = 0;
      cuda::check(cuda::driver().memAlloc(&p, static_cast<size_t>(std::max<int64_t>(n, 256))),
                  "cuMemAlloc", "the benchmark's buffers");
      ptrs_.push_back(p);
    }
  }
  ~DeviceArrays() {
    for (cuda::DevicePtr p : ptrs_) cuda::driver().memFree(p);
  }
  cuda::DevicePtr operator[](size_t i) const { return ptrs_[i]; }
  std::vector<void*> pointers() const {
    std::vector<void*> out;
    for (cuda::DevicePtr p : ptrs_) out.push_back(reinterpret_cast<void*>(p));
    return out;
  }

 private:
  std::vector<cuda::DevicePtr> ptrs_;
};

int bench(const std::string& file, const std::string& npz, int repeat) {
  const runtime::NamedArrays arrays = runtime::readNpz(npz);
  const std::vector<HostArray> inputs = runtime::numberedArrays(arrays, "input_", npz);
  const std::vector<HostArray> expected = runtime::numberedArrays(arrays, "output_", npz);
  auto executable = runtime::Executable::compileCuda(emitCuda(file));
  auto& gpu = dynamic_cast<const runtime::CudaExecutable&>(*executable);
  const codegen::EmittedKernel& k = executable->kernel();
  if (inputs.size() != k.inputs.size())
    throw std::runtime_error(npz + ": " + std::to_string(inputs.size()) +
                             " inputs, the program has " + std::to_string(k.inputs.size()));

  std::vector<int64_t> inBytes, outBytes;
  for (const ir::Type& t : k.inputs) inBytes.push_back(t.byteSize());
  for (const ir::Type& t : k.outputs) outBytes.push_back(t.byteSize());
  DeviceArrays in(inBytes), out(outBytes);
  const cuda::DriverApi& api = cuda::driver();
  for (size_t i = 0; i < inputs.size(); ++i)
    cuda::check(api.memcpyHtoD(in[i], inputs[i].data.data(), inputs[i].data.size()), "cuMemcpyHtoD",
                npz);
  std::vector<void*> inPointers = in.pointers(), outPointers = out.pointers();
  std::vector<const void*> constIn(inPointers.begin(), inPointers.end());

  auto once = [&] {
    gpu.runOnStream(nullptr, constIn.data(), outPointers.data());
    cuda::check(api.streamSynchronize(nullptr), "cuStreamSynchronize", file);
  };
  once();  // warm-up: module load and first-touch costs stay out of the numbers
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    auto start = std::chrono::steady_clock::now();
    once();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());

  std::string check = "none";
  if (!expected.empty()) {
    check = "ok";
    for (size_t i = 0; i < k.outputs.size() && i < expected.size(); ++i) {
      HostArray actual{k.outputs[i], std::vector<uint8_t>(static_cast<size_t>(outBytes[i]))};
      cuda::check(api.memcpyDtoH(actual.data.data(), out[i], actual.data.size()), "cuMemcpyDtoH",
                  file);
      if (!runtime::compareArrays(actual, expected[i]).ok()) check = "MISMATCH";
    }
  }
  const runtime::CudaKernelInfo& info = gpu.info();
  std::cout << "bench " << file << " median_ms " << ms[ms.size() / 2] << " min_ms " << ms.front()
            << " check " << check << " launch " << info.gridBlocks << "x" << info.blockThreads
            << " registers " << info.registers << " local_bytes " << info.localBytes << "\n";
  return check == "MISMATCH" ? 1 : 0;
}

int usage() {
  std::cerr << "usage: lf_cuda_tool warm-cache ARCH FILE.hlo...\n"
               "       lf_cuda_tool bench FILE.hlo DATA.npz REPEAT\n";
  return 2;
}

}  // namespace
}  // namespace lf

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() >= 2 && args[0] == "warm-cache")
      return lf::warmCache(args[1], std::vector<std::string>(args.begin() + 2, args.end()));
    if (args.size() == 4 && args[0] == "bench")
      return lf::bench(args[1], args[2], std::max(1, std::stoi(args[3])));
    return lf::usage();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
}
