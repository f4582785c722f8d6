// The host C++ compiler that builds CPU kernels into shared objects. The flags live here, in one
// place: no fast-math and no FMA contraction, so results are reproducible; -march=native, with the
// CPU it resolves to in the cache key.
#pragma once

#include <string>
#include <vector>

namespace lf::runtime {

// xxhash64 of `material` as 16 hex digits: the cache's keys.
std::string hashHex(const std::string& material);
// `base` + ".tmp.<pid>.<n>": a file name no other thread or process uses at the same time, for
// writing a cache file that is then renamed into place.
std::string uniqueTempPath(const std::string& base);

// The compiler command: `explicitCxx` when not empty, else $CXX, else "c++".
std::string hostCompiler(const std::string& explicitCxx);
// The optimization level: `requested` when not empty, else $LOOPFUSE_CXX_OPT, else `fallback`.
// Throws std::runtime_error for anything but -O0, -O1, -O2, -O3 and -Os.
std::string hostOptimizationLevel(const std::string& requested, const std::string& fallback);
// The flags for `source` at `optLevel` with compiler `cxx` (part of the cache key): large kernels
// also limit GCC's complete peeling of loops (kLargeKernelBytes in host_compiler.cc says why), and
// vector gathers are off where `cxx` accepts a flag for it (noGatherFlags says why).
std::vector<std::string> hostCompilerFlags(const std::string& source,
                                           const std::string& optLevel = "-O3",
                                           const std::string& cxx = hostCompiler(""));
// The output of `<cxx> --version` (part of the cache key); memoised per compiler.
std::string hostCompilerVersion(const std::string& cxx);
// Compiles `source` with `flags` (hostCompilerFlags) into the shared object `outputPath`. On
// failure throws std::runtime_error with the compiler's messages (an internal error: generated code
// should always compile). The system headers come precompiled from `cacheDir` (built there on first
// use; none when empty).
void compileSharedObject(const std::string& cxx, const std::vector<std::string>& flags,
                         const std::string& source, const std::string& outputPath,
                         const std::string& cacheDir);

}  // namespace lf::runtime
