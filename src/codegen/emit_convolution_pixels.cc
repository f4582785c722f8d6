// The CPU's convolution to a few output features as pixel vectors (plan/convolution_pack.h): the
// lhs packed with its padding as zeros, then tiles of V vectors of consecutive pixels along one
// output row x every output feature, each lane summing its pixel's chain.
//
// The chain is the other forms' (emit_convolution.cc): window positions outer, input features
// inner, one fma each from +0, a position in the padding contributing 0 * w; so the bits are
// theirs. (The lane computes fma(w, x, acc) where they compute fma(x, w, acc): the same value,
// except which payload a NaN times a NaN keeps.) In the conv_sampler benchmark the convolution
// back to 4 channels (3x3, 32 input features) was 44% of the time as tiles of 8 pixels x 4 of
// AVX-512's 16 lanes.
#include <algorithm>
#include <string>

#include "codegen/dot_form.h"
#include "plan/convolution_pack.h"

namespace lf::codegen {
namespace {

std::string num(int64_t n) { return std::to_string(n); }

}  // namespace

void Emitter::emitConvolutionPixels(const ir::Op& op, const plan::ConvolutionPack& pack) {
  const ir::Value* lhs = op.operands[0];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  const std::string elem = cType(out->type.dtype);
  const size_t minor = static_cast<size_t>(pack.minorSpatial);
  const size_t spatial = a.lhsSpatial.size();

  // The pack: [batch][spans of the other spatial dims][input features][minor span, padded].
  std::vector<int64_t> packDims{pack.batch};
  for (size_t d = 0; d < spatial; ++d) {
    if (d != minor) packDims.push_back(pack.spans[d]);
  }
  packDims.push_back(pack.inputs);
  packDims.push_back(pack.minorPadded);
  const std::string packPtr =
      "(" + elem + "*)(lf_scratch + " + num(kernel_.opPlan(&op).temps.at(0)) + ")";
  line("// packed lhs: " + num(pack.elements()) + " elements, the padding as zeros");
  open("");
  line(elem + "* pack = " + packPtr + ";");
  // One SPMD iteration per block of the pack (a batch element and a position along each other
  // spatial dim: inputs x minorPadded elements), which reads the lhs in its order, the input
  // features innermost: contiguous reads, which a fused lhs computes in vectors, and stores a
  // row of the pack apart, all of them in L1.
  const std::vector<int64_t> blockDims(packDims.begin(), packDims.end() - 2);
  const int64_t blockElements = pack.inputs * pack.minorPadded;
  openParallelLoop(pack.elements() / blockElements, "block");
  declareMultiIndex(blockDims, "block", "k");
  std::vector<std::string> lhsIdx(lhs->type.rank());
  lhsIdx[a.lhsBatch] = "k0";
  lhsIdx[a.lhsFeature] = "c";
  std::string blockValid = "true", valid = "block_ok";
  for (size_t d = 0, other = 1; d < spatial; ++d) {
    const std::string p = "p" + num(d), dil = num(a.lhsDilation[d]);
    const std::string inside = " && " + p + " >= 0 && " + p + " % " + dil + " == 0 && " + p +
                               " / " + dil + " < " + num(lhs->type.dims[a.lhsSpatial[d]]);
    lhsIdx[a.lhsSpatial[d]] = "x" + num(d);
    if (d == minor) {
      valid += inside;
      continue;
    }
    line("const int64_t " + p + " = k" + num(other++) + " - (" + num(a.padLow[d]) + ");");
    blockValid += inside;
  }
  line("const bool block_ok = " + blockValid + ";");
  line(elem + "* dst = pack + block * " + num(blockElements) + ";");
  const std::string minorPadded = num(pack.minorPadded), inputs = num(pack.inputs);
  // Column q of the block: its lhs elements where `ok`, else zeros.
  auto copyColumns = [&](const std::string& from, const std::string& to, const std::string& ok) {
    open("for (int64_t q = " + from + "; q < " + to + "; ++q)");
    line("const int64_t p" + num(minor) + " = q - (" + num(a.padLow[minor]) + ");");
    line("const bool ok = " + ok + ";");
    for (size_t d = 0; d < spatial; ++d) {
      line("const int64_t x" + num(d) + " = ok ? p" + num(d) + " / " + num(a.lhsDilation[d]) +
           " : 0;");
    }
    open("for (int64_t c = 0; c < " + inputs + "; ++c)");
    // Read before the select (a fused lhs computes it first), as in the other forms.
    line("const " + elem + " e = " + at(lhs, ElementIndex{"", lhsIdx}) + ";");
    line("dst[c * " + minorPadded + " + q] = " + (ok == "true" ? "e" : "ok ? e : (" + elem + ")0") +
         ";");
    close();
    close();
  };
  if (a.lhsDilation[minor] != 1) {
    copyColumns("0", minorPadded, valid);
  } else {
    // Undilated: the columns before and after the lhs's are zeros, no test per element between.
    const int64_t lo = std::clamp<int64_t>(a.padLow[minor], 0, pack.minorPadded);
    const int64_t hi = std::clamp<int64_t>(a.padLow[minor] + lhs->type.dims[a.lhsSpatial[minor]],
                                           lo, pack.minorPadded);
    line("const int64_t lo = block_ok ? " + num(lo) + " : " + minorPadded + ";");
    line("const int64_t hi = block_ok ? " + num(hi) + " : " + minorPadded + ";");
    open("for (int64_t c = 0; c < " + inputs + "; ++c)");
    line("for (int64_t q = 0; q < lo; ++q) dst[c * " + minorPadded + " + q] = (" + elem + ")0;");
    line("for (int64_t q = hi; q < " + minorPadded + "; ++q) dst[c * " + minorPadded + " + q] = (" +
         elem + ")0;");
    close();
    copyColumns("lo", "hi", "true");
  }
  close();
  barrier();
  line("#if LF_CPU_VECTOR_BYTES == 64");
  emitConvolutionPixelTiles(op, pack, 64);
  line("#else");
  emitConvolutionPixelTiles(op, pack, 32);
  line("#endif");
  close();
  endStage(op);
}

void Emitter::emitConvolutionPixelTiles(const ir::Op& op, const plan::ConvolutionPack& pack,
                                        int vectorBytes) {
  const ir::Value* rhs = op.operands[1];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  const std::string elem = cType(out->type.dtype);
  const std::string vec = dot::vectorType(out->type.dtype, vectorBytes);
  const size_t minor = static_cast<size_t>(pack.minorSpatial);
  const int64_t lanes = pack.lanes(vectorBytes), vectors = pack.vectorsPerTile(vectorBytes);
  const int64_t chunks = pack.chunks(vectorBytes), features = pack.features;
  const int rank = out->type.rank();
  const std::vector<int64_t> rowDims(out->type.dims.begin(), out->type.dims.end() - 2);
  int64_t rows = 1;
  for (int64_t d : rowDims) rows *= d;
  auto acc = [](int64_t v, int64_t f) { return "acc" + num(v) + "_" + num(f); };

  line("// convolution tiles of " + num(vectors) + " x " + num(lanes) + " pixels x " +
       num(features) + " features");
  openParallelLoop(rows * chunks, "tile");
  line("const int64_t row = tile / " + num(chunks) + ";");
  line("const int64_t m0 = (tile % " + num(chunks) + ") * " + num(vectors * lanes) + ";");
  declareMultiIndex(rowDims, "row", "o");
  for (int64_t v = 0; v < vectors; ++v) {
    std::string decl = vec + " ";
    for (int64_t f = 0; f < features; ++f) decl += (f ? ", " : "") + acc(v, f) + " = {}";
    line(decl + ";");
  }
  int64_t window = 1;
  for (int64_t s : a.sizes) window *= s;
  open("for (int64_t r = 0; r < " + num(window) + "; ++r)");
  declareMultiIndex(a.sizes, "r", "w");
  // The pack's row for this window position: batch, then each other spatial dim's position.
  std::string offset = "o" + num(a.outBatch);
  for (size_t d = 0; d < a.lhsSpatial.size(); ++d) {
    if (d == minor) continue;
    offset = "(" + offset + ") * " + num(pack.spans[d]) + " + o" + num(a.outSpatial[d]) + " * " +
             num(a.strides[d]) + " + w" + num(d) + " * " + num(a.rhsDilation[d]);
  }
  line("const " + elem + "* pr = pack + ((" + offset + ") * " + num(pack.inputs) + ") * " +
       num(pack.minorPadded) + " + m0 + w" + num(minor) + " * " + num(a.rhsDilation[minor]) + ";");
  std::vector<std::string> rhsIdx(rhs->type.rank());
  for (size_t d = 0; d < a.rhsSpatial.size(); ++d) rhsIdx[a.rhsSpatial[d]] = "w" + num(d);
  rhsIdx[a.rhsInput] = "c";
  open("for (int64_t c = 0; c < " + num(pack.inputs) + "; ++c)");
  line("const " + elem + "* pc = pr + c * " + num(pack.minorPadded) + ";");
  for (int64_t v = 0; v < vectors; ++v) {
    line("const " + vec + " x" + num(v) + " = lf_vload<" + vec + ">(pc + " + num(v * lanes) + ");");
  }
  for (int64_t f = 0; f < features; ++f) {
    rhsIdx[a.rhsOutput] = num(f);
    line("const " + elem + " w_" + num(f) + " = " + at(rhs, ElementIndex{"", rhsIdx}) + ";");
    for (int64_t v = 0; v < vectors; ++v) {
      line(acc(v, f) + " = lf_vfma(w_" + num(f) + ", x" + num(v) + ", " + acc(v, f) + ");");
    }
  }
  close();
  close();
  // Each lane's pixel, where the row has one (the last tile may reach past its end).
  const int64_t rowLength = out->type.dims[rank - 2];
  for (int64_t v = 0; v < vectors; ++v) {
    open("for (int64_t j = 0; j < " + num(lanes) + "; ++j)");
    line("const int64_t m = m0 + " + num(v * lanes) + " + j;");
    open("if (m < " + num(rowLength) + ")");
    for (int64_t f = 0; f < features; ++f) {
      line(at(out, "(row * " + num(rowLength) + " + m) * " + num(features) + " + " + num(f)) +
           " = " + acc(v, f) + "[j];");
    }
    close();
    close();
  }
  close();
}

}  // namespace lf::codegen
