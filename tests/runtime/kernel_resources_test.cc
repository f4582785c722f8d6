// The resources of a compiled CUDA kernel (registers, static shared memory, local memory, max
// threads per block) from ptxas's report and from the cubin, without a GPU: both sources must
// agree, a declared __shared__ array must show exactly, a large local array must show as local
// memory, and no malformed cubin or log may crash the readers. The tests that compile are skipped
// when no libnvrtc can be opened.
#include "runtime/kernel_resources.h"

#include <gtest/gtest.h>

#include <string>

#include "runtime/nvrtc.h"

namespace {

using lf::runtime::KernelResources;

#define LF_REQUIRE_NVRTC()                                  \
  if (!lf::runtime::nvrtcAvailable())                       \
  GTEST_SKIP() << "no libnvrtc (set LOOPFUSE_NVRTC_PATH): " \
               << lf::runtime::compileCudaToCubin("", "sm_90").log

// Three kernels with known needs: none, 1200 B of shared memory, a 4000 B local array indexed at
// run time (so it cannot live in registers) under __launch_bounds__(128).
const char* const kKernels = R"(
extern "C" __global__ void tiny(float* x) { x[threadIdx.x] *= 2.0f; }
extern "C" __global__ void with_shared(float* x) {
  __shared__ float buffer[300];
  buffer[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = buffer[299 - threadIdx.x];
}
extern "C" __global__ void __launch_bounds__(128) with_local(float* x, int n) {
  float a[1000];
  for (int i = 0; i < 1000; i++) a[i] = x[i * n];
  x[0] = a[n];
}
)";

void expectPlausible(const KernelResources& r) {
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_GT(r.registers, 0);
  EXPECT_LE(r.registers, 255);
  EXPECT_GE(r.sharedBytes, 0);
  EXPECT_GE(r.localBytes, 0);
  EXPECT_GE(r.maxThreadsPerBlock, 32);
  EXPECT_LE(r.maxThreadsPerBlock, 1024);
}

TEST(KernelResources, TinyKernelNeedsNoMemory) {
  LF_REQUIRE_NVRTC();
  KernelResources r = lf::runtime::cudaKernelResources(kKernels, "tiny");
  expectPlausible(r);
  EXPECT_EQ(r.source, "ptxas");
  EXPECT_EQ(r.arch, "sm_90");
  EXPECT_EQ(r.sharedBytes, 0);
  EXPECT_EQ(r.localBytes, 0);
  EXPECT_EQ(r.spillStoreBytes, 0);
  EXPECT_EQ(r.maxThreadsPerBlock, 1024);
  EXPECT_EQ(r.maxThreadsReason, "register limit");
}

// sm_90 reserves 1 KiB of every block's shared memory and the cubin counts it; sm_80 does not.
// Both must show the declared 1200 bytes.
TEST(KernelResources, SharedArrayShowsItsDeclaredSize) {
  LF_REQUIRE_NVRTC();
  for (const char* arch : {"sm_90", "sm_80"}) {
    KernelResources r = lf::runtime::cudaKernelResources(kKernels, "with_shared", arch);
    expectPlausible(r);
    EXPECT_EQ(r.sharedBytes, 1200) << arch;
    EXPECT_EQ(r.localBytes, 0) << arch;
  }
}

TEST(KernelResources, LocalArrayShowsAsLocalMemoryAndLaunchBoundsAsMaxThreads) {
  LF_REQUIRE_NVRTC();
  KernelResources r = lf::runtime::cudaKernelResources(kKernels, "with_local");
  expectPlausible(r);
  EXPECT_GE(r.localBytes, 4000);
  EXPECT_EQ(r.sharedBytes, 0);
  EXPECT_EQ(r.maxThreadsPerBlock, 128);
  EXPECT_EQ(r.maxThreadsReason, "launch bounds");
  const std::string line = lf::runtime::formatKernelResources(r);
  EXPECT_NE(line.find("cuda resources (sm_90, from ptxas): "), std::string::npos) << line;
  EXPECT_NE(line.find(" registers/thread, 0 B shared, "), std::string::npos) << line;
  EXPECT_NE(line.find("max 128 threads/block (launch bounds)"), std::string::npos) << line;
}

// The cross-check: ptxas's report and the cubin's EIATTR records give the same numbers, on the
// architectures with and without the reserved shared memory.
TEST(KernelResources, ReportAndCubinAgree) {
  LF_REQUIRE_NVRTC();
  for (const char* arch : {"sm_90", "sm_80", "sm_75"}) {
    lf::runtime::NvrtcOutput out =
        lf::runtime::compileCudaToCubin(kKernels, arch, {"--ptxas-options=-v"});
    ASSERT_TRUE(out.ok) << out.log;
    for (const char* kernel : {"tiny", "with_shared", "with_local"}) {
      SCOPED_TRACE(std::string(arch) + " " + kernel);
      KernelResources report = lf::runtime::parsePtxasReport(out.log, kernel);
      KernelResources cubin = lf::runtime::readCubinResources(out.cubin, kernel);
      ASSERT_TRUE(report.ok) << report.message << "\n" << out.log;
      ASSERT_TRUE(cubin.ok) << cubin.message;
      EXPECT_EQ(report.arch, arch);
      EXPECT_EQ(report.registers, cubin.registers);
      EXPECT_EQ(report.sharedBytes, cubin.sharedBytes);
      EXPECT_EQ(report.localBytes, cubin.localBytes);
    }
  }
}

TEST(KernelResources, UnknownKernelAndBadSourceAreErrors) {
  LF_REQUIRE_NVRTC();
  KernelResources missing = lf::runtime::cudaKernelResources(kKernels, "no_such_kernel");
  EXPECT_FALSE(missing.ok);
  EXPECT_NE(missing.message.find("no_such_kernel"), std::string::npos) << missing.message;
  KernelResources bad = lf::runtime::cudaKernelResources("this is not CUDA", "tiny");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.message.find("NVRTC could not compile"), std::string::npos) << bad.message;
  const std::string line = lf::runtime::formatKernelResources(bad);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_NE(line.find("unavailable"), std::string::npos) << line;
}

// Every prefix of a real cubin is refused with a message (the section table is at its end), and
// no single corrupted byte makes the reader read out of bounds (ASan/UBSan in CI check that).
TEST(KernelResources, TruncatedOrCorruptCubinIsAnErrorNotACrash) {
  LF_REQUIRE_NVRTC();
  lf::runtime::NvrtcOutput out = lf::runtime::compileCudaToCubin(kKernels, "sm_90");
  ASSERT_TRUE(out.ok) << out.log;
  ASSERT_TRUE(lf::runtime::readCubinResources(out.cubin, "with_shared").ok);
  for (size_t size = 0; size < out.cubin.size(); ++size) {
    KernelResources r = lf::runtime::readCubinResources(out.cubin.substr(0, size), "with_shared");
    ASSERT_FALSE(r.ok) << size;
    ASSERT_FALSE(r.message.empty()) << size;
  }
  for (size_t at = 0; at < out.cubin.size(); ++at) {
    for (unsigned char value : {0x00, 0x7f, 0xff}) {
      std::string corrupt = out.cubin;
      corrupt[at] = (char)value;
      KernelResources r = lf::runtime::readCubinResources(corrupt, "with_shared");
      EXPECT_TRUE(r.ok || !r.message.empty()) << at;
    }
  }
}

TEST(KernelResources, NonElfInputIsAnError) {
  for (const std::string& image : {std::string(), std::string("garbage"), std::string(100, '\0'),
                                   std::string("\x7f"
                                               "ELF\x01\x01",
                                               6) +
                                       std::string(80, '\0')}) {
    KernelResources r = lf::runtime::readCubinResources(image, "k");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.message.find("cannot read the cubin"), std::string::npos) << r.message;
  }
}

// The report format of ptxas 13 (NVRTC 13.0): the numbers are taken from the kernel's own block,
// not from the one before it nor from a device function's "Function properties".
TEST(KernelResources, ParsesThePtxasReport) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for helper\n"
      "ptxas         .     64 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'first' for 'sm_90'\n"
      "ptxas info    : Function properties for first\n"
      "ptxas         .     4000 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 32 registers, used 0 barriers, 4000 bytes cumulative stack size\n"
      "ptxas info    : Compile time = 29.455 ms\n"
      "ptxas info    : Compiling entry function 'second' for 'sm_90'\n"
      "ptxas info    : Function properties for second\n"
      "ptxas         .     16 bytes stack frame, 12 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 1200 bytes smem\n"
      "ptxas info    : Compile time = 2.432 ms\n";
  KernelResources first = lf::runtime::parsePtxasReport(log, "first");
  ASSERT_TRUE(first.ok) << first.message;
  EXPECT_EQ(first.arch, "sm_90");
  EXPECT_EQ(first.registers, 32);
  EXPECT_EQ(first.sharedBytes, 0);
  EXPECT_EQ(first.localBytes, 4000);
  KernelResources second = lf::runtime::parsePtxasReport(log, "second");
  ASSERT_TRUE(second.ok) << second.message;
  EXPECT_EQ(second.registers, 255);
  EXPECT_EQ(second.sharedBytes, 1200);
  EXPECT_EQ(second.localBytes, 16);
  EXPECT_EQ(second.spillStoreBytes, 12);
  EXPECT_EQ(second.spillLoadBytes, 4);
  EXPECT_FALSE(lf::runtime::parsePtxasReport(log, "helper").ok);  // not an entry
  EXPECT_FALSE(lf::runtime::parsePtxasReport(log, "firs").ok);
  EXPECT_FALSE(lf::runtime::parsePtxasReport("", "first").ok);
  EXPECT_FALSE(lf::runtime::parsePtxasReport("Compiling entry function 'first'\nUsed", "first").ok);
}

// Warps get registers in units of 256, and a block must fit in the four sub-partitions' 16 Ki
// registers each (cuda_occupancy.h); at most 1024 threads.
TEST(KernelResources, MaxThreadsForRegisters) {
  EXPECT_EQ(lf::runtime::maxThreadsForRegisters(0), 1024);
  EXPECT_EQ(lf::runtime::maxThreadsForRegisters(32), 1024);
  EXPECT_EQ(lf::runtime::maxThreadsForRegisters(64), 1024);
  EXPECT_EQ(lf::runtime::maxThreadsForRegisters(72), 896);
  EXPECT_EQ(lf::runtime::maxThreadsForRegisters(80), 768);
  EXPECT_EQ(lf::runtime::maxThreadsForRegisters(128), 512);
  EXPECT_EQ(lf::runtime::maxThreadsForRegisters(255), 256);
}

}  // namespace
