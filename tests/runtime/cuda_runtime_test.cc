// The CUDA runtime: NVRTC to a CUBIN for sm_90 through the compile cache (needs no GPU, only
// libnvrtc), a clear error where there is no driver, and, where there is a GPU, corpus programs run
// through Executable::compileCuda (host run and runOnStream) against JAX's outputs.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "codegen/emit.h"
#include "frontend/import.h"
#include "hlo/ast.h"
#include "passes/pipeline.h"
#include "runtime/cuda_driver.h"
#include "runtime/cuda_executable.h"
#include "runtime/executable.h"
#include "runtime/npz.h"
#include "runtime/nvrtc.h"
#include "runtime/tolerance.h"

namespace lf::runtime {
namespace {

namespace fs = std::filesystem;

fs::path corpusFile(const std::string& name) {
  return fs::path(LF_SOURCE_DIR) / "tests" / "programs" / name;
}

codegen::EmittedKernel emitCuda(const std::string& hloName) {
  std::ifstream in(corpusFile(hloName), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const SourceFile file(corpusFile(hloName).string(), text.str());
  ir::Program program = frontend::importModule(hlo::parseModule(file));
  passes::runPasses(program);
  return codegen::emit(program, codegen::Target::Cuda);
}

// A fresh cache folder per test, so that "first compile misses" holds.
class TempCacheDir {
 public:
  TempCacheDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    for (char& c : name)
      if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    path_ = fs::temp_directory_path() / ("lf_cuda_cache_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(path_);
  }
  ~TempCacheDir() { fs::remove_all(path_); }
  CompileOptions options() const { return CompileOptions{path_.string(), ""}; }

 private:
  fs::path path_;
};

// An ELF image for NVIDIA's machine type (EM_CUDA = 190): what cuModuleLoadData takes as a cubin.
void expectCudaElf(const std::string& cubin) {
  ASSERT_GE(cubin.size(), 20u);
  EXPECT_EQ(cubin.substr(0, 4), std::string("\x7f"
                                            "ELF"));
  uint16_t machine = 0;
  std::memcpy(&machine, cubin.data() + 18, sizeof machine);
  EXPECT_EQ(machine, 190) << "e_machine of the cubin";
}

class CubinForSm90 : public ::testing::TestWithParam<std::string> {};

TEST_P(CubinForSm90, CompilesThroughTheCache) {
  if (!nvrtcAvailable()) GTEST_SKIP() << "NVRTC not found";
  const codegen::EmittedKernel kernel = emitCuda(GetParam());
  TempCacheDir cache;
  const CudaBinary first = compileCubinCached(kernel.source, "sm_90", cache.options());
  EXPECT_FALSE(first.stats.cacheHit);
  expectCudaElf(first.cubin);
  EXPECT_TRUE(fs::exists(first.stats.objectPath));
  EXPECT_EQ(fs::path(first.stats.objectPath).extension(), ".cubin");

  const CudaBinary second = compileCubinCached(kernel.source, "sm_90", cache.options());
  EXPECT_TRUE(second.stats.cacheHit);
  EXPECT_EQ(second.stats.objectPath, first.stats.objectPath);
  EXPECT_EQ(second.cubin, first.cubin);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CubinForSm90,
                         ::testing::Values("seed_x64.cuda.hlo",
                                           "random_threefry_gpu_kernel.cuda.hlo",
                                           "loop_while_newton.hlo", "sort_values.hlo",
                                           "model_gru_scan.hlo"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.find('.'));
                           return name;
                         });

TEST(CubinCompile, ArchitectureIsPartOfTheCacheKey) {
  if (!nvrtcAvailable()) GTEST_SKIP() << "NVRTC not found";
  const codegen::EmittedKernel kernel = emitCuda("loop_while_newton.hlo");
  TempCacheDir cache;
  const CudaBinary sm90 = compileCubinCached(kernel.source, "sm_90", cache.options());
  const CudaBinary sm80 = compileCubinCached(kernel.source, "sm_80", cache.options());
  EXPECT_FALSE(sm80.stats.cacheHit);
  EXPECT_NE(sm80.stats.objectPath, sm90.stats.objectPath);
  EXPECT_NE(sm80.cubin, sm90.cubin);
}

TEST(CubinCompile, VirtualArchitectureIsRefusedClearly) {
  if (!nvrtcAvailable()) GTEST_SKIP() << "NVRTC not found";
  TempCacheDir cache;
  const std::string source = "extern \"C\" __global__ void k() {}";
  try {
    compileCubinCached(source, "compute_90", cache.options());
    FAIL() << "compute_90 has no machine code; expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CUBIN"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("compute_90"), std::string::npos) << e.what();
  }
}

TEST(CubinCompile, BadSourceGivesNvrtcLogAndCachesNothing) {
  if (!nvrtcAvailable()) GTEST_SKIP() << "NVRTC not found";
  TempCacheDir cache;
  const std::string source = "extern \"C\" __global__ void k() { undeclared_name = 1; }";
  try {
    compileCubinCached(source, "sm_90", cache.options());
    FAIL() << "expected an NVRTC error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos) << e.what();
  }
  // The failed build left no entry: the next try compiles again (and fails again).
  EXPECT_THROW(compileCubinCached(source, "sm_90", cache.options()), std::runtime_error);
}

TEST(CudaDriver, MissingDriverGivesAClearErrorNotACrash) {
  if (cuda::driverAvailable()) GTEST_SKIP() << "a CUDA driver is present";
  const codegen::EmittedKernel kernel = emitCuda("loop_while_newton.hlo");
  try {
    Executable::compileCuda(kernel);
    FAIL() << "expected cuda::CudaError without a driver";
  } catch (const cuda::CudaError& e) {
    const std::string message = e.what();
    // Either no libcuda at all, or one that cannot start (a stub library, no device).
    EXPECT_TRUE(message.find("no CUDA driver found") != std::string::npos ||
                message.find("cuInit failed") != std::string::npos)
        << message;
  }
}

TEST(CudaExecutable, RefusesACpuKernel) {
  codegen::EmittedKernel kernel;
  kernel.target = codegen::Target::Cpu;
  EXPECT_THROW(Executable::compileCuda(kernel), std::invalid_argument);
}

// --- with a GPU ---------------------------------------------------------------------------------

struct CorpusCase {
  std::vector<HostArray> inputs, expected;
};

CorpusCase loadCase(const std::string& name) {
  const std::string npz = corpusFile(name + ".npz").string();
  NamedArrays arrays = readNpz(npz);
  return {numberedArrays(arrays, "input_", npz), numberedArrays(arrays, "output_", npz)};
}

void expectMatches(const std::vector<HostArray>& outputs, const std::vector<HostArray>& expected) {
  ASSERT_EQ(outputs.size(), expected.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    ArrayComparison c = compareArrays(outputs[i], expected[i]);
    EXPECT_TRUE(c.ok()) << "output_" << i << ": " << c.error << " " << c.mismatches
                        << " mismatches, first at " << c.firstMismatch << ": got " << c.firstActual
                        << ", JAX " << c.firstExpected;
  }
}

class OnGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!cuda::driverAvailable()) GTEST_SKIP() << "no CUDA driver";
  }
};

// `name` is the corpus program; the CUDA lowering is used where there is one.
std::string hloFor(const std::string& name) {
  return fs::exists(corpusFile(name + ".cuda.hlo")) ? name + ".cuda.hlo" : name + ".hlo";
}

TEST_P(OnGpu, HostRunMatchesJax) {
  const CorpusCase c = loadCase(GetParam());
  auto executable = Executable::compileCuda(emitCuda(hloFor(GetParam())));
  expectMatches(executable->run(c.inputs), c.expected);
  // A second run reuses the scratch and device copies: same answer.
  expectMatches(executable->run(c.inputs), c.expected);
}

// The FFI handler's path: device pointers, a launch on a stream, no copies by the runtime.
TEST_P(OnGpu, RunOnStreamWithDevicePointersMatchesJax) {
  const CorpusCase c = loadCase(GetParam());
  auto executable = Executable::compileCuda(emitCuda(hloFor(GetParam())));
  auto* cudaExecutable = dynamic_cast<CudaExecutable*>(executable.get());
  ASSERT_NE(cudaExecutable, nullptr);
  const cuda::DriverApi& api = cuda::driver();
  const codegen::EmittedKernel& k = executable->kernel();
  std::vector<cuda::DevicePtr> in(k.inputs.size()), out(k.outputs.size());
  std::vector<const void*> inPointers;
  std::vector<void*> outPointers;
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(api.memAlloc(&in[i], c.inputs[i].data.size() + 64), 0);
    ASSERT_EQ(api.memcpyHtoD(in[i], c.inputs[i].data.data(), c.inputs[i].data.size()), 0);
    inPointers.push_back(reinterpret_cast<const void*>(in[i]));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(api.memAlloc(&out[i], static_cast<size_t>(k.outputs[i].byteSize()) + 64), 0);
    outPointers.push_back(reinterpret_cast<void*>(out[i]));
  }
  cudaExecutable->runOnStream(nullptr, inPointers.data(), outPointers.data());
  ASSERT_EQ(api.streamSynchronize(nullptr), 0);
  std::vector<HostArray> outputs(out.size());
  for (size_t i = 0; i < out.size(); ++i) {
    outputs[i].type = k.outputs[i];
    outputs[i].data.resize(static_cast<size_t>(k.outputs[i].byteSize()));
    ASSERT_EQ(api.memcpyDtoH(outputs[i].data.data(), out[i], outputs[i].data.size()), 0);
  }
  for (cuda::DevicePtr p : in) api.memFree(p);
  for (cuda::DevicePtr p : out) api.memFree(p);
  expectMatches(outputs, c.expected);
  EXPECT_EQ(cudaExecutable->info().arch.rfind("sm_", 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(Corpus, OnGpu,
                         ::testing::Values("seed_x64", "loop_while_newton", "sort_values",
                                           "random_threefry_gpu_kernel", "reduce_sum_axes"));

TEST(OnGpuErrors, WrongInputCountNamesTheProblem) {
  if (!cuda::driverAvailable()) GTEST_SKIP() << "no CUDA driver";
  auto executable = Executable::compileCuda(emitCuda("loop_while_newton.hlo"));
  EXPECT_THROW(executable->run({}), InputError);
}

}  // namespace
}  // namespace lf::runtime
