// Complex arrays import as (real, imaginary) pairs of real arrays: an entry parameter is sliced
// into its parts and a complex output joined back, arithmetic becomes XLA's formulas on the parts,
// and fft becomes one fft op per dimension. Ops with no complex rule, and malformed ffts, are
// errors at the instruction.
#include <gtest/gtest.h>

#include "frontend/test_util.h"

namespace lf::frontend::testing {
namespace {

void expectAll(const std::string& ir, const std::vector<std::string>& lines) {
  for (const std::string& l : lines) EXPECT_NE(ir.find(l), std::string::npos) << l << "\n" << ir;
}

TEST(ComplexImport, ParametersAndOutputsAreInterleavedPairs) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  z = c64[3] parameter(0)
  ROOT n = c64[3] negate(z)
})");
  expectAll(ir, {"program m(%0: f32[3,2]) -> (f32[3,2])",
                 "%1 = slice(%0) slice={[0:3:1], [0:1:1]} : f32[3,1]",
                 "%3 = slice(%0) slice={[0:3:1], [1:2:1]} : f32[3,1]", "%5 = negate(%2) : f32[3]",
                 "%6 = negate(%4) : f32[3]", "%9 = concatenate(%7, %8) dimension=1 : f32[3,2]"});
}

TEST(ComplexImport, MultiplyAndDotOnTheParts) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  a = c128[2] parameter(0)
  b = c128[2] parameter(1)
  p = c128[2] multiply(a, b)
  d = c128[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = (c128[2], c128[]) tuple(p, d)
})");
  // (a + bi)(x + yi) = (ax - by) + (ay + bx)i; a complex dot is four real dots.
  expectAll(ir, {"%10 = multiply(%3, %7) : f64[2]", "%11 = multiply(%5, %9) : f64[2]",
                 "%12 = multiply(%3, %9) : f64[2]", "%13 = multiply(%5, %7) : f64[2]",
                 "%14 = subtract(%10, %11) : f64[2]", "%15 = add(%12, %13) : f64[2]",
                 "%16 = dot(%3, %7)", "%17 = dot(%5, %9)", "%18 = dot(%3, %9)", "%19 = dot(%5, %7)",
                 "%20 = subtract(%16, %17) : f64[]", "%21 = add(%18, %19) : f64[]",
                 "%27 = concatenate(%25, %26) dimension=0 : f64[2]", "return %24, %27"});
}

TEST(ComplexImport, LoopsCarryBothParts) {
  std::string ir = importText(R"(HloModule m
cond {
  s = (s32[], c64[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], c64[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  z = c64[4] get-tuple-element(s), index=1
  zz = c64[4] multiply(z, z)
  ROOT r = (s32[], c64[4]) tuple(j, zz)
}
ENTRY main {
  z = c64[4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], c64[4]) tuple(zero, z)
  w = (s32[], c64[4]) while(init), condition=cond, body=body
  ROOT out = c64[4] get-tuple-element(w), index=1
})");
  expectAll(ir, {"%6, %7, %8 = while(%5, %2, %4) : s32[], f32[4], f32[4]",
                 "body(%14: s32[], %15: f32[4], %16: f32[4])", "yield %18, %23, %24",
                 "%27 = concatenate(%25, %26) dimension=1 : f32[4,2]"});
}

TEST(ComplexImport, SumIsAVariadicReduceOfTheParts) {
  std::string ir = importText(R"(HloModule m
add {
  x = c64[] parameter(0)
  y = c64[] parameter(1)
  ROOT s = c64[] add(x, y)
}
ENTRY main {
  z = c64[3,5] parameter(0)
  zero = c64[] constant((0, 0))
  ROOT r = c64[3] reduce(z, zero), dimensions={1}, to_apply=add
})");
  expectAll(ir, {"reduce(%2, %4, %5, %6) dimensions={1} : f32[3], f32[3]"});
}

TEST(ComplexImport, FftOverSeveralDimensionsIsOneOpPerDimension) {
  std::string ir = importText(R"(HloModule m
ENTRY main {
  x = f32[2,6,8] parameter(0)
  r = c64[2,6,5] fft(x), fft_type=RFFT, fft_length={6,8}
  ROOT i = f32[2,6,8] fft(r), fft_type=IRFFT, fft_length={6,8}
})");
  // RFFT: the last dimension first (real to complex), then the other between transposes; IRFFT
  // the other way round.
  expectAll(ir, {"%1, %2 = fft(%0) kind=real-forward length=8 : f32[2,6,5], f32[2,6,5]",
                 "%3 = transpose(%1) permutation={0,2,1} : f32[2,5,6]",
                 "%5, %6 = fft(%3, %4) kind=forward length=6 : f32[2,5,6], f32[2,5,6]",
                 "kind=inverse length=6 : f32[2,5,6], f32[2,5,6]",
                 "fft(%13, %14) kind=real-inverse length=8 : f32[2,6,8]"});
}

TEST(ComplexImport, ErrorsAtTheInstruction) {
  const std::string head = "HloModule m\nENTRY main {\n  ";
  for (const auto& [body, message] : std::vector<std::pair<std::string, std::string>>{
           {"z = c64[4] parameter(0)\n  ROOT t = c64[4] cosine(z)",
            "test.hlo:4:19: error: unsupported op 'cosine' on complex numbers (c64[4]) "
            "(instruction "
            "t in computation main); run this function with jax.jit instead"},
           {"z = c64[4] parameter(0)\n  ROOT t = pred[4] compare(z, z), direction=LT",
            "compare LT of complex numbers (only EQ and NE are defined)"},
           {"z = c64[4] parameter(0)\n  ROOT t = f32[4] convert(z)",
            "XLA does not convert complex to real (take real() first)"},
           {"x = f32[4] parameter(0)\n  ROOT f = c64[4] fft(x), fft_type=FFT, fft_length={4}",
            "FFT needs a complex operand, got f32[4]"},
           {"z = c64[4] parameter(0)\n  ROOT f = c64[4] fft(z), fft_type=DCT, fft_length={4}",
            "unknown fft_type 'DCT' (expected FFT, IFFT, RFFT or IRFFT)"},
           {"z = c64[4] parameter(0)\n  ROOT f = c64[4] fft(z), fft_type=FFT, fft_length={8}",
            "fft of length 8 needs 8 points in the last dimension, got f32[4]"},
           {"z = c64[20000] parameter(0)\n  ROOT f = c64[20000] fft(z), fft_type=FFT, "
            "fft_length={20000}",
            "fft of 20000 points: loopfuse transforms 1 to 16384 points per dimension"},
           {"z = c64[2,2,2,2] parameter(0)\n  ROOT f = c64[2,2,2,2] fft(z), fft_type=FFT, "
            "fft_length={2,2,2,2}",
            "fft over 4 dimensions of c64[2,2,2,2] (XLA takes 1 to 3"},
       }) {
    std::string error = importError(head + body + "\n}\n");
    EXPECT_NE(error.find(message), std::string::npos) << message << "\n" << error;
  }
}

}  // namespace
}  // namespace lf::frontend::testing
