#include "runtime/host_compiler.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

namespace lf::runtime {
namespace {

// Single-quotes a path for the shell.
std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs a shell command, returning its exit status and everything it printed.
int runCapturing(const std::string& command, std::string& output) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string hostCompiler(const std::string& explicitCxx) {
  if (!explicitCxx.empty()) return explicitCxx;
  const char* env = std::getenv("CXX");
  return env != nullptr && *env != '\0' ? env : "c++";
}

// -O3 and -march=native let the compiler vectorize the kernel's loops (a dot's rows, elementwise
// chains); -ffp-contract=off and no fast-math keep every result the IEEE one, so vector code gives
// the same bits as scalar code. -fno-trapping-math changes no result either: it tells GCC that no
// float operation traps (the kernel never unmasks float exceptions, and XLA's LLVM assumes the
// same), so the select-based math of lf_xla_math.h (exp, tanh) may compute both arms and vectorize.
// -fno-math-errno changes no result either (the kernel never reads errno): with errno, GCC calls
// sqrtf for a negative argument to set it and keeps the loop scalar (erf_inv's sqrt in every
// jax.random.normal; scan_matmul 3.2 -> 2.5 ms, conv_sampler 13.9 -> 12.2 ms without it).
// The CPU that -march=native resolves to is part of the cache key (hostCompilerVersion), so a cache
// shared between machines never hands out foreign code. -fopenmp: a kernel with large stages splits
// them over an OpenMP team (LF_CPU_THREADS).
//
// A large kernel (blackjax's NUTS vmapped over 16 chains: 535 KB of source, nested while loops
// over groups of 8 chains) took GCC 12 -O3 52 s and 2 GB to compile, almost all of it in register
// allocation of the code that completely peeling every small loop had made; with peeling limited to
// loops of at most 4 trips and 40 instructions, 7 s, and the kernel ran 1.8x faster (5.6 ms per
// call, was 10.4). The limits are not for every kernel: they made small ones slower (the seed at
// batch 1: 4.6x faster than jax.jit instead of 6.3x), so they apply above kLargeKernelBytes
// (diffrax's Tsit5 solve, 290 KB, compiles in under a second either way).
constexpr size_t kLargeKernelBytes = 400 * 1024;

std::vector<std::string> hostCompilerFlags(const std::string& source) {
  std::vector<std::string> flags = {"-std=c++17",        "-O3",
                                    "-march=native",     "-fPIC",
                                    "-shared",           "-fno-strict-aliasing",
                                    "-fno-fast-math",    "-fno-trapping-math",
                                    "-ffp-contract=off", "-fno-math-errno",
                                    "-fopenmp"};
#if defined(__x86_64__)
  // XLA:CPU refines its rsqrt estimate once on AMD, twice on Intel (lf_xla_math.h).
  if (__builtin_cpu_is("amd")) flags.push_back("-DLF_X86_AMD=1");
#endif
  if (source.size() > kLargeKernelBytes) {
    flags.insert(flags.end(), {"--param", "max-completely-peeled-insns=40", "--param",
                               "max-completely-peel-times=4"});
  }
  return flags;
}

std::string hostCompilerVersion(const std::string& cxx) {
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = versions.find(cxx);
  if (it != versions.end()) return it->second;
  std::string output;
  if (runCapturing(cxx + " --version", output) != 0) {
    throw std::runtime_error("cannot run the host C++ compiler `" + cxx + " --version`: " + output +
                             "\nSet $CXX to a working C++17 compiler.");
  }
  // GCC names the CPU that -march=native means; other compilers print nothing here.
  std::string target;
  if (runCapturing(
          cxx + " -march=native -Q --help=target 2>/dev/null | grep -E '^ +-m(arch|tune)='",
          target) == 0) {
    output += target;
  }
  versions[cxx] = output;
  return output;
}

void compileSharedObject(const std::string& cxx, const std::string& source,
                         const std::string& outputPath) {
  std::string sourcePath = outputPath + ".cc";
  {
    std::ofstream out(sourcePath, std::ios::binary);
    out << source;
    if (!out) throw std::runtime_error("cannot write the kernel source to " + sourcePath);
  }
  std::string command = cxx;
  for (const std::string& flag : hostCompilerFlags(source)) command += " " + flag;
  command += " -o " + shellQuote(outputPath) + " " + shellQuote(sourcePath);
  std::string output;
  int status = runCapturing(command, output);
  std::error_code ignored;
  if (status != 0) {
    // Keep the source next to the error so that the report can include it.
    std::string kept = outputPath + ".failed.cc";
    std::filesystem::rename(sourcePath, kept, ignored);
    throw std::runtime_error(
        "internal error: the generated kernel did not compile (please report this, with the "
        "program). Command: " +
        command + "\nSource kept at " + kept + "\nCompiler output:\n" + output);
  }
  std::filesystem::remove(sourcePath, ignored);
}

}  // namespace lf::runtime
