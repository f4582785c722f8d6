// Test helpers: build IR programs by hand, run them through emit + the CPU executable, and read
// typed values back. Shared by tests/runtime/cpu_*_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "codegen/emit.h"
#include "ir/ir.h"
#include "runtime/executable.h"

namespace lf::testing {

inline ir::Type type(DType t, std::vector<int64_t> dims = {}) {
  return ir::Type{t, std::move(dims)};
}

template <class T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// Sets environment variables for one test and restores them.
class ScopedEnv {
 public:
  using Vars = std::vector<std::pair<std::string, std::string>>;
  explicit ScopedEnv(const Vars& vars) {
    for (auto& [k, v] : vars) {
      const char* old = std::getenv(k.c_str());
      saved_.push_back({k, old ? std::optional<std::string>(old) : std::nullopt});
      setenv(k.c_str(), v.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (auto& [k, v] : saved_) {
      if (v) {
        setenv(k.c_str(), v->c_str(), 1);
      } else {
        unsetenv(k.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

class ProgramBuilder {
 public:
  explicit ProgramBuilder(std::string name = "test") { program.name = std::move(name); }

  ir::Value* param(ir::Type t, std::string name = "") {
    return program.body.addArg(std::move(t), std::move(name));
  }
  template <class T>
  ir::Value* constant(ir::Type t, const std::vector<T>& values, ir::Region* region = nullptr) {
    ir::Region& r = region ? *region : program.body;
    return r
        .append(ir::OpKind::Constant, {}, {std::move(t)}, ir::ConstantAttrs{bytesOf(values)}, {},
                "constant." + std::to_string(counter_++))
        ->result();
  }
  ir::Op* op(ir::OpKind kind, std::vector<ir::Value*> operands, std::vector<ir::Type> results,
             ir::Attrs attrs = ir::NoAttrs{}, ir::Region* region = nullptr) {
    ir::Region& r = region ? *region : program.body;
    return r.append(kind, std::move(operands), std::move(results), std::move(attrs), {},
                    std::string(ir::opKindName(kind)) + "." + std::to_string(counter_++));
  }
  ir::Value* op1(ir::OpKind kind, std::vector<ir::Value*> operands, ir::Type result,
                 ir::Attrs attrs = ir::NoAttrs{}, ir::Region* region = nullptr) {
    return op(kind, std::move(operands), {std::move(result)}, std::move(attrs), region)->result();
  }
  void output(ir::Value* v) {
    program.body.yields.push_back(v);
    program.outputNames.push_back("output_" + std::to_string(program.outputNames.size()));
  }
  // A scalar binary region (a, b) -> kind(a, b), as reducers use.
  void binaryRegion(ir::Op* parent, ir::OpKind kind, DType t) {
    ir::Region* r = parent->addRegion();
    ir::Value* a = r->addArg(type(t), "a");
    ir::Value* b = r->addArg(type(t), "b");
    r->yields.push_back(op1(kind, {a, b}, type(t), ir::NoAttrs{}, r));
  }

  ir::Program program;

 private:
  int counter_ = 0;
};

template <class T>
runtime::HostArray array(DType t, std::vector<int64_t> dims, const std::vector<T>& values) {
  return runtime::HostArray{type(t, std::move(dims)), bytesOf(values)};
}

template <class T>
std::vector<T> values(const runtime::HostArray& a) {
  std::vector<T> out(a.data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), a.data.data(), a.data.size());
  return out;
}

// sum(x + x) over n s64 elements: a stage split over threads, then a reduction after a barrier;
// through a scratch buffer once n is large enough.
inline ir::Program doubledSumProgram(int64_t n) {
  using K = ir::OpKind;
  ProgramBuilder b("doubled_sum");
  ir::Value* x = b.param(type(DType::S64, {n}), "x");
  ir::Value* twice = b.op1(K::Add, {x, x}, type(DType::S64, {n}));
  ir::Value* zero = b.constant<int64_t>(type(DType::S64), {0});
  ir::Op* sum = b.op(K::Reduce, {twice, zero}, {type(DType::S64)}, ir::ReduceAttrs{{0}});
  b.binaryRegion(sum, K::Add, DType::S64);
  b.output(sum->result());
  return std::move(b.program);
}

inline runtime::CompileOptions testCompileOptions() {
  runtime::CompileOptions o;
  o.cacheDir = std::string(LF_BINARY_DIR) + "/test-kernel-cache";
  return o;
}

// Inputs of the register tiles' bit-exactness tests: values of both signs that vary along the
// array, the same on every run (the lhs and the rhs of a dot or a convolution differ).
template <class T>
std::vector<T> lhsTestValues(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(0.37) * T((i * 7) % 23) - T(3.1);
  return v;
}
template <class T>
std::vector<T> rhsTestValues(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = T(0.11) * T((i * 5) % 19) - T(0.9);
  return v;
}

// Makes the emitted CPU register tiles take their 32-byte (AVX2) variant whatever the host has:
// the `#if LF_CPU_VECTOR_BYTES == 64` of each tiled stage becomes `#if 0`.
inline void useNarrowVectors(codegen::EmittedKernel& k) {
  const std::string wide = "#if LF_CPU_VECTOR_BYTES == 64";
  for (size_t at = k.source.find(wide); at != std::string::npos; at = k.source.find(wide, at))
    k.source.replace(at, wide.size(), "#if 0");
}

// Verifies, emits for the CPU, compiles (through a cache in the build dir) and runs.
inline std::vector<runtime::HostArray> runCpu(const ir::Program& program,
                                              const std::vector<runtime::HostArray>& inputs) {
  std::vector<Diagnostic> problems = ir::verify(program);
  for (const Diagnostic& d : problems) ADD_FAILURE() << "verifier: " << d.message;
  if (!problems.empty()) return {};
  codegen::EmittedKernel k = codegen::emit(program, codegen::Target::Cpu);
  auto exe = runtime::Executable::compileCpu(k, testCompileOptions());
  return exe->run(inputs);
}

}  // namespace lf::testing
