#include "runtime/compile_cache.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "runtime/host_compiler.h"

namespace lf::runtime {
namespace {

std::string envOr(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

std::string cacheKey(const std::string& source, const std::vector<std::string>& flags,
                     const std::string& cxx) {
  std::string material = source;
  material += '\0';
  for (const std::string& flag : flags) material += flag + " ";
  material += '\0';
  material += hostCompilerVersion(cxx);
  return hashHex(material);
}

}  // namespace

std::string cacheDirectory(const CompileOptions& options) {
  if (!options.cacheDir.empty()) return options.cacheDir;
  std::string dir = envOr("LOOPFUSE_CACHE_DIR", "");
  if (!dir.empty()) return dir;
  std::string xdg = envOr("XDG_CACHE_HOME", "");
  if (!xdg.empty()) return xdg + "/loopfuse";
  std::string home = envOr("HOME", "");
  if (home.empty()) return std::filesystem::temp_directory_path().string() + "/loopfuse-cache";
  return home + "/.cache/loopfuse";
}

CompileStats compileCached(const std::string& source, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  std::string cxx = hostCompiler(options.cxx);
  std::string dir = cacheDirectory(options);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error("cannot create the compile cache directory " + dir + ": " +
                             ec.message());
  const std::vector<std::string> flags =
      hostCompilerFlags(source, hostOptimizationLevel(options.optLevel, "-O3"), cxx);
  CompileStats stats;
  stats.objectPath = dir + "/" + cacheKey(source, flags, cxx) + ".so";
  stats.cacheHit = std::filesystem::exists(stats.objectPath);
  if (!stats.cacheHit) {
    std::string temp =
        uniqueTempPath(dir + "/" + std::filesystem::path(stats.objectPath).stem().string());
    compileSharedObject(cxx, flags, source, temp, dir);
    // rename() is atomic: a concurrent reader sees no object or the whole object.
    std::filesystem::rename(temp, stats.objectPath, ec);
    if (ec) {
      std::filesystem::remove(temp, ec);
      throw std::runtime_error("cannot move the compiled kernel into the cache at " +
                               stats.objectPath);
    }
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

CompileStats cachedArtifact(const std::string& keyMaterial, const std::string& suffix,
                            const CompileOptions& options,
                            const std::function<std::string()>& build) {
  auto start = std::chrono::steady_clock::now();
  std::string dir = cacheDirectory(options);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw std::runtime_error("cannot create the compile cache directory " + dir + ": " +
                             ec.message());
  const std::string key = hashHex(keyMaterial);
  CompileStats stats;
  stats.objectPath = dir + "/" + key + suffix;
  stats.cacheHit = std::filesystem::exists(stats.objectPath);
  if (!stats.cacheHit) {
    const std::string bytes = build();
    const std::string temp = uniqueTempPath(dir + "/" + key);
    {
      std::ofstream file(temp, std::ios::binary);
      file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!file) throw std::runtime_error("cannot write the compiled kernel to " + temp);
    }
    std::filesystem::rename(temp, stats.objectPath, ec);
    if (ec) {
      std::filesystem::remove(temp, ec);
      throw std::runtime_error("cannot move the compiled kernel into the cache at " +
                               stats.objectPath);
    }
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace lf::runtime
