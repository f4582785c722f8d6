// The CPU's convolution as register tiles: an implicit GEMM. A convolution whose output features
// are the minor dim of its result and of its kernel (JAX's NHWC / HWIO, and any layout with the
// features last) is a dot of output pixels (rows) by output features (columns), contracted over
// the window's positions and the input features. Each SPMD iteration keeps a tile of pixels x
// features in registers for the whole contraction, as the dot's tiles do (emit_dot_tiles.cc): per
// window position and input feature it loads the kernel's row of output features once and fmas
// each pixel's broadcast input element into it. Vector tiles, partly used where there are fewer
// features than a vector's lanes (a convolution back to a few channels) and the vectors have
// masks; otherwise scalar tiles of a few pixels, whose chains overlap instead of each waiting on
// its previous fma.
//
// Every result is the chain of emit_convolution.cc's form, window positions outer and input
// features inner, one fma each, a position in the padding contributing 0 * w: the same bits.
// The conv_sampler benchmark (20 steps of two 3x3 convolutions over 8 x 32 x 32 pixels, 4 -> 32
// -> 4 channels) went from 132 ms with the element loop to 18 ms (docs/ARCHITECTURE.md).
#include <algorithm>
#include <string>

#include "codegen/dot_form.h"

namespace lf::codegen {

// One loop nest of tiles of the same shape: vectorBytes 0 for scalar tiles.
struct ConvolutionTileNest {
  int vectorBytes;
  int64_t lanes;
  int64_t pixels;      // pixels per tile
  int64_t pixelBase;   // the nest's first pixel
  int64_t pixelTiles;  // tiles along the pixels
  int64_t cols;        // features per tile
  int64_t colStride;   // features from one tile to the next
  int64_t colBase;     // the nest's first feature
  int64_t colTiles;    // tiles along the features
};

namespace {

std::string num(int64_t n) { return std::to_string(n); }

// Scalar tiles: 16 accumulators, as many pixels as fit (up to 8).
constexpr int64_t kScalarTileAccumulators = 16;

int64_t windowElements(const ir::ConvolutionAttrs& a) {
  int64_t n = 1;
  for (int64_t s : a.sizes) n *= s;
  return n;
}

}  // namespace

// A convolution of the CPU's tile forms (plan::hasTileForm), the result and the kernel in memory.
bool Emitter::convolutionTiled(const ir::Op& op) const {
  if (target_ != Target::Cpu || !plan::hasTileForm(op)) return false;
  return !isLocal(op.result()) && isAddressable(op.result()) && isAddressable(op.operands[1]);
}

void Emitter::emitConvolutionTiles(const ir::Op& op) {
  const ir::Value* out = op.result();
  const int64_t elementBytes = byteSize(out->type.dtype);
  const int64_t cols = out->type.dims.back(), pixels = out->type.numElements() / cols;
  auto scalarTiles = [&] {
    const int64_t tilePixels =
        std::min(pixels, std::clamp<int64_t>(kScalarTileAccumulators / cols, 1, 8));
    emitConvolutionTileNest(op, {0, 1, tilePixels, 0, pixels / tilePixels, cols, cols, 0, 1});
    if (pixels % tilePixels != 0) {
      emitConvolutionTileNest(
          op, {0, 1, pixels % tilePixels, pixels / tilePixels * tilePixels, 1, cols, cols, 0, 1});
    }
  };
  auto vectorTiles = [&](int widest) {
    const dot::TileShape t = dot::tileShape(cols, pixels, elementBytes, widest);
    dot::forEachTileNest(t, pixels, cols,
                         [&](int64_t tilePixels, int64_t pixelBase, int64_t pixelTiles,
                             int64_t tileCols, int64_t colBase, int64_t colTiles) {
                           emitConvolutionTileNest(
                               op, {t.vectorBytes, t.lanes, tilePixels, pixelBase, pixelTiles,
                                    tileCols, t.vectors * t.lanes, colBase, colTiles});
                         });
  };
  // Fewer features than a 32-byte vector: with AVX-512's masked loads, one partly used vector per
  // pixel still does several fmas an instruction; elsewhere a partial vector is loaded lane by
  // lane, so scalar tiles. One feature: scalar tiles everywhere.
  const bool narrow = cols * elementBytes < 32;
  if (cols == 1) {
    scalarTiles();
  } else {
    line("#if LF_CPU_VECTOR_BYTES == 64");
    vectorTiles(64);
    line("#else");
    if (narrow) {
      scalarTiles();
    } else {
      vectorTiles(32);
    }
    line("#endif");
  }
  endStage(op);
}

void Emitter::emitConvolutionTileNest(const ir::Op& op, const ConvolutionTileNest& nest) {
  const ir::Value* lhs = op.operands[0];
  const ir::Value* rhs = op.operands[1];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  if (nest.pixelTiles * nest.colTiles == 0) return;
  const bool scalar = nest.vectorBytes == 0;
  const std::string elem = cType(out->type.dtype);
  const std::string vec = scalar ? elem : dot::vectorType(out->type.dtype, nest.vectorBytes);
  const int64_t features = out->type.dims.back();
  // Vectors per pixel (vector tiles), or features (scalar tiles: one accumulator each).
  const int64_t parts = scalar ? nest.cols : (nest.cols + nest.lanes - 1) / nest.lanes;
  const int64_t lastLanes = scalar ? 1 : nest.cols - (parts - 1) * nest.lanes;
  const std::vector<int64_t> pixelDims(out->type.dims.begin(), out->type.dims.end() - 1);
  auto acc = [](int64_t p, int64_t v) { return "acc" + num(p) + "_" + num(v); };

  line("// convolution tiles of " + num(nest.pixels) + " pixels x " + num(nest.cols) +
       " features from pixel " + num(nest.pixelBase) + ", feature " + num(nest.colBase));
  openParallelLoop(nest.pixelTiles * nest.colTiles, "tile");
  line("const int64_t px0 = " + num(nest.pixelBase) + " + (tile / " + num(nest.colTiles) + ") * " +
       num(nest.pixels) + ";");
  line("const int64_t col0 = " + num(nest.colBase) + " + (tile % " + num(nest.colTiles) + ") * " +
       num(nest.colStride) + ";");
  std::vector<std::vector<std::string>> outIdx(nest.pixels);
  for (int64_t p = 0; p < nest.pixels; ++p) {
    line("const int64_t q" + num(p) + " = px0 + " + num(p) + ";");
    const std::string prefix = "o" + num(p) + "_";
    declareMultiIndex(pixelDims, "q" + num(p), prefix);
    for (size_t d = 0; d < pixelDims.size(); ++d) outIdx[p].push_back(prefix + num(d));
    outIdx[p].push_back("col0");
    std::string decl = vec + " ";
    for (int64_t v = 0; v < parts; ++v) decl += (v ? ", " : "") + acc(p, v) + " = {}";
    line(decl + ";");
  }
  open("for (int64_t r = 0; r < " + num(windowElements(a)) + "; ++r)");
  declareMultiIndex(a.sizes, "r", "w");
  std::vector<std::vector<std::string>> lhsIdx;
  for (int64_t p = 0; p < nest.pixels; ++p) {
    lhsIdx.push_back(convolutionWindowIndex(op, outIdx[p], num(p), "ok" + num(p)));
    lhsIdx.back()[a.lhsFeature] = "c";
  }
  std::vector<std::string> rhsIdx(rhs->type.rank());
  for (size_t d = 0; d < a.rhsSpatial.size(); ++d) rhsIdx[a.rhsSpatial[d]] = "w" + num(d);
  rhsIdx[a.rhsInput] = "c";
  rhsIdx[a.rhsOutput] = "col0";
  // The loop over input features, twice: where every pixel of the tile has an lhs element at this
  // window position (inside the image: most tiles), reading it straight into the fma; else with
  // a select of 0 for the pixels that have none. The element is read before the select (at the
  // clamped position): a load inside the conditional expression is a branch, as GCC does not
  // speculate a load it cannot prove in bounds.
  auto featureLoop = [&](bool checked) {
    open("for (int64_t c = 0; c < " + num(rhs->type.dims[a.rhsInput]) + "; ++c)");
    line("const " + elem + "* rp = &" + at(rhs, ElementIndex{"", rhsIdx}) + ";");
    for (int64_t v = 0; v < parts; ++v) {
      const std::string ptr = "rp + " + num(v * nest.lanes);
      std::string load = scalar ? "rp[" + num(v) + "]"
                         : v + 1 < parts || lastLanes == nest.lanes
                             ? "lf_vload<" + vec + ">(" + ptr + ")"
                             : "lf_vload_first<" + vec + ">(" + ptr + ", " + num(lastLanes) + ")";
      line("const " + vec + " r" + num(v) + " = " + load + ";");
    }
    for (int64_t p = 0; p < nest.pixels; ++p) {
      open("");
      const std::string e = at(lhs, ElementIndex{"", lhsIdx[p]});
      if (checked) {
        line("const " + elem + " e = " + e + ";");
        line("const " + elem + " l = ok" + num(p) + " ? e : (" + elem + ")0;");
      } else {
        line("const " + elem + " l = " + e + ";");
      }
      for (int64_t v = 0; v < parts; ++v) {
        line(acc(p, v) + " = " + (scalar ? "lf_fma" : "lf_vfma") + "(l, r" + num(v) + ", " +
             acc(p, v) + ");");
      }
      close();
    }
    close();
  };
  std::string inside = "ok0";
  for (int64_t p = 1; p < nest.pixels; ++p) inside += " && ok" + num(p);
  open("if (" + inside + ")");
  featureLoop(false);
  close();
  open("else");
  featureLoop(true);
  close();
  close();
  for (int64_t p = 0; p < nest.pixels; ++p) {
    for (int64_t v = 0; v < parts; ++v) {
      const std::string element =
          at(out, "q" + num(p) + " * " + num(features) + " + col0 + " + num(v * nest.lanes));
      if (scalar) {
        line(element + " = " + acc(p, v) + ";");
      } else if (v + 1 < parts || lastLanes == nest.lanes) {
        line("lf_vstore(&" + element + ", " + acc(p, v) + ");");
      } else {
        line("lf_vstore_first(&" + element + ", " + acc(p, v) + ", " + num(lastLanes) + ");");
      }
    }
  }
  close();
}

}  // namespace lf::codegen
