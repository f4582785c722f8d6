// Drives the built `loopfuse` binary: exit codes, messages on stderr, and that no input, however
// bad, crashes it (a crash shows up as a signal exit code or an "internal error" message).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/nvrtc.h"

namespace {

struct Result {
  int exitCode = -1;
  std::string out, err;
};

std::string testdata(const std::string& name) {
  return std::string(LF_SOURCE_DIR) + "/tests/tools/testdata/" + name;
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("loopfuse_cli_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// Runs `loopfuse ARGS` under `timeout 60` with the environment variables `env` ("A=1 B=2") set,
// capturing stdout, stderr and the exit code.
Result loopfuse(const std::string& args, const std::string& env = "") {
  const std::string errPath = tempPath("stderr.txt");
  const std::string command =
      "env " + env + " timeout 60 " + std::string(LF_LOOPFUSE_EXE) + " " + args + " 2>" + errPath;
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) r.out.append(buffer.data(), n);
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream err(errPath);
  std::stringstream text;
  text << err.rdbuf();
  r.err = text.str();
  std::filesystem::remove(errPath);
  return r;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A clean user error: exit code 2, a message, no crash and no "internal error".
void expectUserError(const Result& r, const std::string& message) {
  EXPECT_EQ(r.exitCode, 2) << r.err;
  EXPECT_TRUE(contains(r.err, message)) << "'" << message << "' not in stderr:\n" << r.err;
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
}

TEST(Cli, Version) {
  Result r = loopfuse("version");
  EXPECT_EQ(r.exitCode, 0);
  EXPECT_TRUE(contains(r.out, "loopfuse 0.")) << r.out;
}

TEST(Cli, BadArgumentsAreUserErrors) {
  EXPECT_EQ(loopfuse("").exitCode, 2);
  EXPECT_EQ(loopfuse("frobnicate").exitCode, 2);
  EXPECT_EQ(loopfuse("emit " + testdata("loop.hlo") + " --target tpu").exitCode, 2);
  EXPECT_EQ(loopfuse("run " + testdata("loop.hlo")).exitCode, 2);  // --inputs is required
  EXPECT_EQ(loopfuse("--help").exitCode, 0);
}

TEST(CliInspect, SupportedProgramExitsZero) {
  Result r = loopfuse("inspect " + testdata("loop.hlo"));
  EXPECT_EQ(r.exitCode, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "module: jit_loop")) << r.out;
  EXPECT_TRUE(contains(r.out, "parameter 0: x.1 f32[3]")) << r.out;
  EXPECT_TRUE(contains(r.out, "output 0: f32[3]")) << r.out;
  EXPECT_TRUE(contains(r.out, "main.3 (entry): 6 instructions")) << r.out;
  EXPECT_TRUE(contains(r.out, "get-tuple-element: 6")) << r.out;
  EXPECT_TRUE(contains(r.out, "loops: 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "while.5 (line 30, in main.3): depth 0, trip count 5")) << r.out;
  EXPECT_TRUE(contains(r.out, "unsupported: none")) << r.out;
}

TEST(CliInspect, UnsupportedOpExitsOneAndSaysWhere) {
  Result r = loopfuse("inspect " + testdata("complex_clamp.hlo"));
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_TRUE(contains(r.out, "clamp: 1")) << r.out;
  EXPECT_TRUE(contains(r.err, "complex_clamp.hlo:")) << r.err;
  EXPECT_TRUE(contains(r.err, "unsupported op 'clamp' on complex numbers (c64[3])")) << r.err;
  EXPECT_TRUE(contains(r.err, "error:")) << r.err;
  EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
}

TEST(CliInspect, MalformedFileExitsTwoWithLineAndColumn) {
  Result r = loopfuse("inspect " + testdata("malformed.hlo"));
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(contains(r.err, "malformed.hlo:4:")) << r.err;
  EXPECT_TRUE(contains(r.err, ": error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "p = f32[3 parameter(0)")) << r.err;  // the quoted line
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliInspect, MissingFile) {
  expectUserError(loopfuse("inspect " + testdata("no_such_file.hlo")), "no_such_file.hlo");
  expectUserError(loopfuse("inspect " + testdata("")), "directory");
}

TEST(CliRun, CheckAgainstJaxPasses) {
  Result r =
      loopfuse("run " + testdata("loop.hlo") + " --inputs " + testdata("loop.npz") + " --check");
  EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "output_0 f32[3]: max abs err")) << r.out;
  EXPECT_TRUE(contains(r.out, "ok")) << r.out;
  EXPECT_TRUE(contains(r.out, "compile: ")) << r.out;
}

TEST(CliRun, WritesOutputsThatReadBackAsTheExpectedOnes) {
  const std::string out = tempPath("outputs.npz");
  Result r = loopfuse("run " + testdata("loop.hlo") + " --inputs " + testdata("loop.npz") +
                      " --outputs " + out);
  EXPECT_EQ(r.exitCode, 0) << r.err;
  // 0.5, -1, 3 after five steps of c -> 2c + 1: 47, -1, 127.
  EXPECT_TRUE(contains(r.out, "output_0 f32[3] [47, -1, 127]")) << r.out;
  Result check = loopfuse("run " + testdata("loop.hlo") + " --inputs " + testdata("loop.npz") +
                          " --check --expected " + out);
  EXPECT_EQ(check.exitCode, 0) << check.out << check.err;
  std::filesystem::remove(out);
}

TEST(CliRun, WrongExpectedOutputExitsOne) {
  Result r = loopfuse("run " + testdata("loop.hlo") + " --inputs " + testdata("loop.npz") +
                      " --check --expected " + testdata("loop_wrong.npz"));
  EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "MISMATCH")) << r.out;
  EXPECT_TRUE(contains(r.out, "first at index 1")) << r.out;
}

TEST(CliRun, WrongInputsNameTheParameter) {
  const std::string run = "run " + testdata("loop.hlo") + " --inputs ";
  expectUserError(loopfuse(run + testdata("loop_two_inputs.npz")), "expected 1 inputs, got 2");
  expectUserError(loopfuse(run + testdata("loop_s32.npz")),
                  "parameter 0 (x.1): expected f32[3], got s32[3]");
  expectUserError(loopfuse(run + testdata("loop_shape.npz")),
                  "parameter 0 (x.1): expected f32[3], got f32[3,1]");
}

TEST(CliRun, BadNpzFilesAreCleanErrors) {
  const std::string run = "run " + testdata("loop.hlo") + " --inputs ";
  const std::string runtimeData = std::string(LF_SOURCE_DIR) + "/tests/runtime/testdata/";
  expectUserError(loopfuse(run + runtimeData + "garbage.npz"), "garbage.npz");
  expectUserError(loopfuse(run + runtimeData + "truncated.npz"), "truncated.npz");
  expectUserError(loopfuse(run + runtimeData + "complex.npz"), "complex");
  expectUserError(loopfuse(run + testdata("missing.npz")), "missing.npz");
  // --check with no output_0 to compare against.
  expectUserError(loopfuse(run + testdata("loop_s32.npz") + " --check --expected " +
                           testdata("loop_two_inputs.npz")),
                  "");
}

// Without a GPU, --target cuda is a clean user error naming the missing driver; with one, it runs.
// A run that reaches a host callback (Python) says which one and exits 1, on the CPU and in the
// CUDA kernel alike; the corpus inputs reach none and match JAX.
TEST(CliRun, ReachedHostCallbackIsNamed) {
  const std::string run = "run " + std::string(LF_SOURCE_DIR) +
                          "/tests/programs/loop_host_callback_checks.hlo --inputs ";
  for (const std::string target : {"", " --target cuda --emulate"}) {
    Result r = loopfuse(run + testdata("host_callback_nonfinite.npz") + target);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.err,
                         "host_callback_nonfinite.npz: the run reached host callback "
                         "pure_callback.1 (xla_ffi_python_cpu_callback) at line 11:8: "
                         "Python code, which loopfuse does not run"))
        << r.err;
    r = loopfuse(run + testdata("host_callback_slow.npz") + target);
    EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "the run reached host callback debug_callback.1")) << r.err;
    r = loopfuse(run + std::string(LF_SOURCE_DIR) +
                 "/tests/programs/loop_host_callback_checks.npz --check" + target);
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
  }
}

TEST(CliRun, CudaTargetRunsOrNamesTheMissingDriver) {
  Result r = loopfuse("run " + testdata("loop.hlo") + " --inputs " + testdata("loop.npz") +
                      " --target cuda");
  if (r.exitCode == 0) return;
  expectUserError(r, "CUDA");
}

TEST(CliRun, EmulateRunsTheCudaKernelOnTheHost) {
  const std::string run = "run " + testdata("loop.hlo") + " --inputs " + testdata("loop.npz");
  for (const std::string mode : {"thread", "block", "grid"}) {
    Result r = loopfuse(run + " --target cuda --emulate --check",
                        "LOOPFUSE_CUDA_MODE=" + mode + " LOOPFUSE_CUDA_EMU_ORDER=reverse");
    EXPECT_EQ(r.exitCode, 0) << mode << "\n" << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "ok")) << r.out;
  }
  expectUserError(loopfuse(run + " --emulate"), "--emulate runs a CUDA kernel on the host");
  expectUserError(loopfuse(run + " --target cuda --emulate", "LOOPFUSE_CUDA_EMU_ORDER=sideways"),
                  "LOOPFUSE_CUDA_EMU_ORDER must be forward or reverse");
}

TEST(CliShow, IrEmitExplain) {
  Result ir = loopfuse("ir " + testdata("loop.hlo"));
  EXPECT_EQ(ir.exitCode, 0) << ir.err;
  EXPECT_TRUE(contains(ir.out, "while")) << ir.out;
  for (const char* target : {"cpu", "cuda"}) {
    Result emit = loopfuse("emit " + testdata("loop.hlo") + " --target " + target);
    EXPECT_EQ(emit.exitCode, 0) << emit.err;
    EXPECT_FALSE(emit.out.empty());
    Result explain = loopfuse("explain " + testdata("loop.hlo") + " --target " + target);
    EXPECT_EQ(explain.exitCode, 0) << explain.err;
  }
  expectUserError(loopfuse("emit " + testdata("complex_clamp.hlo") + " --target cpu"),
                  "complex_clamp.hlo:");
  // --emulate prints the host build of the CUDA kernel: the emulation prelude and its launcher.
  Result emulated = loopfuse("emit " + testdata("loop.hlo") + " --target cuda --emulate");
  EXPECT_EQ(emulated.exitCode, 0) << emulated.err;
  EXPECT_TRUE(contains(emulated.out, "lf_emu_launch")) << emulated.out.substr(0, 400);
  EXPECT_TRUE(contains(emulated.out, "lf_emu::launchKernel"));
  expectUserError(loopfuse("emit " + testdata("loop.hlo") + " --target cpu --emulate"),
                  "--emulate prints the host build of a CUDA kernel; add --target cuda");
  expectUserError(loopfuse("ir " + testdata("malformed.hlo")), "malformed.hlo:4:");
}

}  // namespace

namespace {

TEST(CliRun, RepeatAndJsonReportTimeAndCheck) {
  Result r = loopfuse("run " + testdata("loop.hlo") + " --inputs " + testdata("loop.npz") +
                      " --check --repeat 3 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("time per call: "), std::string::npos) << r.out;
  // The last line is the JSON summary.
  std::string last = r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1);
  EXPECT_NE(last.find("\"ok\":true"), std::string::npos) << last;
  EXPECT_NE(last.find("\"repeats\":3"), std::string::npos) << last;
  EXPECT_NE(last.find("\"seconds_per_call\":"), std::string::npos) << last;
  EXPECT_EQ(last.find("\"seconds_per_call\":null"), std::string::npos) << last;
}

// docs/SUPPORTED_OPS.md is generated by `loopfuse supported-ops`; it must not be stale.
TEST(CliSupportedOps, DocumentMatchesTheImporter) {
  Result r = loopfuse("supported-ops");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  std::ifstream in(std::string(LF_SOURCE_DIR) + "/docs/SUPPORTED_OPS.md");
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_EQ(doc.str(), r.out)
      << "docs/SUPPORTED_OPS.md is stale: build/loopfuse supported-ops > docs/SUPPORTED_OPS.md";
  EXPECT_NE(r.out.find("| `while` |"), std::string::npos);
  EXPECT_NE(r.out.find("| `custom-call:cu_threefry2x32_ffi` |"), std::string::npos);
}

}  // namespace

namespace {

// `explain --target cuda` ends with what the kernel needs per thread and per block, from ptxas's
// report; without NVRTC, one line saying why, and still exit 0.
TEST(CliShow, ExplainCudaShowsKernelResources) {
  const std::string program = std::string(LF_SOURCE_DIR) + "/tests/programs/seed_x64.hlo";
  Result r = loopfuse("explain " + program + " --target cuda");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  if (!lf::runtime::nvrtcAvailable()) {
    EXPECT_TRUE(contains(r.out, "cuda resources (sm_90): unavailable: libnvrtc not found"))
        << r.out;
    const size_t line = r.out.rfind("cuda resources");
    GTEST_SKIP() << (line == std::string::npos ? "no libnvrtc" : r.out.substr(line));
  }
  EXPECT_TRUE(contains(r.out, "cuda resources (sm_90, from ptxas): ")) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, " registers/thread, ")) << r.out;
  EXPECT_TRUE(contains(r.out, " B shared, ")) << r.out;
  EXPECT_TRUE(contains(r.out, " B local (")) << r.out;
  EXPECT_TRUE(contains(r.out, " threads/block (")) << r.out;
  Result cpu = loopfuse("explain " + program + " --target cpu");
  ASSERT_EQ(cpu.exitCode, 0) << cpu.err;
  EXPECT_FALSE(contains(cpu.out, "cuda resources")) << cpu.out;
}

}  // namespace
