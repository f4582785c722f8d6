// The generated source of every corpus program compiles with no warning under -Wall -Wextra
// -Wshadow=local, for the CPU and for the CUDA emulator (the CUDA source with the host prelude).
// A name clash between two generated scopes is a silent wrong answer when the inner name hides one
// the inner code means to read (a fused dynamic slice's start `s1` once hid a dynamic update
// slice's own `s1`); -Wshadow=local finds every such clash before it reads the wrong value. NVRTC
// has no shadowing warning, so the emulator's source stands in for the CUDA kernel's. Syntax only:
// the compiler parses and checks, and builds nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "codegen/emit.h"
#include "corpus_files.h"
#include "runtime/cuda_emulator.h"
#include "runtime/host_compiler.h"

namespace lf {
namespace {

using namespace corpus;  // NOLINT(google-build-using-namespace): the shared helpers

// The kernel's build flags (hostCompilerFlags) with warnings as errors, checking syntax only.
// Without `vectors`, no -march=native: the emulator's source has no vector code, and the intrinsics
// headers -march=native brings in are half of a small kernel's parse.
std::vector<std::string> warningFlags(const std::string& source, bool vectors) {
  std::vector<std::string> flags;
  for (const std::string& flag : runtime::hostCompilerFlags(source, "-O0"))
    if (flag != "-shared" && (vectors || flag != "-march=native")) flags.push_back(flag);
  flags.insert(flags.end(), {"-fsyntax-only", "-Wall", "-Wextra", "-Wshadow=local", "-Werror"});
  return flags;
}

// Compiles `source` for syntax with warnings as errors; on x86 a second time for AVX-512 when the
// source has code for it, so both of the CPU's vector widths are checked on any machine.
void expectNoWarnings(const std::string& what, const std::string& source, bool vectors) {
  const fs::path dir = fs::temp_directory_path() / ("lf_warnings_" + runtime::hashHex(source));
  fs::create_directories(dir);
  std::vector<std::vector<std::string>> builds = {warningFlags(source, vectors)};
#if defined(__x86_64__)
  if (vectors && source.find("LF_CPU_VECTOR_BYTES == 64") != std::string::npos) {
    builds.push_back(builds.front());
    builds.back().push_back("-march=x86-64-v4");
  }
#endif
  for (const std::vector<std::string>& flags : builds) {
    try {
      runtime::compileSharedObject(runtime::hostCompiler(""), flags, source,
                                   (dir / "kernel.so").string(), "");
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": the generated source draws a warning:\n" << e.what();
    }
  }
  std::error_code ignored;
  fs::remove_all(dir, ignored);
}

class CorpusWarnings : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusWarnings, GeneratedSourceCompilesClean) {
  const std::string file = GetParam();
  const SourceFile source((corpusDir() / file).string(), readFile(corpusDir() / file));
  ir::Program program = importFile(source);
  if (!endsWith(file, ".cuda.hlo")) {
    const codegen::EmittedKernel cpu = codegen::emit(program, codegen::Target::Cpu);
    if (!batchedOnly() || cpu.chains > 0) expectNoWarnings(file + " (cpu)", cpu.source, true);
  }
  const codegen::EmittedKernel cuda = codegen::emit(program, codegen::Target::Cuda);
  if (!batchedOnly() || cuda.chains > 0)
    expectNoWarnings(file + " (cuda, emulated)", runtime::cudaEmulatorSource(cuda), false);
}

INSTANTIATE_TEST_SUITE_P(Programs, CorpusWarnings, ::testing::ValuesIn(corpusFiles(true)),
                         testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusWarnings);

}  // namespace
}  // namespace lf
