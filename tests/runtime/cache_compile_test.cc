// The compile cache: a second compile of one program runs no compiler, two processes compiling
// the same program at once both succeed, and the system headers come precompiled.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "codegen/emit.h"
#include "runtime/compile_cache.h"
#include "runtime/cpu_program_builder.h"
#include "runtime/host_compiler.h"

namespace lf::testing {
namespace {

namespace fs = std::filesystem;

// A fresh directory for one test, removed when the test ends (pass or fail).
struct FreshDir {
  explicit FreshDir(const std::string& name)
      : path(std::string(LF_BINARY_DIR) + "/cache-test-" + name + "-" + std::to_string(getpid())) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~FreshDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  FreshDir(const FreshDir&) = delete;
  FreshDir& operator=(const FreshDir&) = delete;
  const std::string path;
};

ir::Program addOne() {
  ProgramBuilder b("add_one");
  ir::Value* x = b.param(type(DType::S32, {3}), "x");
  ir::Value* one = b.constant<int32_t>(type(DType::S32, {3}), {1, 1, 1});
  b.output(b.op1(ir::OpKind::Add, {x, one}, type(DType::S32, {3})));
  return std::move(b.program);
}

int countLines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

TEST(CacheCompile, SecondCompileRunsNoCompiler) {
  const FreshDir fresh("hit");
  const std::string& dir = fresh.path;
  std::string script = dir + "/counting-cxx.sh";
  std::string count = dir + "/compiles";
  {
    std::ofstream s(script);
    s << "#!/bin/sh\n"
      << "case \"$1\" in --version | -march=native) exec c++ \"$@\";; esac\n"
      << "case \"$*\" in *c++-header*) exec c++ \"$@\";; esac\n"     // the system headers, once
      << "case \"$*\" in *-fsyntax-only*) exec c++ \"$@\";; esac\n"  // flag probes, once
      << "echo compile >> '" << count << "'\n"
      << "exec c++ \"$@\"\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  runtime::CompileOptions options;
  options.cacheDir = dir + "/cache";
  options.cxx = script;
  ir::Program program = addOne();
  codegen::EmittedKernel kernel = codegen::emit(program, codegen::Target::Cpu);

  auto first = runtime::Executable::compileCpu(kernel, options);
  EXPECT_FALSE(first->stats().cacheHit);
  EXPECT_EQ(countLines(count), 1);
  auto second = runtime::Executable::compileCpu(kernel, options);
  EXPECT_TRUE(second->stats().cacheHit);
  EXPECT_EQ(countLines(count), 1);
  EXPECT_EQ(first->stats().objectPath, second->stats().objectPath);

  auto out = second->run({array<int32_t>(DType::S32, {3}, {1, 2, -1})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(values<int32_t>(out[0]), (std::vector<int32_t>{2, 3, 0}));
}

// Sets an environment variable for one scope, restoring the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) saved_ = old;
    hadValue_ = old != nullptr;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (hadValue_) {
      setenv(name_, saved_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::string saved_;
  bool hadValue_ = false;
};

TEST(CacheCompile, DirectoryFollowsOptionsThenEnvironment) {
  ScopedEnv noCacheDir("LOOPFUSE_CACHE_DIR", nullptr);
  ScopedEnv noXdg("XDG_CACHE_HOME", nullptr);
  runtime::CompileOptions options;
  options.cacheDir = "/some/dir";
  EXPECT_EQ(runtime::cacheDirectory(options), "/some/dir");
  {
    ScopedEnv cacheDir("LOOPFUSE_CACHE_DIR", "/from/env");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(runtime::cacheDirectory({}), "/from/env");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(runtime::cacheDirectory({}), "/xdg/loopfuse");
  }
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(runtime::cacheDirectory({}), "/home/someone/.cache/loopfuse");
}

TEST(CacheCompile, TwoProcessesCompilingAtOnceBothSucceed) {
  const FreshDir fresh("race");
  const std::string& dir = fresh.path;
  ir::Program program = addOne();
  codegen::EmittedKernel kernel = codegen::emit(program, codegen::Target::Cpu);
  runtime::CompileOptions options;
  options.cacheDir = dir;
  pid_t children[2];
  for (pid_t& child : children) {
    child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int status = 1;
      try {
        auto exe = runtime::Executable::compileCpu(kernel, options);
        auto out = exe->run({array<int32_t>(DType::S32, {3}, {5, 6, 7})});
        if (values<int32_t>(out.at(0)) == std::vector<int32_t>{6, 7, 8}) status = 0;
      } catch (...) {
      }
      _exit(status);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  // One object and one precompiled header, no temporaries left behind.
  int objects = 0, headerDirs = 0, others = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".so") {
      ++objects;
    } else if (e.is_directory() && e.path().filename().string().rfind("pch-", 0) == 0) {
      ++headerDirs;
      for (const auto& f : fs::directory_iterator(e.path())) {
        const std::string name = f.path().filename().string();
        EXPECT_TRUE(name == "lf_system.h" || name == "lf_system.h.gch") << name;
      }
    } else {
      ++others;
    }
  }
  EXPECT_EQ(objects, 1);
  EXPECT_EQ(headerDirs, 1);
  EXPECT_EQ(others, 0);
}

// The one precompiled header in `cacheDir` ("" when there is none).
std::string precompiledHeaderIn(const std::string& cacheDir) {
  for (const auto& e : fs::directory_iterator(cacheDir)) {
    if (e.is_directory() && fs::exists(e.path() / "lf_system.h.gch"))
      return (e.path() / "lf_system.h").string();
  }
  return "";
}

// Runs `command`, returning what it printed on stdout and stderr.
std::string outputOf(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  pclose(pipe);
  return out;
}

// The system headers are compiled once into the cache, and GCC takes that form (its -H marks a
// precompiled header it used with "!") with the very flags of a kernel's compile.
TEST(CacheCompile, SystemHeadersArePrecompiledAndUsed) {
  const FreshDir fresh("pch");
  runtime::CompileOptions options;
  options.cacheDir = fresh.path;
  codegen::EmittedKernel kernel = codegen::emit(addOne(), codegen::Target::Cpu);
  auto exe = runtime::Executable::compileCpu(kernel, options);
  EXPECT_EQ(values<int32_t>(exe->run({array<int32_t>(DType::S32, {3}, {0, 1, 2})}).at(0)),
            (std::vector<int32_t>{1, 2, 3}));
  const std::string header = precompiledHeaderIn(fresh.path);
  ASSERT_FALSE(header.empty()) << "no lf_system.h.gch under " << fresh.path;

  const std::string source = fresh.path + "/kernel.cc";
  std::ofstream(source) << kernel.source;
  std::string command = runtime::hostCompiler("");
  const std::string level = runtime::hostOptimizationLevel("", "-O3");
  for (const std::string& flag : runtime::hostCompilerFlags(kernel.source, level)) {
    if (flag != "-shared") command += " " + flag;
  }
  command += " -H -fsyntax-only -include " + header + " " + source;
  const std::string trace = outputOf(command);
  EXPECT_NE(trace.find("! " + header + ".gch"), std::string::npos) << command << "\n" << trace;
}

// The emitter's kCpuWideVectorsDefine, first in the source, asks for 512-bit vectors; nothing else
// does (a define further down is the kernel's own text).
TEST(CacheCompile, WideVectorsOnlyWhereTheSourceStartsWithTheDefine) {
  auto prefers = [](const std::string& source) {
    for (const std::string& flag : runtime::hostCompilerFlags(source, "-O3"))
      if (flag == "-mprefer-vector-width=512") return true;
    return false;
  };
  EXPECT_TRUE(prefers(std::string(codegen::kCpuWideVectorsDefine) + "int x;\n"));
  EXPECT_FALSE(prefers("int x;\n"));
  EXPECT_FALSE(prefers(std::string("int x;\n") + codegen::kCpuWideVectorsDefine));
}

// A compiler that cannot precompile the headers still builds the kernel, from the text.
TEST(CacheCompile, KernelCompilesWhenTheHeadersCannotBePrecompiled) {
  const FreshDir fresh("no-pch");
  const std::string script = fresh.path + "/no-header-cxx.sh";
  {
    std::ofstream s(script);
    s << "#!/bin/sh\n"
      << "case \"$*\" in *c++-header*) echo 'no precompiled headers here' >&2; exit 1;; esac\n"
      << "exec c++ \"$@\"\n";
  }
  fs::permissions(script, fs::perms::owner_all);
  runtime::CompileOptions options;
  options.cacheDir = fresh.path + "/cache";
  options.cxx = script;
  codegen::EmittedKernel kernel = codegen::emit(addOne(), codegen::Target::Cpu);
  auto exe = runtime::Executable::compileCpu(kernel, options);
  EXPECT_EQ(values<int32_t>(exe->run({array<int32_t>(DType::S32, {3}, {4, 5, 6})}).at(0)),
            (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(precompiledHeaderIn(options.cacheDir), "");
}

// The optimization level: the option, else $LOOPFUSE_CXX_OPT, else the caller's default; a value
// that is no level is an error that names where it came from.
TEST(CacheCompile, OptimizationLevelFollowsOptionThenEnvironment) {
  {
    ScopedEnv none("LOOPFUSE_CXX_OPT", nullptr);
    EXPECT_EQ(runtime::hostOptimizationLevel("", "-O3"), "-O3");
    EXPECT_EQ(runtime::hostOptimizationLevel("-O2", "-O3"), "-O2");
    try {
      runtime::hostOptimizationLevel("-O9", "-O3");
      ADD_FAILURE() << "no error for -O9";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()),
                "optimization level '-O9': expected -O0, -O1, -O2, -O3 or -Os");
    }
  }
  ScopedEnv env("LOOPFUSE_CXX_OPT", "-O1");
  EXPECT_EQ(runtime::hostOptimizationLevel("", "-O3"), "-O1");
  EXPECT_EQ(runtime::hostOptimizationLevel("-Os", "-O3"), "-Os");
  ScopedEnv bad("LOOPFUSE_CXX_OPT", "fast");
  try {
    runtime::hostOptimizationLevel("", "-O3");
    ADD_FAILURE() << "no error for LOOPFUSE_CXX_OPT=fast";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "optimization level 'fast' (from $LOOPFUSE_CXX_OPT): expected -O0, -O1, -O2, -O3 or "
              "-Os");
  }
  // A kernel compile reports it.
  codegen::EmittedKernel kernel = codegen::emit(addOne(), codegen::Target::Cpu);
  EXPECT_THROW(runtime::Executable::compileCpu(kernel), std::runtime_error);
}

// Each level is its own cached object: an -O1 kernel never answers for an -O3 one.
TEST(CacheCompile, EachOptimizationLevelIsItsOwnObject) {
  const FreshDir fresh("levels");
  runtime::CompileOptions options;
  options.cacheDir = fresh.path;
  codegen::EmittedKernel kernel = codegen::emit(addOne(), codegen::Target::Cpu);
  options.optLevel = "-O1";
  auto low = runtime::Executable::compileCpu(kernel, options);
  options.optLevel = "-O3";
  auto high = runtime::Executable::compileCpu(kernel, options);
  EXPECT_FALSE(high->stats().cacheHit);
  EXPECT_NE(low->stats().objectPath, high->stats().objectPath);
  EXPECT_EQ(values<int32_t>(low->run({array<int32_t>(DType::S32, {3}, {7, 8, 9})}).at(0)),
            (std::vector<int32_t>{8, 9, 10}));
}

}  // namespace
}  // namespace lf::testing
