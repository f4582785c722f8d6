// The CUDA prelude (lf_cuda.h + lf_common.h, as embedded for the emitter) compiles with NVRTC for
// compute_90 with no warning, with every scalar function instantiated for every element type it
// takes; the grid-mode barrier compiles too. Skipped only when no libnvrtc can be opened.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/prelude_sources.h"
#include "runtime/cpu_program_builder.h"
#include "runtime/nvrtc.h"

namespace {

struct ElementType {
  const char* cpp;
  bool isBool, isInt, isFloat;
  int bits;
};

const std::vector<ElementType>& elementTypes() {
  static const std::vector<ElementType> types = {
      {"bool", true, false, false, 8},      {"int8_t", false, true, false, 8},
      {"int16_t", false, true, false, 16},  {"int32_t", false, true, false, 32},
      {"int64_t", false, true, false, 64},  {"uint8_t", false, true, false, 8},
      {"uint16_t", false, true, false, 16}, {"uint32_t", false, true, false, 32},
      {"uint64_t", false, true, false, 64}, {"lf_f16", false, false, true, 16},
      {"lf_bf16", false, false, true, 16},  {"float", false, false, true, 32},
      {"double", false, false, true, 64},
  };
  return types;
}

const char* const kFloatUnary[] = {"lf_floor",
                                   "lf_ceil",
                                   "lf_round_nearest_afz",
                                   "lf_round_nearest_even",
                                   "lf_exponential",
                                   "lf_exponential_minus_one",
                                   "lf_log",
                                   "lf_log_plus_one",
                                   "lf_sqrt",
                                   "lf_rsqrt",
                                   "lf_cbrt",
                                   "lf_tanh",
                                   "lf_logistic",
                                   "lf_sine",
                                   "lf_cosine",
                                   "lf_tan",
                                   "lf_erf"};
const char* const kNumberUnary[] = {"lf_abs", "lf_negate", "lf_sign"};
const char* const kNumberBinary[] = {"lf_add",       "lf_subtract", "lf_multiply", "lf_divide",
                                     "lf_remainder", "lf_power",    "lf_maximum",  "lf_minimum"};
const char* const kIntBinary[] = {"lf_and",
                                  "lf_or",
                                  "lf_xor",
                                  "lf_shift_left",
                                  "lf_shift_right_logical",
                                  "lf_shift_right_arithmetic"};
const char* const kCompares[] = {"eq", "ne", "lt", "le", "gt", "ge"};

// One device function per element type that calls every op taking that type, reading operands
// from `in` and writing every result, so nothing is optimised away before code generation.
std::string instantiateAll() {
  std::string s;
  const auto& types = elementTypes();
  for (size_t t = 0; t < types.size(); ++t) {
    const ElementType& e = types[t];
    const std::string T = e.cpp, n = std::to_string(t);
    s += "__device__ void lf_use_" + n + "(const LfKernelArgs& args) {\n";
    s += "  const " + T + "* in = (const " + T + "*)args.in[" + n + "];\n";
    s += "  " + T + "* out = (" + T + "*)args.out[" + n + "];\n";
    s += "  bool* flags = (bool*)args.out[" + std::to_string(types.size()) + "];\n";
    s += "  const " + T + " a = in[0], b = in[1], c = in[2];\n  int k = 0, f = 0;\n  (void)c;\n";
    auto put = [&](const std::string& call) { s += "  out[k++] = " + call + ";\n"; };
    auto flag = [&](const std::string& call) { s += "  flags[f++] = " + call + ";\n"; };
    if (!e.isBool) {
      for (const char* op : kNumberUnary) put(std::string(op) + "(a)");
      for (const char* op : kNumberBinary) put(std::string(op) + "(a, b)");
      put("lf_clamp(a, b, c)");
    }
    if (e.isFloat) {
      for (const char* op : kFloatUnary) put(std::string(op) + "(a)");
      put("lf_atan2(a, b)");
      for (const char* widths : {"5, 10", "1, 0", "64, 64"})
        put(std::string("lf_reduce_precision<") + widths + ">(a)");
      flag("lf_is_finite(a)");
      for (const char* cmp : kCompares)
        flag(std::string("lf_compare_totalorder_") + cmp + "(a, b)");
    }
    if (e.isInt || e.isBool) {
      put("lf_not(a)");
      for (const char* op : {"lf_and", "lf_or", "lf_xor"}) put(std::string(op) + "(a, b)");
    }
    if (e.isInt) {
      put("lf_popcnt(a)");
      put("lf_count_leading_zeros(a)");
      for (const char* op : kIntBinary) put(std::string(op) + "(a, b)");
    }
    for (const char* cmp : kCompares) flag(std::string("lf_compare_") + cmp + "(a, b)");
    put("lf_select(flags[0], a, b)");
    // Every conversion from this type, and every bitcast to a type of the same width.
    for (size_t u = 0; u < types.size(); ++u) {
      const std::string to = types[u].cpp, m = std::to_string(u);
      s += "  ((" + to + "*)args.out[" + m + "])[64 + " + n + "] = lf_convert<" + to + ">(a);\n";
      if (types[u].bits == e.bits && !types[u].isBool && !e.isBool) {
        s += "  ((" + to + "*)args.out[" + m + "])[80 + " + n + "] = lf_bitcast<" + to + ">(b);\n";
      }
    }
    s += "}\n";
  }
  s += "extern \"C\" __global__ void lf_prelude_check(LfKernelArgs args) {\n";
  s += "  LF_SHARED float staged[32];\n";
  s += "  staged[LF_TID % 32] = (float)LF_NTHREADS;\n  LF_BARRIER();\n";
  for (size_t t = 0; t < types.size(); ++t) s += "  lf_use_" + std::to_string(t) + "(args);\n";
  s += "  uint32_t* r = (uint32_t*)args.scratch;\n";
  s += "  lf_threefry2x32(r[0], r[1], r[2], (uint32_t)staged[0], &r[3], &r[4]);\n";
  // The linear-algebra ports (lf_linalg.h), f32 and f64: QR of a 3 x 2 matrix, eigh of a 3 x 3.
  for (const char* t : {"float", "double"}) {
    const std::string p = std::string("((") + t + "*)args.scratch + 64)";
    s += "  lf_geqrf(" + p + ", 3, 2, " + p + " + 6);\n";
    s += "  lf_orgqr(" + p + ", 3, 2, 2, " + p + " + 6);\n";
    s += "  r[5] += (uint32_t)lf_syevd_lower(" + p + " + 8, 3, " + p + " + 17, " + p + " + 20, " +
         "(int32_t*)args.scratch + 512);\n";
  }
  s += "}\n";
  return s;
}

std::string prelude() {
  return lf::codegen::preludeText("lf_cuda.h") + lf::codegen::preludeText("lf_common.h");
}

TEST(NvrtcPrelude, PreludeHeadersAreEmbedded) {
  EXPECT_NE(lf::codegen::preludeFile("lf_cuda.h").find("struct LfKernelArgs"), std::string::npos);
  EXPECT_NE(lf::codegen::preludeFile("lf_cpu.h").find("#define LF_TID 0"), std::string::npos);
  EXPECT_NE(lf::codegen::preludeFile("lf_common.h").find("lf_threefry2x32"), std::string::npos);
  EXPECT_TRUE(lf::codegen::preludeFile("no_such_file.h").empty());
}

TEST(NvrtcPrelude, EveryScalarFunctionCompilesWithoutWarnings) {
  if (!lf::runtime::nvrtcAvailable()) GTEST_SKIP() << "libnvrtc not found";
  const lf::runtime::NvrtcOutput out = lf::runtime::compileCudaToPtx(prelude() + instantiateAll());
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.log, "");
  EXPECT_NE(out.ptx.find(".entry lf_prelude_check"), std::string::npos);
  EXPECT_NE(out.ptx.find(".target sm_90"), std::string::npos);
}

TEST(NvrtcPrelude, GridModeBarrierCompiles) {
  if (!lf::runtime::nvrtcAvailable()) GTEST_SKIP() << "libnvrtc not found";
  const std::string kernel = R"(
extern "C" __global__ void lf_grid_check(LfKernelArgs args) {
  float* data = (float*)args.out[0];
  for (int i = LF_TID; i < 1000; i += LF_NTHREADS) data[i] = lf_tanh((float)i);
  LF_BARRIER();
  if (LF_TID == 0) data[0] = data[999];
}
)";
  const lf::runtime::NvrtcOutput out =
      lf::runtime::compileCudaToPtx("#define LF_GRID_MODE 1\n" + prelude() + kernel);
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.log, "");
  EXPECT_NE(out.ptx.find("atom.global.add"), std::string::npos);  // the grid barrier's arrival
}

TEST(NvrtcPrelude, ReportsErrorsInTheLog) {
  if (!lf::runtime::nvrtcAvailable()) GTEST_SKIP() << "libnvrtc not found";
  const lf::runtime::NvrtcOutput out =
      lf::runtime::compileCudaToPtx("extern \"C\" __global__ void k() { undeclared_name = 1; }");
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("undeclared_name"), std::string::npos) << out.log;
  EXPECT_TRUE(out.ptx.empty());
}

TEST(NvrtcPrelude, VersionIsKnownWhenAvailable) {
  if (!lf::runtime::nvrtcAvailable()) GTEST_SKIP() << "libnvrtc not found";
  EXPECT_NE(lf::runtime::nvrtcVersion().find('.'), std::string::npos);
}

// Where NVRTC is looked for: the explicit path first, a pip wheel's copy (set by the Python
// package) only after the loader's path and the toolkit folders, so an installed toolkit wins.
TEST(NvrtcSearch, ExplicitPathFirstPipFallbackLast) {
  lf::testing::ScopedEnv env({{"LOOPFUSE_NVRTC_PATH", "/opt/explicit/libnvrtc.so.12"},
                              {"CUDA_HOME", "/opt/toolkit"},
                              {"LOOPFUSE_NVRTC_FALLBACK_PATH", "/site-packages/nvidia/cu13/lib"}});
  const std::vector<std::string> paths = lf::runtime::nvrtcCandidatePaths();
  ASSERT_FALSE(paths.empty());
  EXPECT_EQ(paths.front(), "/opt/explicit/libnvrtc.so.12");
  EXPECT_EQ(paths[1], "libnvrtc.so.13");  // the loader's path
  auto at = [&](const std::string& p) {
    return std::find(paths.begin(), paths.end(), p) - paths.begin();
  };
  const auto toolkit = at("/opt/toolkit/lib64/libnvrtc.so.13");
  const auto usrLocal = at("/usr/local/cuda/lib64/libnvrtc.so.13");
  const auto pip13 = at("/site-packages/nvidia/cu13/lib/libnvrtc.so.13");
  const auto pip12 = at("/site-packages/nvidia/cu13/lib/libnvrtc.so.12");
  ASSERT_LT(pip12, static_cast<long>(paths.size()));
  EXPECT_LT(toolkit, usrLocal);
  EXPECT_LT(usrLocal, pip13);
  EXPECT_LT(pip13, pip12);
  EXPECT_EQ(paths.back(), "/site-packages/nvidia/cu13/lib/libnvrtc.so");
}

TEST(NvrtcSearch, UnsetVariablesAddNothing) {
  // Empty counts as unset.
  lf::testing::ScopedEnv env(
      {{"LOOPFUSE_NVRTC_PATH", ""}, {"CUDA_HOME", ""}, {"LOOPFUSE_NVRTC_FALLBACK_PATH", ""}});
  const std::vector<std::string> paths = lf::runtime::nvrtcCandidatePaths();
  const std::vector<std::string> expected = {"libnvrtc.so.13",
                                             "libnvrtc.so.12",
                                             "libnvrtc.so",
                                             "/usr/local/cuda/lib64/libnvrtc.so.13",
                                             "/usr/local/cuda/lib64/libnvrtc.so.12",
                                             "/usr/local/cuda/lib64/libnvrtc.so"};
  EXPECT_EQ(paths, expected);
}

TEST(NvrtcSearch, ExtraOptionsFromTheEnvironmentFollowTheDefaults) {
  lf::testing::ScopedEnv env(lf::testing::ScopedEnv::Vars{
      {"LOOPFUSE_NVRTC_OPTIONS", "  --ptxas-options=-O1   -lineinfo "}});
  const std::vector<std::string> options = lf::runtime::nvrtcDefaultOptions("sm_90");
  const std::vector<std::string> expected = {"--gpu-architecture=sm_90", "-std=c++17",
                                             "--fmad=false", "--ptxas-options=-O1", "-lineinfo"};
  EXPECT_EQ(options, expected);
}

}  // namespace
