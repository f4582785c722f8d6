// The compile cache: a second compile of one program runs no compiler, and two processes compiling
// the same program at once both succeed.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/compile_cache.h"
#include "runtime/cpu_program_builder.h"

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
  // One object, no temporaries left behind.
  int objects = 0, others = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (e.path().extension() == ".so" ? objects : others)++;
  }
  EXPECT_EQ(objects, 1);
  EXPECT_EQ(others, 0);
}

}  // namespace
}  // namespace lf::testing
