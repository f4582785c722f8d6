// The CPU's convolution forms (register tiles of pixels x features, vector and scalar; the element
// loop), against the chain every form must sum: window positions in row-major order outer, input
// features inner, one fma each, a position in the padding or between dilated lhs elements adding
// fma(0, w, acc). Every bit must match, in both vector widths.
#include <cmath>
#include <string>

#include "runtime/cpu_program_builder.h"

namespace lf::testing {
namespace {

using K = ir::OpKind;

// An NHWC-style convolution (features last in the lhs, the kernel [window..., in, out] and the
// result) of `spatial` dims, one feature group.
struct ConvCase {
  DType dtype;
  int64_t batch;
  std::vector<int64_t> in, window;
  int64_t inFeatures, outFeatures;
  std::vector<int64_t> strides, padLow, padHigh, lhsDilation, rhsDilation;
};

std::vector<int64_t> outSpatial(const ConvCase& c) {
  std::vector<int64_t> out;
  for (size_t d = 0; d < c.in.size(); ++d) {
    const int64_t dilatedIn = (c.in[d] - 1) * c.lhsDilation[d] + 1;
    const int64_t dilatedWindow = (c.window[d] - 1) * c.rhsDilation[d] + 1;
    out.push_back((dilatedIn + c.padLow[d] + c.padHigh[d] - dilatedWindow) / c.strides[d] + 1);
  }
  return out;
}

template <class T>
std::vector<T> convolutionByFmaChains(const ConvCase& c, const std::vector<T>& x,
                                      const std::vector<T>& w) {
  const std::vector<int64_t> os = outSpatial(c);
  const size_t n = c.in.size();
  int64_t pixels = 1, windowElements = 1;
  for (int64_t s : os) pixels *= s;
  for (int64_t s : c.window) windowElements *= s;
  int64_t inPixels = 1;
  for (int64_t s : c.in) inPixels *= s;
  std::vector<T> out(c.batch * pixels * c.outFeatures);
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t q = 0; q < pixels; ++q)
      for (int64_t f = 0; f < c.outFeatures; ++f) {
        std::vector<int64_t> o(n);
        for (size_t d = n, rest = q; d-- > 0;) o[d] = rest % os[d], rest /= os[d];
        T acc = 0;
        for (int64_t r = 0; r < windowElements; ++r) {
          std::vector<int64_t> k(n);
          for (size_t d = n, rest = r; d-- > 0;) k[d] = rest % c.window[d], rest /= c.window[d];
          bool valid = true;
          int64_t inPixel = 0;
          for (size_t d = 0; d < n; ++d) {
            const int64_t p = o[d] * c.strides[d] + k[d] * c.rhsDilation[d] - c.padLow[d];
            valid = valid && p >= 0 && p % c.lhsDilation[d] == 0 && p / c.lhsDilation[d] < c.in[d];
            inPixel = inPixel * c.in[d] + (valid ? p / c.lhsDilation[d] : 0);
          }
          for (int64_t ci = 0; ci < c.inFeatures; ++ci) {
            const T l = valid ? x[(b * inPixels + inPixel) * c.inFeatures + ci] : T(0);
            acc = std::fma(l, w[(r * c.inFeatures + ci) * c.outFeatures + f], acc);
          }
        }
        out[(b * pixels + q) * c.outFeatures + f] = acc;
      }
  return out;
}

// With reversedKernel, the convolution reads reverse(w) over the window dims (as an input gradient
// does), which the plan fuses into it: the kernel is then no buffer.
template <class T>
void expectTiledConvolution(const ConvCase& c, bool narrowVectors, bool pixelVectors = false,
                            bool reversedKernel = false) {
  const size_t n = c.in.size();
  std::vector<int64_t> ld = {c.batch}, rd = c.window, od = {c.batch};
  ld.insert(ld.end(), c.in.begin(), c.in.end());
  ld.push_back(c.inFeatures);
  rd.insert(rd.end(), {c.inFeatures, c.outFeatures});
  const std::vector<int64_t> os = outSpatial(c);
  od.insert(od.end(), os.begin(), os.end());
  od.push_back(c.outFeatures);
  ir::ConvolutionAttrs a;
  a.lhsBatch = 0, a.lhsFeature = static_cast<int64_t>(n) + 1;
  a.rhsInput = static_cast<int64_t>(n), a.rhsOutput = static_cast<int64_t>(n) + 1;
  a.outBatch = 0, a.outFeature = static_cast<int64_t>(n) + 1;
  for (size_t d = 0; d < n; ++d) {
    a.lhsSpatial.push_back(static_cast<int64_t>(d) + 1);
    a.rhsSpatial.push_back(static_cast<int64_t>(d));
    a.outSpatial.push_back(static_cast<int64_t>(d) + 1);
  }
  a.sizes = c.window, a.strides = c.strides, a.padLow = c.padLow, a.padHigh = c.padHigh;
  a.lhsDilation = c.lhsDilation, a.rhsDilation = c.rhsDilation;
  ProgramBuilder b;
  ir::Value* x = b.param(type(c.dtype, ld), "x");
  ir::Value* w = b.param(type(c.dtype, rd), "w");
  ir::Value* kernel = w;
  if (reversedKernel) {
    ir::ReverseAttrs reverse;
    for (size_t d = 0; d < n; ++d) reverse.dimensions.push_back(static_cast<int64_t>(d));
    kernel = b.op1(K::Reverse, {w}, type(c.dtype, rd), reverse);
  }
  b.output(b.op1(K::Convolution, {x, kernel}, type(c.dtype, od), a));
  codegen::EmittedKernel k = codegen::emit(b.program, codegen::Target::Cpu);
  ASSERT_NE(k.source.find("// convolution tiles of "), std::string::npos) << "not the tiles";
  if (pixelVectors) {
    ASSERT_NE(k.source.find("// packed lhs: "), std::string::npos) << "not the pixel vectors";
  }
  if (narrowVectors) useNarrowVectors(k);
  int64_t lsize = 1, rsize = 1;
  for (int64_t d : ld) lsize *= d;
  for (int64_t d : rd) rsize *= d;
  const std::vector<T> lv = lhsTestValues<T>(lsize), rv = rhsTestValues<T>(rsize);
  auto exe = runtime::Executable::compileCpu(k, testCompileOptions());
  auto out = exe->run({array<T>(c.dtype, ld, lv), array<T>(c.dtype, rd, rv)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<T> kernelValues = rv;
  if (reversedKernel) {
    // Window position r of reverse(w) is w's position with every spatial index mirrored.
    const int64_t perPosition = c.inFeatures * c.outFeatures;
    for (int64_t r = 0; r < rsize / perPosition; ++r) {
      int64_t mirrored = 0;
      for (size_t d = 0, rest = static_cast<size_t>(r), stride = 1; d < n; ++d) {
        const size_t dim = n - 1 - d;
        const int64_t k = static_cast<int64_t>(rest % c.window[dim]);
        rest /= c.window[dim];
        mirrored += (c.window[dim] - 1 - k) * static_cast<int64_t>(stride);
        stride *= c.window[dim];
      }
      for (int64_t e = 0; e < perPosition; ++e)
        kernelValues[r * perPosition + e] = rv[mirrored * perPosition + e];
    }
  }
  std::vector<T> got = values<T>(out[0]), want = convolutionByFmaChains(c, lv, kernelValues);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i;
}

template <size_t N>
void expectEveryCaseInBothWidths(const ConvCase (&cases)[N], bool pixelVectors) {
  for (const ConvCase& c : cases) {
    for (bool narrow : {false, true}) {
      SCOPED_TRACE(std::string(dtypeName(c.dtype)) + " " + std::to_string(c.in.size()) +
                   "-D, features " + std::to_string(c.inFeatures) + " -> " +
                   std::to_string(c.outFeatures) + (narrow ? ", 32-byte vectors" : ""));
      if (c.dtype == DType::F32)
        expectTiledConvolution<float>(c, narrow, pixelVectors);
      else
        expectTiledConvolution<double>(c, narrow, pixelVectors);
    }
  }
}

// SAME padding with whole and leftover tiles of pixels and features; stride, asymmetric padding
// and window dilation; a transposed convolution (lhs dilation); fewer features than a vector
// (masked vectors or scalar tiles), one feature (scalar tiles); f64; a 1-D convolution.
TEST(CpuConvolution, RegisterTilesSumTheElementLoopsChain) {
  const ConvCase cases[] = {
      {DType::F32, 2, {7, 9}, {3, 3}, 3, 20, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {DType::F32, 1, {11, 8}, {3, 2}, 4, 8, {2, 1}, {2, 0}, {1, 1}, {1, 1}, {2, 1}},
      {DType::F32, 2, {5, 5}, {3, 3}, 6, 5, {1, 1}, {1, 1}, {2, 2}, {2, 2}, {1, 1}},
      {DType::F32, 3, {6, 6}, {3, 3}, 40, 3, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {DType::F32, 2, {8, 8}, {3, 3}, 8, 1, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {DType::F64, 1, {6, 7}, {2, 3}, 5, 6, {1, 2}, {0, 1}, {1, 0}, {1, 1}, {1, 1}},
      {DType::F32, 2, {30}, {5}, 2, 33, {1}, {2}, {2}, {1}, {1}},
  };
  expectEveryCaseInBothWidths(cases, false);
}

// Pixel vectors (at most 16 bytes of output features: plan/convolution_pack.h): rows that end in
// a partial tile, padding wider than the window (whole rows and columns of the pack zero),
// negative padding, strides and dilations along the other spatial dims, window dilation and a
// transposed convolution (lhs dilation) along the minor one, f64, 1-D and 3-D.
TEST(CpuConvolution, PixelVectorsSumTheElementLoopsChain) {
  const ConvCase cases[] = {
      {DType::F32, 2, {9, 37}, {3, 3}, 5, 4, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {DType::F32, 1, {6, 10}, {2, 3}, 3, 2, {1, 1}, {4, 5}, {3, 2}, {1, 1}, {1, 1}},
      {DType::F32, 2, {12, 14}, {3, 3}, 4, 3, {2, 1}, {-1, -2}, {0, 1}, {1, 1}, {2, 2}},
      {DType::F32, 1, {7, 8}, {3, 3}, 2, 4, {1, 1}, {1, 2}, {1, 2}, {2, 2}, {1, 1}},
      {DType::F64, 2, {5, 19}, {3, 2}, 6, 2, {1, 1}, {1, 0}, {1, 1}, {1, 1}, {1, 3}},
      {DType::F64, 1, {40}, {4}, 3, 1, {1}, {2}, {1}, {1}, {1}},
      {DType::F32,
       1,
       {4, 5, 6},
       {2, 3, 3},
       3,
       3,
       {1, 2, 1},
       {1, 1, 1},
       {0, 1, 1},
       {1, 1, 1},
       {1, 1, 1}},
  };
  expectEveryCaseInBothWidths(cases, true);
}

// An input gradient's shape: the kernel reversed by a fused op, which the pixel vectors read
// element by element (the other tile forms need it in a buffer).
TEST(CpuConvolution, PixelVectorsReadAFusedKernel) {
  const ConvCase c{DType::F32, 2, {6, 11}, {3, 2}, 5, 3, {1, 1}, {2, 1}, {0, 1}, {1, 1}, {1, 1}};
  for (bool narrow : {false, true}) {
    SCOPED_TRACE(narrow ? "32-byte vectors" : "64-byte vectors");
    expectTiledConvolution<float>(c, narrow, true, true);
  }
}

}  // namespace
}  // namespace lf::testing
